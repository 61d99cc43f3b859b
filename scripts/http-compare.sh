#!/usr/bin/env bash
# The measurement behind the server's HTTP library (docs/design/server.md "HTTP library"): a
# minimal hello route on cpp-httplib and on Boost.Beast (bench/http/), each under wrk on
# loopback, requests/s and latency percentiles per connection count. Prints a table; numbers
# depend on the machine and on what else runs on it.
# Usage: scripts/http-compare.sh [seconds per run, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
out=$(mktemp -d /tmp/omnigraph-http-compare.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$out"
}
trap cleanup EXIT

start=$(date +%s)
g++ -O2 -std=c++20 bench/http/httplib_hello.cc -o "$out/httplib" \
  $(pkg-config --cflags --libs cpp-httplib) -pthread
echo "compile: cpp-httplib $(( $(date +%s) - start )) s"
start=$(date +%s)
g++ -O2 -std=c++20 bench/http/beast_hello.cc -o "$out/beast" -pthread
echo "compile: Boost.Beast $(( $(date +%s) - start )) s"

"$out/httplib" 18180 & pids+=($!)
"$out/beast" 18181 & pids+=($!)
sleep 1
printf '%-12s %5s %12s %10s %10s\n' library conns requests/s p50 p99
for conns in 1 16 64; do
  for lib in httplib:18180 beast:18181; do
    name=${lib%%:*} port=${lib##*:}
    threads=$(( conns < 2 ? 1 : 2 ))
    r=$(wrk -t"$threads" -c"$conns" -d"${seconds}s" --latency "http://127.0.0.1:$port/hello")
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$r")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$r")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$r")
    printf '%-12s %5s %12s %10s %10s\n' "$name" "$conns" "$rps" "$p50" "$p99"
  done
done
