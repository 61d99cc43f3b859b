#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, server scenarios) against
# omnigraph-server's /mcp, on a shared cookbook graph in single-graph mode, unauthenticated (the
# suite sends no token; its DNS-rebinding scenario is for such a loopback server). The scenarios
# in conformance-baseline.yml need the suite's own fixture server's tools and are expected to
# fail (docs/design/mcp.md "Conformance"); any other failure — or a baseline scenario that starts
# passing — fails this test. Starts a server: label integration.
# Usage: conformance.sh OMNIGRAPH OMNIGRAPH_SERVER COOKBOOKS NPM_PREFIX
set -u
BIN=$(realpath "$1")
SERVER=$2
COOK=$3
NPM=$(realpath "$4")
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
NODE=$NPM/node_modules/.bin/node
SUITE=$NPM/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$NODE" ] && [ -f "$SUITE" ] || fail "no conformance suite in $NPM: run scripts/install-deps.sh"
# shellcheck source=tests/cli/lib.sh
. "$HERE/../cli/lib.sh"

G=$DIR/g.omni
"$BIN" --quiet init --schema "$COOK/industry-intel/schema.pg" "$G" >/dev/null || fail "init"
"$BIN" --quiet load --data "$COOK/industry-intel/seed.jsonl" --mode overwrite "$G" >/dev/null ||
  fail "load"
OMNIGRAPH_UNAUTHENTICATED=1 launch_server "$SERVER" "$G" --graph-id spike \
  --queries "$COOK/industry-intel/queries"
# The suite writes its results/ into the working directory.
cd "$DIR" || fail "cd"
"$NODE" "$SUITE" server --url "$URL/mcp" --expected-failures "$HERE/conformance-baseline.yml" \
  >"$DIR/suite.out" 2>&1
rc=$?
sed -n '/=== SUMMARY ===/,$p' "$DIR/suite.out"
[ "$rc" = 0 ] || fail "the conformance suite exited $rc: $(grep -iE 'unexpected|stale' "$DIR/suite.out")"
passed=$(grep -c '^✓' "$DIR/suite.out")
[ "$passed" -ge 7 ] || fail "only $passed scenarios passed"
echo "mcp conformance: ok ($passed scenarios pass, the baseline's fail as expected)"
