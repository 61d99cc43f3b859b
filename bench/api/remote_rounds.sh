#!/usr/bin/env bash
# Cold queries over a remote store (issue [36] item 6; docs/benchmarks.md "Cold queries over a
# remote store"): what a fresh process waits for when every request to the store costs a fixed
# delay, as on S3 or Azure across a network. The graph lives on Ceph RGW on loopback; the
# measured processes reach it through bench/api/delay_proxy.py, which delays every request by
# DELAY ms. For each shape it reports, over RUNS fresh processes (median):
#   - ms at delay 0 and at DELAY, and the rounds they imply: (ms_DELAY - ms_0) / DELAY;
#   - for the reads (open + first `lookup`, `hop1` or `nearest` — the 10 nearest of DOCS
#     32-dimensional vectors, through the vector index a load builds — through the public API in
#     omnigraph-cold-bench), the handle's own count: calls and dependent request rounds
#     (StoreCallCounts::rounds, docs/design/storage.md "Wrappers");
#   - for a mutation (a one-row insert through the CLI, a fresh process), the implied rounds, and
#     the calls and rounds counted from a second insert's OMNIGRAPH_STORE_TRACE lines.
# Writes bench/results/remote-rounds-<date>-<commit>.json with cold_lookup_rounds,
# cold_hop1_rounds, cold_nearest_rounds and cold_mutation_rounds (counted) beside the implied ones.
# With --optimize, after those runs the graph is compacted by `omnigraph optimize` (a rewrite: a
# load writes fragments of 65,536 rows, so above that many persons Person becomes fragments of up
# to 2^20 rows, larger than the 1 MiB a remote open reads whole) and the reads run again:
# cold_lookup_after_optimize_rounds and cold_hop1_after_optimize_rounds; then one one-row append
# over the compacted version and cold_lookup_after_optimize_append_rounds (decision 235). Every
# read shape also reports its median bytes read.
#
#   bench/api/remote_rounds.sh [--persons N] [--knows M] [--docs D] [--delay MS] [--runs R]
#                              [--bin DIR] [--optimize]
#   defaults: 10,000 persons, 240,000 Knows edges, 20,000 docs, 20 ms, 3 runs, build/release/bin
# A benchmark: not part of ctest. Starts RGW (scripts/start-rgw.sh) unless OMNIGRAPH_TEST_S3_URI
# says one is running, and stops what it started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
persons=10000 knows=240000 docs=20000 delay=20 runs=3 bin="$root/build/release/bin" optimize=""
while [ $# -gt 0 ]; do
  case "$1" in
    --persons) persons=$2; shift 2 ;;
    --knows) knows=$2; shift 2 ;;
    --docs) docs=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --bin) bin=$(cd "$2" && pwd); shift 2 ;;
    --optimize) optimize=1; shift ;;
    *) echo "remote_rounds: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/omnigraph-rounds.XXXXXX)
started_rgw=""
proxy_pid=""
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
  [ -n "$started_rgw" ] && bash "$root/scripts/stop-rgw.sh" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

if [ -z "${OMNIGRAPH_TEST_S3_URI:-}" ]; then
  # Ports of its own, so it never meets the test suite's RGW (7480, 13300).
  export RGW_DIR=$work/rgw RGW_BUCKET=omnigraph-rounds RGW_PORT=${RGW_PORT:-7581}
  export RGW_MON_PORT=${RGW_MON_PORT:-13401}
  eval "$(bash "$root/scripts/start-rgw.sh")"
  started_rgw=1
  bucket_uri="s3://$RGW_BUCKET"
else
  bucket_uri=$OMNIGRAPH_TEST_S3_URI
fi
rgw_endpoint=$AWS_ENDPOINT_URL
rgw_hostport=${rgw_endpoint#http://}
uri="$bucket_uri/rounds-$$"

"$bin/omnigraph-cold-bench" gen "$work/data" "$persons" "$knows" 42 >/dev/null
"$bin/omnigraph-cold-bench" gen-docs "$work/data" "$docs" 42 >/dev/null
"$bin/omnigraph" --quiet init "$uri" --schema "$work/data/schema-docs.pg"
"$bin/omnigraph" --quiet load "$uri" --data "$work/data/graph.ndjson" --mode overwrite --yes
"$bin/omnigraph" --quiet load "$uri" --data "$work/data/docs.ndjson" --mode append

# start_proxy DELAY: a proxy to RGW on a free port; sets AWS_ENDPOINT_URL to it.
start_proxy() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null || true
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 "$here/delay_proxy.py" "$port" "$rgw_hostport" "$1" >"$work/proxy.log" 2>&1 &
  proxy_pid=$!
  for _ in $(seq 300); do grep -q ready "$work/proxy.log" && break; sleep 0.1; done
  grep -q ready "$work/proxy.log" || {
    echo "remote_rounds: proxy did not start:" >&2
    cat "$work/proxy.log" >&2
    exit 1
  }
  export AWS_ENDPOINT_URL=http://127.0.0.1:$port
}

