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
#   seed's `brief` texts, embedded at load and at query time, by the server and the CLI alike,
#   through tests/mcp/embed_stub.mjs, a deterministic local embeddings endpoint. A read that
#   cannot run on its cookbook with any arguments is listed in tests/mcp/expected-errors.json
#   (industry-intel's hybrid_chunks: bm25 over Chunk.text, which the schema does not @index);
#   its MCP tool error must equal the HTTP route's error and status and the CLI's message.
# - Mutations (industry-intel 31, second-brain 54): the served graph and a byte copy of it taken
#   before the server starts; each mutation is called as an MCP tool on the served graph and run
#   directly on the copy (`omnigraph --as admin mutate NAME --query FILE --params P --json`), in
#   catalog order, so each starts from the same state. Their envelopes must agree (but for the
#   commit ids and times, minted per write), and so must the state after each: the served
#   graph's export at the commit the MCP call made (POST /export {snapshot}) and the copy's
#   `omnigraph export`, sorted, without the ids of the edges the mutations inserted (ULIDs minted
#   at the insert); each must change the state. A read-only actor's call of a stored mutation is
#   refused as an unknown tool, and the graph's head does not move.
# Starts servers: label integration.
# Usage: sdk.sh OMNIGRAPH OMNIGRAPH_SERVER COOKBOOKS NPM_PREFIX
set -u
BIN=$(realpath "$1")
SERVER=$2
COOK=$3
NPM=$4
DIR=$(mktemp -d)
SPID=
EPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; [ -n "$EPID" ] && kill "$EPID" 2>/dev/null
      wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
NODE=$NPM/node_modules/.bin/node
[ -x "$NODE" ] && [ -d "$NPM/node_modules/@modelcontextprotocol/sdk" ] ||
  fail "no MCP SDK in $NPM: run scripts/install-deps.sh"
unset OMNIGRAPH_BEARER_TOKEN
# ESM resolves packages from the script's folder: run a copy beside a link to the SDK.
ln -s "$(realpath "$NPM/node_modules")" "$DIR/node_modules"
cp "$(dirname "$0")"/{sdk_client,params,embed_stub}.mjs "$DIR/"
EXPECTED=$(realpath "$(dirname "$0")/expected-errors.json")
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

# The embeddings endpoint for the server and every CLI run below.
start_embeddings() {  # DIM
  "$NODE" "$DIR/embed_stub.mjs" "$1" "$DIR/embed.port" 2>"$DIR/embed.err" &
  EPID=$!
  for _ in $(seq 1 100); do [ -s "$DIR/embed.port" ] && break; sleep 0.1; done
  [ -s "$DIR/embed.port" ] || fail "the embeddings stub did not start: $(cat "$DIR/embed.err")"
  OMNIGRAPH_EMBED_BASE_URL="http://127.0.0.1:$(cat "$DIR/embed.port")"
  export OMNIGRAPH_EMBED_BASE_URL OMNIGRAPH_EMBED_MODEL=stub
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
      "$COOK/$cb/seed.jsonl" >>"$DIR/data.jsonl"
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
  local cb=$1 id=$2 g=$3 compared=0 rows=0 errors=0 name params n empty=()
  while IFS= read -r line; do
    name=$(jq -r .name <<<"$line")
    params=$(jq -c .params <<<"$line")
    if jq -e 'has("error")' <<<"$line" >/dev/null; then
      compare_error "$cb" "$id" "$g" "$name" "$params" "$(jq -c .error <<<"$line")"
      errors=$((errors + 1))
      compared=$((compared + 1))
      continue
    fi
    jq -S .rows <<<"$line" >"$DIR/mcp.json"
    "$BIN" query "$name" --query "$(file_of "$cb" "$name")" --params "$params" --format json "$g" |
      jq -S .rows >"$DIR/direct.json" || fail "$cb: direct $name"
    curl -sf -X POST "$URL/graphs/$id/queries/$name" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"params\":$params}" |
      jq -S .rows >"$DIR/http.json" || fail "$cb: HTTP $name"
    cmp -s "$DIR/mcp.json" "$DIR/direct.json" ||
      fail "$cb: $name $params: MCP differs from direct: $(diff "$DIR/mcp.json" "$DIR/direct.json")"
    cmp -s "$DIR/http.json" "$DIR/direct.json" || fail "$cb: $name: HTTP differs from direct"
    n=$(jq length "$DIR/mcp.json")
    if [ "$n" -gt 0 ]; then rows=$((rows + 1)); else empty+=("$name"); fi
    compared=$((compared + 1))
  done <"$DIR/calls.jsonl"
  n=$(jq '[.queries[] | select(.mutation | not)] | length' "$DIR/catalog.json")
  all_called "$cb" "$DIR/calls.jsonl" 'select(.mutation | not)' "$compared" reads
  [ $((rows * 4)) -ge $((n * 3)) ] ||
    fail "$cb: only $rows of $n stored reads returned rows; none: ${empty[*]}"
  [ "$errors" -eq "$(jq --arg cb "$cb" '.[$cb] // {} | length' "$EXPECTED")" ] ||
    fail "$cb: $errors stored reads failed as tests/mcp/expected-errors.json says"
  echo "$cb: $compared stored reads agree (MCP tool via the SDK, HTTP, direct):" \
    "$rows return rows, $errors the same error; no rows: ${empty[*]}"
}

