#!/usr/bin/env bash
# The MCP endpoint through the official TypeScript SDK client (tests/mcp/sdk_client.mjs), on the
# shared cookbooks: each cookbook's schema and seed in a local graph served by omnigraph-server
# with the cookbook's queries/ as its stored queries and two bearer tokens (admin: every grant;
# reader: read only). Every stored query of the catalog is called as an MCP tool, none skipped
# (the count must equal the catalog's):
#
# - Reads (industry-intel 42, second-brain 74): parameter values derived from the schema, the
#   query source and the seed (tests/mcp/params.mjs), tried until a call returns rows. Each
#   kept call's rows must equal the same query run directly by the CLI on the graph
#   (`omnigraph query NAME --query FILE --params P --format json`) and through HTTP
#   (POST /graphs/ID/queries/NAME). Most must return rows, at least 3 in 4 of each catalog's
#   reads (34 of 42 and 73 of 74 do; the others read edge types the seed has no rows of, or
#   find no orphan signal). A cookbook whose queries read Chunk gets 12 Chunk rows made from the
#   seed's `brief` texts, their vectors filled by `omnigraph embed` before the load, and query
#   texts embedded at query time by the server and the CLI alike, all with the deterministic
#   mock provider (OMNIGRAPH_EMBEDDINGS_MOCK). A read that
#   cannot run on its cookbook with any arguments is listed in tests/mcp/expected-errors.json
#   (industry-intel's hybrid_chunks: bm25 over Chunk.text, which the schema does not @index);
#   its MCP tool error must equal the HTTP route's error and status and the CLI's message.
# - Mutations (industry-intel 31, second-brain 54): the served graph and a byte copy of it taken
#   before the server starts. Every mutation is called as an MCP tool on the served graph, in
#   catalog order; then, with that server stopped, run directly on the copy in the same order
#   (`omnigraph --as admin mutate NAME --query FILE --params P --json`), so each starts from the
#   same state. Their envelopes must agree (but for the commit ids and times, minted per write),
#   and so must the state after each: both graphs' exports (POST /export {snapshot}, the copy
#   served by a plain server afterwards) at the commit each run made, sorted, without the ids of
#   the edges the mutations inserted (ULIDs minted at the insert); each must change the state.
#   A read-only actor's call of a stored mutation is refused as an unknown tool, and the
#   graph's head does not move.
# Starts servers: label integration.
# Usage: sdk.sh OMNIGRAPH OMNIGRAPH_SERVER COOKBOOKS NPM_PREFIX
set -u
BIN=$(realpath "$1")
SERVER=$2
COOK=$3
NPM=$4
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
NODE=$NPM/node_modules/.bin/node
[ -x "$NODE" ] && [ -d "$NPM/node_modules/@modelcontextprotocol/sdk" ] ||
  fail "no MCP SDK in $NPM: run scripts/install-deps.sh"
unset OMNIGRAPH_BEARER_TOKEN
# ESM resolves packages from the script's folder: run a copy beside a link to the SDK.
ln -s "$(realpath "$NPM/node_modules")" "$DIR/node_modules"
cp "$(dirname "$0")"/{sdk_client,params}.mjs "$DIR/"
EXPECTED=$(realpath "$(dirname "$0")/expected-errors.json")
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# The embedding provider of the server and every CLI run below: the mock, whose vectors are a
# function of the text, at the cookbooks' @embed dimension.
start_embeddings() {  # DIM
  EMBED_DIM=$1
  unset OMNIGRAPH_EMBED_PROVIDER OMNIGRAPH_EMBED_BASE_URL OMNIGRAPH_EMBED_MODEL
  export OMNIGRAPH_EMBEDDINGS_MOCK=1
}

# An export, sorted, keys sorted, with the ids of edges the seed did not have left out (an
# inserted edge's id is a ULID minted at the insert, so the two graphs' differ by construction).
normalize() {
  jq -c -S --slurpfile seed "$DIR/seed-edge-ids.json" \
    'if .edge and ($seed[0][.data.id] | not) then del(.data.id) else . end' | sort
}

