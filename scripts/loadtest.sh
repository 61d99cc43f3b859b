#!/usr/bin/env bash
# Load test of omnigraph-server (docs/design/server.md "Load test"): builds a graph on a local
# temporary folder (PEOPLE people, each knowing three others), starts the server on loopback with
# a bearer token, and runs wrk for SECONDS against three requests — a point lookup by key, a
# two-hop read, and a small mutation (one insert, one commit) — then the two reads through the
# embedded API in one process (omnigraph-api-bench, as many threads as wrk has connections), so
# the HTTP overhead shows as a ratio. Writes bench/results/server-loadtest-<date>-<commit>.json
# and rewrites the server section of docs/benchmarks.md.
# Usage: scripts/loadtest.sh [SECONDS per run, default 10]
# Environment: OMNIGRAPH_BIN_DIR (default build/release/bin), PEOPLE (default 10000),
# CONNECTIONS (default 8), WRK_THREADS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-10}
bin=${OMNIGRAPH_BIN_DIR:-$root/build/release/bin}
people=${PEOPLE:-10000}
conns=${CONNECTIONS:-8}
wrk_threads=${WRK_THREADS:-2}
for tool in omnigraph omnigraph-server omnigraph-api-bench; do
  [ -x "$bin/$tool" ] || { echo "loadtest: $bin/$tool is missing; build it:" \
    "cmake --preset release && cmake --build --preset release --target $tool" >&2; exit 1; }
done
command -v wrk >/dev/null || { echo "loadtest: wrk is missing (scripts/install-deps.sh)" >&2; exit 1; }

work=$(mktemp -d /tmp/omnigraph-loadtest.XXXXXX)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cat > "$work/schema.pg" <<'PG'
node Person { name: String @key  age: I64? }
edge Knows: Person -> Person { }
PG
python3 - "$people" > "$work/data.ndjson" <<'PY'
import json, random, sys
n = int(sys.argv[1])
rng = random.Random(7)
for i in range(n):
    print(json.dumps({"type": "Person", "data": {"name": f"p{i}", "age": rng.randrange(18, 90)}}))
for i in range(n):
    for j in rng.sample(range(n), 3):
        print(json.dumps({"edge": "Knows", "from": f"p{i}", "to": f"p{j}"}))
PY
"$bin/omnigraph" --quiet init --schema "$work/schema.pg" "$work/g"
"$bin/omnigraph" --quiet load --mode append --data "$work/data.ndjson" "$work/g"
cat > "$work/reads.gq" <<'GQ'
query point($name: String) { match { $p: Person { name: $name } } return { $p.name, $p.age } }
query two_hop($name: String) {
  match { $p: Person { name: $name }  $p knows{2,2} $f } return { $f.name } order { $f.name }
}
GQ

token=loadtest-token
OMNIGRAPH_SERVER_BEARER_TOKEN=$token "$bin/omnigraph-server" "$work/g" --bind 127.0.0.1:0 \
  --allow-writes default > "$work/server.out" 2>"$work/server.err" &
server_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/server.out")
[ -n "$url" ] || { cat "$work/server.err" >&2; exit 1; }

# wrk scripts: a fixed read body, or a mutation whose key is unique per thread and request.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
src = open(f"{work}/reads.gq").read()
for name in ("point", "two_hop"):
    body = json.dumps({"query": src, "name": name, "params": {"name": "p42"}})
    with open(f"{work}/{name}.lua", "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        f.write("wrk.body = " + json.dumps(body) + "\n")
mutation = "query add($name: String) { insert Person { name: $name, age: 1 } }"
with open(f"{work}/mutate.lua", "w") as f:
    # wrk.format with its own headers would drop wrk.headers (the bearer token): set them here.
    f.write(f'''local n, id = 0, 0
wrk.headers["Content-Type"] = "application/json"
function setup(thread) id = id + 1; thread:set("id", id) end
function request()
  n = n + 1
  local body = '{{"query": {json.dumps(mutation)}, "params": {{"name": "w' .. id .. '-' .. n .. '"}}}}'
  return wrk.format("POST", "/mutate", nil, body)
end
-- The first refusals of each thread, so a non-2xx count comes with its reason.
local logged = 0
function response(status, headers, body)
  if status ~= 200 and logged < 2 then
    logged = logged + 1
    io.stderr:write("loadtest: mutation refused: " .. status .. " " .. body .. "\\n")
  end
end
''')
PY

# One wrk run: its requests/s, latency percentiles (µs) and non-2xx count, as JSON.
run_wrk() {
  local name=$1 path=$2 c=${3:-$conns}
  local r
  r=$(wrk -t"$(( c < wrk_threads ? c : wrk_threads ))" -c"$c" -d"${seconds}s" --latency \
    -H "Authorization: Bearer $token" -s "$work/$name.lua" "$url$path")
  echo "$r" > "$work/$name.wrk"
  python3 - "$work/$name.wrk" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
def us(v):
    m = re.match(r"([\d.]+)(us|ms|s)", v)
    return round(float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)], 1)
out = {"requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))}
for p in ("50", "75", "90", "99"):
    out[f"p{p}_us"] = us(re.search(rf"^\s+{p}%\s+(\S+)", text, re.M).group(1))
m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
out["non_2xx"] = int(m.group(1)) if m else 0
out["requests"] = int(re.search(r"(\d+) requests in", text).group(1))
print(json.dumps(out))
PY
}

