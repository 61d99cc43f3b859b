#!/usr/bin/env bash
# The MCP endpoint through the official TypeScript SDK client (tests/mcp/sdk_client.mjs), on the
# shared cookbooks: each cookbook's schema and seed in a local graph served by omnigraph-server
# with the cookbook's queries/ as its stored queries and two bearer tokens (admin: every grant;
# reader: read only). Every stored read query the client can supply parameters for is called as
# an MCP tool, and its rows must equal the same query run directly by the CLI on the graph
# (`omnigraph query NAME --query FILE --params P --format json`) and through HTTP
# (POST /graphs/ID/queries/NAME). Starts servers: label integration.
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
cp "$(dirname "$0")/sdk_client.mjs" "$DIR/"
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

run_cookbook() {  # COOKBOOK GRAPH_ID
  local cb=$1 id=$2 G=$DIR/$1.omni
  "$BIN" --quiet init --schema "$COOK/$cb/schema.pg" "$G" >/dev/null || fail "$cb: init"
  "$BIN" --quiet load --data "$COOK/$cb/seed.jsonl" --mode overwrite "$G" >/dev/null ||
    fail "$cb: load"
  echo '{"grants":{"admin":["read","change","invoke_query"]}}' >"$DIR/grants.json"
  OMNIGRAPH_SERVER_BEARER_TOKENS_JSON='{"admin":"admin-token","reader":"reader-token"}' \
    launch_server "$SERVER" "$G" --graph-id "$id" --queries "$COOK/$cb/queries" \
    --policy "$DIR/grants.json"
  curl -sf -H 'Authorization: Bearer admin-token' "$URL/graphs/$id/queries" >"$DIR/catalog.json" ||
    fail "$cb: catalog"
  "$NODE" "$DIR/sdk_client.mjs" "$URL/graphs/$id/mcp" admin-token reader-token \
    "$DIR/catalog.json" "$COOK/$cb/seed.jsonl" "$DIR/calls.jsonl" ||
    fail "$cb: the SDK client failed: $(tail -5 "$DIR/server.err")"
  local compared=0 name params file
  while IFS= read -r line; do
    name=$(jq -r .name <<<"$line")
    params=$(jq -c .params <<<"$line")
    jq -S .rows <<<"$line" >"$DIR/mcp.json"
    file=$(grep -l "^query $name(" "$COOK/$cb"/queries/*.gq | head -1)
    "$BIN" query "$name" --query "$file" --params "$params" --format json "$G" |
      jq -S .rows >"$DIR/direct.json" || fail "$cb: direct $name"
    curl -sf -X POST "$URL/graphs/$id/queries/$name" -H 'Authorization: Bearer admin-token' \
      -H 'content-type: application/json' -d "{\"params\":$params}" |
      jq -S .rows >"$DIR/http.json" || fail "$cb: HTTP $name"
    cmp -s "$DIR/mcp.json" "$DIR/direct.json" ||
      fail "$cb: $name $params: MCP differs from direct: $(diff "$DIR/mcp.json" "$DIR/direct.json")"
    cmp -s "$DIR/http.json" "$DIR/direct.json" || fail "$cb: $name: HTTP differs from direct"
    compared=$((compared + 1))
  done <"$DIR/calls.jsonl"
  [ "$compared" -ge 10 ] || fail "$cb: only $compared stored queries compared"
  echo "$cb: $compared stored queries agree (MCP tool via the SDK, HTTP, direct)"
  kill "$SPID"
  wait "$SPID" 2>/dev/null
  SPID=
}

run_cookbook industry-intel spike
run_cookbook second-brain brain
echo "mcp sdk: ok"
