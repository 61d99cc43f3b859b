#!/usr/bin/env bash
# The review page end to end in headless Chromium (tests/ui/review_test.mjs): a graph seeded
# with people and a company, three agents' branches — agent-clean (adds Cy, hires Ada; merges
# cleanly), agent-conflict (ages Ada, which main ages differently), agent-more (adds Dee) —
# served by omnigraph-server on loopback with two tokens: alice may merge and delete (every
# grant), bob may only read. Starts a server: label integration.
# Usage: review.sh OMNIGRAPH OMNIGRAPH_SERVER NPM_PREFIX SCREENSHOT_DIR
set -u
BIN=$(realpath "$1")
SERVER=$2
NPM=$3
SHOTS=$4
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
NODE=$NPM/node_modules/.bin/node
CHROMIUM=${OMNIGRAPH_CHROMIUM:-/usr/bin/chromium}
[ -x "$NODE" ] && [ -d "$NPM/node_modules/puppeteer-core" ] ||
  fail "no puppeteer-core (or node 22) in $NPM: run scripts/install-deps.sh"
[ -x "$CHROMIUM" ] || fail "no chromium at $CHROMIUM: run scripts/install-deps.sh"
unset OMNIGRAPH_BEARER_TOKEN
# ESM resolves packages from the script's folder: run a copy beside a link to node_modules.
ln -s "$(realpath "$NPM/node_modules")" "$DIR/node_modules"
cp "$(dirname "$0")/review_test.mjs" "$DIR/"
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/../cli/lib.sh"

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32?  role: String? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
cat >"$DIR/seed.jsonl" <<'JSONL'
{"type":"Person","data":{"name":"Ada","age":36,"role":"engineer"}}
{"type":"Person","data":{"name":"Bob","age":41,"role":"analyst"}}
{"type":"Company","data":{"name":"Acme"}}
JSONL
G=$DIR/g
og() { "$BIN" --quiet "$@" "$G" >"$DIR/og.out" 2>&1 || fail "omnigraph $*: $(cat "$DIR/og.out")"; }
AGE='query age($n: String, $a: I32) { update Person set { age: $a } where name = $n }'
ADD='query add($n: String, $a: I32) { insert Person { name: $n, age: $a } }'
HIRE='query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }'
og --as seed init --schema "$DIR/s.pg"
og --as seed load --data "$DIR/seed.jsonl" --mode append
og --as agent-1 branch create agent-clean
og --as agent-1 mutate -e "$ADD" --params '{"n":"Cy","a":30}' --branch agent-clean
og --as agent-1 mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}' --branch agent-clean
og --as agent-2 branch create agent-conflict
og --as agent-2 mutate -e "$AGE" --params '{"n":"Ada","a":40}' --branch agent-conflict
og --as agent-3 branch create agent-more
og --as agent-3 mutate -e "$ADD" --params '{"n":"Dee","a":22}' --branch agent-more
og --as seed mutate -e "$AGE" --params '{"n":"Ada","a":37}'

ALICE=alice-review-token
BOB=bob-review-token
start_server "$SERVER" "$G" "{\"alice\":\"$ALICE\",\"bob\":\"$BOB\"}" alice
mkdir -p "$SHOTS"
OG_URL=$URL OG_ALICE=$ALICE OG_BOB=$BOB OG_CHROMIUM=$CHROMIUM OG_SHOTS=$(realpath "$SHOTS") \
  "$NODE" "$DIR/review_test.mjs" || fail "the browser test failed (server log: $(tail -5 "$DIR/server.err"))"
echo OK