: >"$work/runs.jsonl"
n=0
for d in 0 "$delay"; do
  start_proxy "$d"
  for r in $(seq "$runs"); do
    for shape in lookup hop1 nearest; do
      OMNIGRAPH_BENCH_GRAPH_URI=$uri "$bin/omnigraph-cold-bench" fresh "$work/data" "$shape" omnigraph |
        python3 -c 'import json,sys; j=json.load(sys.stdin); j["delay_ms"]='"$d"'; print(json.dumps(j))' \
          >>"$work/runs.jsonl"
    done
    n=$((n + 1))
    printf '{"type":"Person","data":{"name":"r%s-%s","age":1}}\n' "$d" "$r" >"$work/one.jsonl"
    # Timed without the trace; then a second insert with it, for the calls and rounds counted.
    t0=$(date +%s%N)
    "$bin/omnigraph" --quiet load "$uri" --data "$work/one.jsonl" --mode append
    t1=$(date +%s%N)
    sed -i 's/"name":"r/"name":"t/' "$work/one.jsonl"
    OMNIGRAPH_STORE_TRACE=1 "$bin/omnigraph" --quiet load "$uri" --data "$work/one.jsonl" \
      --mode append 2>"$work/trace.txt"
    python3 - "$d" "$t0" "$t1" "$work/trace.txt" >>"$work/runs.jsonl" <<'PY'
import json, re, sys
d, t0, t1, trace = sys.argv[1:]
rounds = [int(m.group(1)) for m in map(re.compile(r"^store: round=(\d+) ").match, open(trace)) if m]
ops = [l.split()[2] for l in open(trace) if l.startswith("store: round=")]
print(json.dumps({"system": "omnigraph", "shape": "mutation", "delay_ms": float(d),
                  "ms": (int(t1) - int(t0)) / 1e6,
                  "store_calls": {"rounds": max(rounds, default=0),
                                  "gets": ops.count("get"), "heads": ops.count("head"),
                                  "lists": ops.count("list"), "writes": len(ops) - ops.count("get")
                                  - ops.count("head") - ops.count("list")}}))
PY
  done
done

# fresh_reads DELAY NAME SHAPE...: one fresh process per shape, recorded as "SHAPE" + NAME.
fresh_reads() {
  local d=$1 name=$2 shape
  shift 2
  for shape in "$@"; do
    OMNIGRAPH_BENCH_GRAPH_URI=$uri "$bin/omnigraph-cold-bench" fresh "$work/data" "$shape" omnigraph |
      python3 -c 'import json,sys; j=json.load(sys.stdin); j["delay_ms"]='"$d"'; j["shape"]+="'"$name"'"; print(json.dumps(j))' \
        >>"$work/runs.jsonl"
  done
}

if [ -n "$optimize" ]; then
  start_proxy 0
  "$bin/omnigraph" --quiet optimize "$uri" >/dev/null
  for d in 0 "$delay"; do
    start_proxy "$d"
    for r in $(seq "$runs"); do fresh_reads "$d" _after_optimize lookup hop1; done
  done
  start_proxy 0
  printf '{"type":"Person","data":{"name":"o1","age":1}}\n' >"$work/one.jsonl"
  "$bin/omnigraph" --quiet load "$uri" --data "$work/one.jsonl" --mode append
  for d in 0 "$delay"; do
    start_proxy "$d"
    for r in $(seq "$runs"); do fresh_reads "$d" _after_optimize_append lookup; done
  done
fi

date_=$(date -u +%Y-%m-%d)
commit=$(git -C "$root" rev-parse --short HEAD)
out="$root/bench/results/remote-rounds-$date_-$commit.json"
python3 - "$work/runs.jsonl" "$delay" "$persons" "$knows" "$docs" "$runs" "$date_" "$commit" \
  >"$out" <<'PY'
import json, statistics, sys
path, delay, persons, knows, docs, runs, date, commit = sys.argv[1:]
delay = float(delay)
rows = [json.loads(l) for l in open(path)]
out = {"bench": "remote-rounds", "date": date, "commit": commit, "delay_ms": delay,
       "graph": {"persons": int(persons), "knows": int(knows), "docs": int(docs),
                 "doc_dimensions": 32}, "runs": int(runs),
       "store": "Ceph RGW on loopback behind bench/api/delay_proxy.py", "shapes": {}}
shapes = ["lookup", "hop1", "nearest", "mutation", "lookup_after_optimize",
          "hop1_after_optimize", "lookup_after_optimize_append"]
for shape in shapes:
    at = {d: [r for r in rows if r["shape"] == shape and r["delay_ms"] == d] for d in (0, delay)}
    if not at[0] or not at[delay]:
        continue
    ms0 = statistics.median(r["ms"] for r in at[0])
    msd = statistics.median(r["ms"] for r in at[delay])
    s = {"ms_at_0": round(ms0, 2), "ms_at_delay": round(msd, 2),
         "implied_rounds": round((msd - ms0) / delay, 1)}
    calls = [r.get("store_calls") for r in at[delay] if r.get("store_calls")]
    if calls:
        s["rounds_counted"] = statistics.median(c["rounds"] for c in calls)
        s["calls"] = statistics.median(c["gets"] + c["heads"] + c["lists"] + c.get("writes", 0)
                                       for c in calls)
        if shape != "mutation":
            answers = {json.dumps(r["answer"]) for r in at[0] + at[delay]}
            s["answers_agree"] = len(answers) == 1
            s["bytes_read"] = statistics.median(c.get("bytes_read", 0) for c in calls)
    out["shapes"][shape] = s
    key = "cold_%s_rounds" % shape
    out[key] = s.get("rounds_counted", s["implied_rounds"])
print(json.dumps(out, indent=2))
PY
cat "$out"
