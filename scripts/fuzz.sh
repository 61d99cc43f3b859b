#!/usr/bin/env bash
# Builds the fuzz preset (clang-14, libFuzzer + ASan + UBSan; docs/design/fuzzing.md) and runs
# every harness for SECONDS over its committed corpus (fuzz/corpus/<harness>) and its regression
# inputs (fuzz/regressions/<harness>, every one replayed first). New inputs go to a scratch corpus
# under build/fuzz/work (or OMNIGRAPH_FUZZ_WORK), never into the committed one; a crash, hang
# (-timeout=10) or allocation over the limit (-rss_limit_mb=2048) leaves its input there as
# crash-*/timeout-*/oom-* and fails the run.
# Usage: scripts/fuzz.sh [--ci] [SECONDS per harness (default 2: the CI smoke run)] [HARNESS...]
#   --ci (scripts/test.sh) builds and runs only the harnesses of the decoders and parsers (target
#   fuzz_ci, listed in build/fuzz/ci-harnesses.txt; decisions.md "The CI smoke run fuzzes the
#   decoders and parsers"); without it every harness is built and run.
#   OMNIGRAPH_FUZZ_NO_BUILD=1 skips the configure and build; OMNIGRAPH_FUZZ_JOBS runs that many
#   harnesses at once (default 1); OMNIGRAPH_FUZZ_NICE is their niceness (default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=fuzz
if [ "${1:-}" = --ci ]; then target=fuzz_ci; shift; fi
seconds=${1:-2}
shift || true
work=${OMNIGRAPH_FUZZ_WORK:-$root/build/fuzz/work}
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

if [ "${OMNIGRAPH_FUZZ_NO_BUILD:-0}" != 1 ]; then
  start=$(date +%s)
  cmake --preset fuzz -DOMNIGRAPH_WERROR=ON >/dev/null
  cmake --build --preset fuzz --target "$target"
  echo "fuzz: build of $target took $(( $(date +%s) - start )) s"
fi

harnesses=("$@")
if [ "${#harnesses[@]}" -eq 0 ] && [ "$target" = fuzz_ci ]; then
  mapfile -t harnesses < build/fuzz/ci-harnesses.txt
elif [ "${#harnesses[@]}" -eq 0 ]; then
  mapfile -t harnesses < <(ls fuzz/*.cc | xargs -n1 basename | sed 's/\.cc$//')
fi
# The cluster harness resolves a real config's references against the cookbook's files.
export OMNIGRAPH_FUZZ_CLUSTER_FILES
OMNIGRAPH_FUZZ_CLUSTER_FILES=$(realpath ../shared/fixtures/cookbooks/industry-intel 2>/dev/null || true)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

run_one() {
  local h=$1 dir=$work/$1
  mkdir -p "$dir/corpus" "$dir/artifacts"
  local inputs=("$dir/corpus")
  for d in fuzz/corpus/$h fuzz/regressions/$h; do [ -d "$d" ] && inputs+=("$d"); done
  if nice -n "${OMNIGRAPH_FUZZ_NICE:-10}" "build/fuzz/bin/fuzz_$h" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -max_len=262144 -print_final_stats=1 \
      -artifact_prefix="$dir/artifacts/" "${inputs[@]}" >"$dir/log" 2>&1; then
    local stats
    stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$dir/log" | tail -1 |
            grep -oE 'cov: [0-9]+|exec/s: [0-9]+' | tr '\n' ' ')
    echo "fuzz: $h ok ($stats; $(grep -oE 'stat::number_of_executed_units: [0-9]+' "$dir/log" |
         grep -oE '[0-9]+') runs)"
  else
    echo "fuzz: $h FAILED (log: $dir/log; input: $(ls "$dir/artifacts" | head -1))"
    grep -E 'ERROR|SUMMARY|fuzz finding|==ERROR|runtime error|Test unit written' "$dir/log" | head -8
    return 1
  fi
}

start=$(date +%s)
status=0
jobs_max=${OMNIGRAPH_FUZZ_JOBS:-1}
if [ "$jobs_max" -le 1 ]; then
  for h in "${harnesses[@]}"; do run_one "$h" || status=1; done
else
  pids=()
  for h in "${harnesses[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || status=1; done
    run_one "$h" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || status=1; done
fi
echo "fuzz: ${#harnesses[@]} harnesses, ${seconds} s each, took $(( $(date +%s) - start )) s"
exit "$status"
