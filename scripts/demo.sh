#!/usr/bin/env bash
# The README's first command: installs what is needed, builds the release preset, then runs the
# commit-record demo and the quickstart (init, load, queries, a mutation, a branch merged back,
# history) with the omnigraph command on a local graph under the given folder (default
# /tmp/omnigraph-demo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release --target omnigraph omnigraph-demo
DIR=${1:-/tmp/omnigraph-demo}
BIN=./build/release/bin

echo "== The commit protocol: records, a cold read, time travel (object operations counted)"
"$BIN/omnigraph-demo" "$DIR/records"

echo
echo "== The quickstart: a research group's graph (examples/quickstart)"
Q=examples/quickstart
G=$DIR/quickstart
og() { echo "\$ omnigraph $*" | sed "s|$G|\$GRAPH|g"; "$BIN/omnigraph" "$@"; echo; }
og lint --query "$Q/queries.gq" --schema "$Q/schema.pg"
og lint --query "$Q/mutations.gq" --schema "$Q/schema.pg"
if [ ! -e "$G/_omnigraph.json" ]; then
  og init --schema "$Q/schema.pg" "$G"
fi
og load --data "$Q/seed.jsonl" --mode merge "$G"
og query team --query "$Q/queries.gq" --params '{"code":"og"}' "$G"
og query papers_by_year --query "$Q/queries.gq" "$G"
og query mentees_within_two --query "$Q/queries.gq" --params '{"handle":"ada"}' "$G"
og query idle_people --query "$Q/queries.gq" "$G"
og mutate join --query "$Q/mutations.gq" \
  --params '{"handle":"ken","name":"Ken Thompson","role":"engineer","project":"sim"}' "$G"
og query team --query "$Q/queries.gq" --params '{"code":"sim"}' --format csv "$G"
echo "== A branch: change it, change main, merge it back (one commit with two parents)"
"$BIN/omnigraph" branch delete review "$G" >/dev/null 2>&1 || true
og branch create review "$G"
og mutate join --query "$Q/mutations.gq" --branch review \
  --params '{"handle":"dmr","name":"Dennis Ritchie","role":"engineer","project":"sim"}' "$G"
og mutate promote --query "$Q/mutations.gq" --params '{"handle":"ken","role":"lead"}' "$G"
og branch merge review --delete-branch "$G"
og query team --query "$Q/queries.gq" --params '{"code":"sim"}' --format csv "$G"
og commit list --limit 5 "$G"