compare_mutations() {  # COOKBOOK GRAPH_ID LOCAL_COPY
  local cb=$1 id=$2 local=$3 compared=0 name params commit
  local strip='del(.commit.graph_commit_id, .commit.parent_commit_id, .commit.created_at)'
  "$BIN" export "$local" >"$DIR/seed.ndjson" || fail "$cb: export"
  jq -s 'map(select(.edge) | {key: .data.id, value: true}) | from_entries' "$DIR/seed.ndjson" \
    >"$DIR/seed-edge-ids.json"
  normalize <"$DIR/seed.ndjson" >"$DIR/prev.ndjson"
  while IFS= read -r line; do
    name=$(jq -r .name <<<"$line")
    params=$(jq -c .params <<<"$line")
    commit=$(jq -r .result.commit.graph_commit_id <<<"$line")
    jq -S ".result | $strip" <<<"$line" >"$DIR/mcp.json"
    "$BIN" --quiet --as admin mutate "$name" --query "$(file_of "$cb" "$name")" --params "$params" --json \
      "$local" | jq -S "$strip" >"$DIR/direct.json" || fail "$cb: direct $name"
    cmp -s "$DIR/mcp.json" "$DIR/direct.json" ||
      fail "$cb: $name $params: MCP differs from direct: $(diff "$DIR/mcp.json" "$DIR/direct.json")"
    "$BIN" export "$local" | normalize >"$DIR/direct.ndjson" || fail "$cb: export after $name"
    curl -sf -X POST "$URL/graphs/$id/export" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"snapshot\":\"$commit\"}" |
      normalize >"$DIR/served.ndjson" || fail "$cb: HTTP export at $commit"
    cmp -s "$DIR/served.ndjson" "$DIR/direct.ndjson" || fail "$cb: after $name $params the" \
      "graphs differ: $(diff "$DIR/served.ndjson" "$DIR/direct.ndjson" | head -5)"
    cmp -s "$DIR/prev.ndjson" "$DIR/direct.ndjson" && fail "$cb: $name changed nothing"
    mv "$DIR/direct.ndjson" "$DIR/prev.ndjson"
    compared=$((compared + 1))
  done <"$DIR/mutations.jsonl"
  all_called "$cb" "$DIR/mutations.jsonl" 'select(.mutation)' "$compared" mutations
  echo "$cb: $compared stored mutations agree (MCP tool via the SDK vs direct: envelope, state)"
}

run_cookbook() {  # COOKBOOK GRAPH_ID
  local cb=$1 id=$2 G=$DIR/$1.omni L=$DIR/$1.local.omni
  load_graph "$cb" "$G"
  cp -a "$G" "$L"
  jq --arg cb "$cb" '.[$cb] // {}' "$EXPECTED" >"$DIR/expected.json"
  echo '{"grants":{"admin":["read","change","invoke_query","export"]}}' >"$DIR/grants.json"
  OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"admin":"admin-token","reader":"reader-token"}' \
    launch_server "$SERVER" "$G" --graph-id "$id" --queries "$COOK/$cb/queries" \
    --policy "$DIR/grants.json"
  curl -sf -H 'Authorization: Bearer admin-token' "$URL/graphs/$id/queries" >"$DIR/catalog.json" ||
    fail "$cb: catalog"
  local mode
  for mode in reads mutations; do
    local out=$DIR/calls.jsonl
    [ "$mode" = mutations ] && out=$DIR/mutations.jsonl
    "$NODE" "$DIR/sdk_client.mjs" "$mode" "$URL/graphs/$id/mcp" admin-token reader-token \
      "$COOK/$cb" "$DIR/catalog.json" "$DIR/data.jsonl" "$DIR/expected.json" "$out" ||
      fail "$cb: the SDK client ($mode) failed: $(tail -5 "$DIR/server.err")"
    # The reads are compared before any mutation, on the graph as loaded.
    [ "$mode" = reads ] && compare_reads "$cb" "$id" "$G"
  done
  compare_mutations "$cb" "$id" "$L"
  kill "$SPID"
  wait "$SPID" 2>/dev/null
  SPID=
}

grep -ho 'Vector([0-9]*) @embed' "$COOK"/*/schema.pg | sort -u | wc -l | grep -qx 1 ||
  fail "the cookbooks' @embed vectors are not all of one dimension"
start_embeddings "$(grep -ho 'Vector([0-9]*) @embed' "$COOK"/*/schema.pg | head -1 | tr -dc 0-9)"
run_cookbook industry-intel spike
run_cookbook second-brain brain
echo "mcp sdk: ok"