echo "loadtest: $people people, ${seconds}s per run, $conns connections, $wrk_threads wrk threads"
point=$(run_wrk point /query)
two_hop=$(run_wrk two_hop /query)
mutate=$(run_wrk mutate /mutate)
mutate_one=$(run_wrk mutate /mutate 1)
kill "$server_pid"; wait "$server_pid" || true; server_pid=
embedded_point=$("$bin/omnigraph-api-bench" "$work/g" "$work/reads.gq" point '{"name":"p42"}' \
  "$conns" "$seconds")
embedded_two_hop=$("$bin/omnigraph-api-bench" "$work/g" "$work/reads.gq" two_hop \
  '{"name":"p42"}' "$conns" "$seconds")

sha=$(git rev-parse --short HEAD)
day=$(date -u +%Y-%m-%d)
result="bench/results/server-loadtest-$day-$sha.json"
python3 - "$result" "$people" "$seconds" "$conns" "$wrk_threads" "$(nproc)" "$sha" \
  "$point" "$two_hop" "$mutate" "$mutate_one" "$embedded_point" "$embedded_two_hop" <<'PY'
import json, sys
(path, people, seconds, conns, threads, cores, sha, point, two_hop, mutate, mutate_one, ep,
 e2) = sys.argv[1:]
point, two_hop, mutate, mutate_one, ep, e2 = map(json.loads,
                                                 (point, two_hop, mutate, mutate_one, ep, e2))
doc = {
    "benchmark": "server-loadtest", "commit": sha, "cores": int(cores), "people": int(people),
    "edges": 3 * int(people), "seconds_per_run": int(seconds), "connections": int(conns),
    "wrk_threads": int(threads), "store": "local (temporary folder)",
    "http": {"point": point, "two_hop": two_hop, "mutate": mutate,
             "mutate_one_connection": mutate_one},
    "embedded": {"point": ep, "two_hop": e2},
    "http_over_embedded": {
        "point_throughput": round(ep["requests_per_s"] / point["requests_per_s"], 2),
        "two_hop_throughput": round(e2["requests_per_s"] / two_hop["requests_per_s"], 2),
        "point_p50": round(point["p50_us"] / max(ep["p50_us"], 0.1), 2),
        "two_hop_p50": round(two_hop["p50_us"] / max(e2["p50_us"], 0.1), 2),
    },
}
json.dump(doc, open(path, "w"), indent=2)
open(path, "a").write("\n")
PY
echo "loadtest: wrote $result"

# docs/benchmarks.md: the section between the markers is this run's table.
python3 - "$result" docs/benchmarks.md <<'PY'
import json, os, sys
r = json.load(open(sys.argv[1]))
md = sys.argv[2]
h, e, x = r["http"], r["embedded"], r["http_over_embedded"]
rows = [
    "| request | path | requests/s | p50 µs | p90 µs | p99 µs | non-2xx |",
    "|---|---|---:|---:|---:|---:|---:|",
]
for name, label in (("point", "point lookup by key"), ("two_hop", "two-hop read"),
                    ("mutate", "one-insert mutation"),
                    ("mutate_one_connection", "one-insert mutation, one connection")):
    v = h[name]
    rows.append(f"| {label} | HTTP | {v['requests_per_s']:.0f} | {v['p50_us']} | {v['p90_us']} | "
                f"{v['p99_us']} | {v['non_2xx']} |")
for name, label in (("point", "point lookup by key"), ("two_hop", "two-hop read")):
    v = e[name]
    rows.append(f"| {label} | embedded API | {v['requests_per_s']:.0f} | {v['p50_us']} | "
                f"{v['p90_us']} | {v['p99_us']} | {v['errors']} |")
section = "\n".join([
    "<!-- server-loadtest:begin (scripts/loadtest.sh rewrites this section) -->",
    f"Run `{os.path.basename(sys.argv[1])}` (commit {r['commit']}, {r['cores']} cores, "
    f"{r['people']} people and {r['edges']} edges on the local store, {r['seconds_per_run']} s "
    f"per run, {r['connections']} connections from {r['wrk_threads']} wrk threads; the embedded "
    f"runs use as many threads as connections):",
    "", *rows, "",
    f"HTTP over embedded: the embedded API serves {x['point_throughput']}× the point lookups and "
    f"{x['two_hop_throughput']}× the two-hop reads per second; the median HTTP latency is "
    f"{x['point_p50']}× and {x['two_hop_p50']}× the embedded one. wrk runs on the same cores "
    "as the server, so the HTTP numbers include the load generator's own CPU.",
    "<!-- server-loadtest:end -->",
])
text = open(md).read() if os.path.exists(md) else (
    "# Benchmarks\n\nMeasured numbers, each with the script that produces it; the raw results are "
    "in `bench/results/`.\n")
begin, end = "<!-- server-loadtest:begin", "<!-- server-loadtest:end -->"
if begin in text:
    a = text.index(begin)
    b = text.index(end) + len(end)
    text = text[:a] + section + text[b:]
else:
    text = text.rstrip("\n") + "\n\n## omnigraph-server under load (`scripts/loadtest.sh`)\n\n" + \
        section + "\n"
open(md, "w").write(text if text.endswith("\n") else text + "\n")
PY
echo "loadtest: updated docs/benchmarks.md"
cat "$result"