# The cookbook's data (seed, plus Chunk rows when a query reads Chunk) in graph $1.
load_graph() {  # COOKBOOK GRAPH
  local cb=$1 g=$2
  cp "$COOK/$cb/seed.jsonl" "$DIR/data.jsonl"
  if grep -q 'Chunk' "$COOK/$cb"/queries/*.gq; then
    jq -c -s '[.[] | select(.type != null and (.data.brief | type) == "string")] | .[:12]
      | to_entries[] | {type: "Chunk", data: {text: .value.data.brief, chunk_index: .key,
                                                createdAt: "2026-01-01T00:00:00Z"}}' \
      "$COOK/$cb/seed.jsonl" >"$DIR/chunks.raw.jsonl"
    echo "{\"dimension\":$EMBED_DIM,\"types\":{\"Chunk\":{\"target\":\"embedding\",\"fields\":[\"text\"]}}}" \
      >"$DIR/embed-spec.json"
    "$BIN" embed --input "$DIR/chunks.raw.jsonl" --output "$DIR/chunks.jsonl" \
      --spec "$DIR/embed-spec.json" --json >"$DIR/embed.json" || fail "$cb: embed"
    [ "$(jq .embedded_records "$DIR/embed.json")" = 12 ] || fail "$cb: embed: $(cat "$DIR/embed.json")"
    cat "$DIR/chunks.jsonl" >>"$DIR/data.jsonl"
  fi
  "$BIN" --quiet init --schema "$COOK/$cb/schema.pg" "$g" >/dev/null || fail "$cb: init"
  "$BIN" --quiet load --data "$DIR/data.jsonl" --mode overwrite "$g" >/dev/null || fail "$cb: load"
}

file_of() { grep -l "^query $2(" "$COOK/$1"/queries/*.gq | head -1; }

# Every catalog entry of a kind was called and compared once: the names and the count.
all_called() {  # COOKBOOK CALLS.jsonl CATALOG_FILTER COMPARED WHAT
  local cb=$1 calls=$2 filter=$3 compared=$4 what=$5 n
  n=$(jq "[.queries[] | $filter] | length" "$DIR/catalog.json")
  [ "$compared" -eq "$n" ] || fail "$cb: $compared of the catalog's $n stored $what compared"
  diff <(jq -r ".queries[] | $filter | .name" "$DIR/catalog.json" | sort) \
    <(jq -r .name "$calls" | sort) >"$DIR/names.diff" ||
    fail "$cb: the stored $what called are not the catalog's: $(cat "$DIR/names.diff")"
}

# A read that fails on the cookbook (expected-errors.json): the MCP tool error is the HTTP
# route's error and status, and the CLI's direct run fails with the same message.
compare_error() {  # COOKBOOK GRAPH_ID GRAPH NAME PARAMS ERROR_JSON
  local cb=$1 id=$2 g=$3 name=$4 params=$5 err=$6 status message
  status=$(curl -s -o "$DIR/http.json" -w '%{http_code}' -X POST "$URL/graphs/$id/queries/$name" \
    -H 'Authorization: Bearer admin-token' -H 'content-type: application/json' \
    -d "{\"params\":$params}")
  [ "$status" = "$(jq .http_status <<<"$err")" ] || fail "$cb: $name: HTTP $status, MCP $err"
  jq -S . "$DIR/http.json" >"$DIR/http.sorted.json"
  jq -S 'del(.http_status)' <<<"$err" >"$DIR/mcp.json"
  cmp -s "$DIR/mcp.json" "$DIR/http.sorted.json" || fail "$cb: $name: the MCP error differs" \
    "from HTTP's: $(diff "$DIR/mcp.json" "$DIR/http.sorted.json")"
  message=$(jq -r .error <<<"$err")
  "$BIN" query "$name" --query "$(file_of "$cb" "$name")" --params "$params" --format json "$g" \
    >/dev/null 2>"$DIR/direct.err" && fail "$cb: $name ran directly but failed through MCP"
  grep -qF -- "$message" "$DIR/direct.err" ||
    fail "$cb: $name: direct error $(cat "$DIR/direct.err"), MCP's $message"
}

compare_reads() {  # COOKBOOK GRAPH_ID GRAPH: the reads' calls against direct and HTTP runs
  local cb=$1 id=$2 g=$3 calls=$DIR/calls.jsonl rows=0 errors=0 i name mcp direct http empty=()
  local -a names params results
  mapfile -t names < <(jq -r .name "$calls")
  mapfile -t params < <(jq -c .params "$calls")
  mapfile -t results < <(jq -c -S 'if has("error") then {error} else .rows end' "$calls")
  for i in "${!names[@]}"; do
    name=${names[$i]}
    mcp=${results[$i]}
    if [ "${mcp:0:9}" = '{"error":' ]; then
      compare_error "$cb" "$id" "$g" "$name" "${params[$i]}" "$(jq -c .error <<<"$mcp")"
      errors=$((errors + 1))
      continue
    fi
    direct=$("$BIN" query "$name" --query "$(file_of "$cb" "$name")" --params "${params[$i]}" \
      --format json "$g" | jq -c -S .rows) || fail "$cb: direct $name"
    http=$(curl -sf -X POST "$URL/graphs/$id/queries/$name" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"params\":${params[$i]}}" | jq -c -S .rows) ||
      fail "$cb: HTTP $name"
    [ "$mcp" = "$direct" ] || fail "$cb: $name ${params[$i]}: MCP differs from direct:" \
      "$(diff <(jq . <<<"$mcp") <(jq . <<<"$direct"))"
    [ "$http" = "$direct" ] || fail "$cb: $name: HTTP differs from direct"
    if [ "$mcp" != '[]' ]; then rows=$((rows + 1)); else empty+=("$name"); fi
  done
  local n=${#names[@]}
  all_called "$cb" "$calls" 'select(.mutation | not)' "$n" reads
  [ $((rows * 4)) -ge $((n * 3)) ] ||
    fail "$cb: only $rows of $n stored reads returned rows; none: ${empty[*]}"
  [ "$errors" -eq "$(jq length "$DIR/expected.json")" ] ||
    fail "$cb: $errors stored reads failed as tests/mcp/expected-errors.json says"
  echo "$cb: $n stored reads agree (MCP tool via the SDK, HTTP, direct):" \
    "$rows return rows, $errors the same error; no rows: ${empty[*]}"
}

# The served graph's state after each MCP mutation: its export at the commit the call made.
export_served() {  # GRAPH_ID
  local id=$1 k commit
  local -a commits
  mapfile -t commits < <(jq -r .result.commit.graph_commit_id "$DIR/mutations.jsonl")
  for k in "${!commits[@]}"; do
    commit=${commits[$k]}
    curl -sf -X POST "$URL/graphs/$id/export" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"snapshot\":\"$commit\"}" |
      normalize >"$DIR/served.$k.ndjson" || fail "HTTP export at $commit"
  done
}

# The same mutations run directly on the copy, in the same order: the envelopes must agree but
# for the commit ids and times. Leaves the copy's commit per mutation in $DIR/direct.commits.
mutate_direct() {  # COOKBOOK LOCAL_COPY
  local cb=$1 local=$2 k name
  local strip='del(.commit.graph_commit_id, .commit.parent_commit_id, .commit.created_at)'
  local -a names params mcp direct
  mapfile -t names < <(jq -r .name "$DIR/mutations.jsonl")
  mapfile -t params < <(jq -c .params "$DIR/mutations.jsonl")
  for k in "${!names[@]}"; do
    "$BIN" --quiet --as admin mutate "${names[$k]}" --query "$(file_of "$cb" "${names[$k]}")" \
      --params "${params[$k]}" --json "$local" >"$DIR/direct.$k.json" ||
      fail "$cb: direct ${names[$k]}"
    printf '%s\n' "$DIR/direct.$k.json" >>"$DIR/direct.files"
  done
  mapfile -t mcp < <(jq -c -S ".result | $strip" "$DIR/mutations.jsonl")
  mapfile -t direct < <(xargs jq -c -S "$strip" <"$DIR/direct.files")
  xargs jq -r .commit.graph_commit_id <"$DIR/direct.files" >"$DIR/direct.commits"
  rm "$DIR/direct.files"
  for k in "${!names[@]}"; do
    name=${names[$k]}
    [ "${mcp[$k]}" = "${direct[$k]}" ] || fail "$cb: $name ${params[$k]}: the MCP envelope" \
      "differs from direct: $(diff <(jq . <<<"${mcp[$k]}") <(jq . <<<"${direct[$k]}"))"
  done
}

# The copy's state after each direct mutation (served by a plain server) against the served
# graph's after the MCP call; each must differ from the state before it.
compare_states() {  # COOKBOOK GRAPH_ID
  local cb=$1 id=$2 k=0 commit prev=$DIR/seed.norm.ndjson name
  local -a names
  mapfile -t names < <(jq -r .name "$DIR/mutations.jsonl")
  while IFS= read -r commit; do
    name=${names[$k]}
    curl -sf -X POST "$URL/graphs/$id/export" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"snapshot\":\"$commit\"}" |
      normalize >"$DIR/direct.ndjson" || fail "$cb: HTTP export of the copy at $commit"
    cmp -s "$DIR/served.$k.ndjson" "$DIR/direct.ndjson" || fail "$cb: after $name the graphs" \
      "differ: $(diff "$DIR/served.$k.ndjson" "$DIR/direct.ndjson" | head -5)"
    cmp -s "$prev" "$DIR/direct.ndjson" && fail "$cb: $name changed nothing"
    prev=$DIR/served.$k.ndjson
    k=$((k + 1))
  done <"$DIR/direct.commits"
  all_called "$cb" "$DIR/mutations.jsonl" 'select(.mutation)' "$k" mutations
  echo "$cb: $k stored mutations agree (MCP tool via the SDK vs direct: envelope, state after each)"
}

serve() {  # GRAPH GRAPH_ID [ARG...]: admin (every grant) and reader (read only)
  local g=$1 id=$2
  shift 2
  echo '{"grants":{"admin":["read","change","invoke_query","export"]}}' >"$DIR/grants.json"
  OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"admin":"admin-token","reader":"reader-token"}' \
    launch_server "$SERVER" "$g" --graph-id "$id" --policy "$DIR/grants.json" "$@"
}

stop_server() {
  kill "$SPID"
  wait "$SPID" 2>/dev/null
  SPID=
}

client() {  # MODE COOKBOOK GRAPH_ID OUT
  "$NODE" "$DIR/sdk_client.mjs" "$1" "$URL/graphs/$3/mcp" admin-token reader-token \
    "$COOK/$2" "$DIR/catalog.json" "$DIR/data.jsonl" "$DIR/expected.json" "$4" ||
    fail "$2: the SDK client ($1) failed: $(tail -5 "$DIR/server.err")"
}

run_cookbook() {  # COOKBOOK GRAPH_ID
  local cb=$1 id=$2 G=$DIR/$1.omni L=$DIR/$1.local.omni
  load_graph "$cb" "$G"
  cp -a "$G" "$L"
  "$BIN" export "$L" >"$DIR/seed.ndjson" || fail "$cb: export"
  jq -s 'map(select(.edge) | {key: .data.id, value: true}) | from_entries' "$DIR/seed.ndjson" \
    >"$DIR/seed-edge-ids.json"
  normalize <"$DIR/seed.ndjson" >"$DIR/seed.norm.ndjson"
  jq --arg cb "$cb" '.[$cb] // {}' "$EXPECTED" >"$DIR/expected.json"
  serve "$G" "$id" --queries "$COOK/$cb/queries"
  curl -sf -H 'Authorization: Bearer admin-token' "$URL/graphs/$id/queries" >"$DIR/catalog.json" ||
    fail "$cb: catalog"
  client reads "$cb" "$id" "$DIR/calls.jsonl"
  compare_reads "$cb" "$id" "$G"  # before any mutation, on the graph as loaded
  client mutations "$cb" "$id" "$DIR/mutations.jsonl"
  export_served "$id"
  stop_server
  mutate_direct "$cb" "$L"
  serve "$L" "$id"
  compare_states "$cb" "$id"
  stop_server
}

grep -ho 'Vector([0-9]*) @embed' "$COOK"/*/schema.pg | sort -u | wc -l | grep -qx 1 ||
  fail "the cookbooks' @embed vectors are not all of one dimension"
start_embeddings "$(grep -ho 'Vector([0-9]*) @embed' "$COOK"/*/schema.pg | head -1 | tr -dc 0-9)"
run_cookbook industry-intel spike
run_cookbook second-brain brain
echo "mcp sdk: ok"
