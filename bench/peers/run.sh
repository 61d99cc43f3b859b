#!/usr/bin/env bash
# The peers benchmark: OmniGraph beside Kùzu 0.11.3, DuckDB (@duckdb/node-api) and SQLite on one
# generated graph (docs/benchmarks.md "OmniGraph beside Kùzu, DuckDB and SQLite"). It installs the
# two npm packages into a temporary folder, generates the graph once (seeded CSV and NDJSON files
# that every system loads), loads it into each system, runs the warm and fresh-process shapes RUNS
# times, checks every answer agrees and writes bench/results/peers-<date>-<commit>.json.
#
#   bench/peers/run.sh [--persons N] [--knows M] [--runs R] [--seed S] [--x10] [--int-keys]
#                      [--bin DIR] [--work DIR] [--out FILE]
#   --persons/--knows  the graph (default 100,000 persons, 2,400,000 distinct Knows edges)
#   --x10              the 10x graph: 1,000,000 persons, 24,000,000 edges
#   --int-keys         persons keyed by an integer `pid` (every system's integer primary key)
#                      instead of a string `name`; the JSON is then peers-int-<date>-<commit>.json
#   --runs             runs per number, the median reported (default 3)
#   --bin              omnigraph, omnigraph-cold-bench (default build/release/bin)
#   --work             where the packages, files and databases go (default a new temporary
#                      folder, removed at the end)
# A benchmark: it is not part of ctest. Needs node >= 18, npm and /usr/bin/time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
persons=100000 knows=2400000 runs=3 seed=42 bin="$root/build/release/bin" work="" out="" keys=()
while [ $# -gt 0 ]; do
  case "$1" in
    --persons) persons=$2; shift 2 ;;
    --knows) knows=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --x10) persons=1000000 knows=24000000; shift ;;
    --int-keys) keys=(--int-keys); shift ;;
    --bin) bin=$(cd "$2" && pwd); shift 2 ;;
    --work) work=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "run.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
for tool in omnigraph omnigraph-cold-bench; do
  [ -x "$bin/$tool" ] || { echo "run.sh: $bin/$tool not found (build the release preset)" >&2; exit 2; }
done
command -v /usr/bin/time >/dev/null || { echo "run.sh: /usr/bin/time is needed" >&2; exit 2; }
if [ -z "$work" ]; then
  work=$(mktemp -d /tmp/omnigraph-peers.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work"
commit=$(git -C "$root" rev-parse --short HEAD)
[ -n "$out" ] || out="$root/bench/results/peers${keys:+-int}-$(date -u +%F)-$commit.json"

echo "peers: installing kuzu@0.11.3 and @duckdb/node-api into $work/npm" >&2
npm install --prefix "$work/npm" --no-audit --no-fund --loglevel=error \
  kuzu@0.11.3 @duckdb/node-api >&2
# Kùzu's install step copies its prebuilt binding; npm may hold install scripts back.
kuzu="$work/npm/node_modules/kuzu"
[ -f "$kuzu/kuzujs.node" ] || (cd "$kuzu" && node install.js >&2)

echo "peers: generating $persons persons, $knows knows (seed $seed) in $work/data" >&2
"$bin/omnigraph-cold-bench" gen "$work/data" "$persons" "$knows" "$seed" "${keys[@]}"
PEERS_NODE_MODULES="$work/npm/node_modules" node "$here/run.mjs" --bin "$bin" \
  --data "$work/data" --persons "$persons" --knows "$knows" --runs "$runs" --commit "$commit" \
  --out "$out"
