#!/usr/bin/env bash
# Stored queries and project-file aliases end to end, on the shared cookbooks (industry-intel,
# second-brain): each cookbook's schema and seed in a local graph, served by omnigraph-server with
# the cookbook's queries/ as its stored queries. Then
#   1. every stored read query without parameters, and the README's parameterized ones, through
#      HTTP (POST /graphs/ID/queries/NAME) and through `omnigraph query NAME --server` (the
#      catalog lane), each compared with the same query run directly by the CLI on the graph;
#   2. every `omnigraph query --alias ...` line of the cookbook's README, verbatim, in a copy of the
#      cookbook whose omnigraph.yaml points at this server's port: exit 0, the deprecation note
#      on stderr, and stdout equal to the query run directly.
# Starts servers: label integration.
set -u
BIN=$(realpath "$1")
SERVER=$2
COOK=$3
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset OMNIGRAPH_BEARER_TOKEN
mkdir -p "$DIR/bin"
ln -s "$BIN" "$DIR/bin/omnigraph"

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
serve() {  # GRAPH ID QUERIES
  OMNIGRAPH_UNAUTHENTICATED=1 launch_server "$SERVER" "$1" --graph-id "$2" --queries "$3"
}

# The file of the cookbook's queries/ that declares query NAME.
file_of() { grep -l "^query $2(" "$COOK/$1"/queries/*.gq | head -1; }

# NAME PARAMS_JSON: the rows through HTTP, through the CLI's catalog lane, and run directly.
compare() {
  local cb=$1 id=$2 name=$3 params=$4 file
  file=$(file_of "$cb" "$name")
  [ -n "$file" ] || fail "$cb: no file declares $name"
  curl -sf -X POST "$URL/graphs/$id/queries/$name" -H 'content-type: application/json' \
    -d "{\"params\":$params}" | jq -S .rows >"$DIR/http.json" || fail "$cb: HTTP $name $params"
  "$BIN" query "$name" --params "$params" --server "$URL" --graph "$id" --format json |
    jq -S .rows >"$DIR/lane.json" || fail "$cb: catalog lane $name"
  "$BIN" query "$name" --query "$file" --params "$params" --format json "$G" |
    jq -S .rows >"$DIR/direct.json" || fail "$cb: direct $name"
  cmp -s "$DIR/http.json" "$DIR/direct.json" ||
    fail "$cb: $name $params: HTTP differs from direct: $(diff "$DIR/http.json" "$DIR/direct.json")"
  cmp -s "$DIR/lane.json" "$DIR/direct.json" || fail "$cb: $name: the CLI catalog lane differs"
  COMPARED=$((COMPARED + 1))
}

run_cookbook() {  # COOKBOOK GRAPH_ID README_PARAMETERIZED...
  local cb=$1 id=$2
  shift 2
  G=$DIR/$cb.omni
  "$BIN" --quiet init --schema "$COOK/$cb/schema.pg" "$G" >/dev/null || fail "$cb: init"
  "$BIN" --quiet load --data "$COOK/$cb/seed.jsonl" --mode overwrite "$G" >/dev/null ||
    fail "$cb: load"
  serve "$G" "$id" "$COOK/$cb/queries"
  COMPARED=0
  curl -sf "$URL/graphs/$id/queries" >"$DIR/catalog.json" || fail "$cb: catalog"
  for name in $(jq -r '.queries[] | select(.mutation == false and (.params | length) == 0)
                       | .name' "$DIR/catalog.json"); do
    compare "$cb" "$id" "$name" '{}'
  done
  while [ $# -gt 0 ]; do
    compare "$cb" "$id" "$1" "$2"
    shift 2
  done
  [ "$COMPARED" -ge 5 ] || fail "$cb: only $COMPARED queries compared"
  echo "$cb: $COMPARED stored queries agree (HTTP, catalog lane, direct)"

  # The README's alias steps, verbatim, in a copy of the cookbook pointed at this server.
  local work=$DIR/$cb-work
  cp -r "$COOK/$cb" "$work"
  sed -i "s#127.0.0.1:8080#127.0.0.1:$PORT#" "$work/omnigraph.yaml"
  local steps=0
  while IFS= read -r line; do
    (cd "$work" && PATH="$DIR/bin:$PATH" bash -c "$line") >"$DIR/alias.out" 2>"$DIR/alias.err" ||
      fail "$cb: '$line': $(cat "$DIR/alias.err")"
    grep -q 'deprecated' "$DIR/alias.err" || fail "$cb: '$line' printed no deprecation note"
    [ "$(grep -vc 'deprecated' "$DIR/alias.err")" = 0 ] || fail "$cb: '$line': $(cat "$DIR/alias.err")"
    # The same query run directly, in the alias's format (kv or the table).
    set -- $line
    local alias=$4
    shift 4
    local name qfile format args params='{}' i=0
    name=$(yq_get "$work/omnigraph.yaml" "$alias" name)
    qfile=$(yq_get "$work/omnigraph.yaml" "$alias" query)
    format=$(yq_get "$work/omnigraph.yaml" "$alias" format)
    args=$(yq_get "$work/omnigraph.yaml" "$alias" args)
    for value in "$@"; do
      params=$(jq -c --arg k "$(echo "$args" | jq -r ".[$i]")" --arg v "$value" '. + {($k): $v}' \
        <<<"$params")
      i=$((i + 1))
    done
    "$BIN" query "$name" --query "$work/queries/$qfile" --params "$params" \
      --format "${format:-table}" "$G" >"$DIR/direct.out" || fail "$cb: direct $name"
    cmp -s "$DIR/alias.out" "$DIR/direct.out" ||
      fail "$cb: '$line' differs from direct: $(diff "$DIR/alias.out" "$DIR/direct.out")"
    steps=$((steps + 1))
  done < <(grep -E '^omnigraph query --alias' "$COOK/$cb/README.md" | sed 's/ *#.*//')
  [ "$steps" -ge 2 ] || fail "$cb: only $steps alias steps"
  echo "$cb: $steps README alias steps agree with direct runs"
  kill "$SPID"
  wait "$SPID" 2>/dev/null
  SPID=
}

# An alias's key (name, query, format, or args as JSON) from omnigraph.yaml.
yq_get() {
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))["aliases"][sys.argv[2]]
v = spec.get(sys.argv[3], "")
print(json.dumps(v) if isinstance(v, list) else v)
PY
}

run_cookbook industry-intel spike \
  pattern_signals '{"slug":"pat-sovereign-ai"}' \
  get_signal "{\"slug\":\"$(jq -r 'select(.type=="Signal") | .data.slug' \
    "$COOK/industry-intel/seed.jsonl" | head -1)\"}"
run_cookbook second-brain brain \
  person_recent_events '{"slug":"per-theo"}' \
  habit_principle '{"slug":"hab-morning-pages"}' \
  notes_by_kind '{"kind":"reflection"}' \
  area_projects '{"slug":"area-family"}'
echo "PASS"
