#!/usr/bin/env bash
# The README's test command: installs what is needed, builds the asan preset (ASan + UBSan) with
# warnings as errors, starts the test servers, runs every test label, then the fuzz smoke run
# (scripts/fuzz.sh --ci: the clang fuzz preset's decoder and parser harnesses built, each a few
# seconds over its corpus and regression inputs; OMNIGRAPH_SKIP_FUZZ=1 leaves it out), then the
# lint.
# Usage: scripts/test.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-deps.sh

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
# A full disk once failed a CI link ("No space left on device"); say how much there is, and what the
# build took, so such a failure names its cause. The asan preset keeps debug info to line tables
# (-g1: enough for sanitizer stack traces) to keep the build small.
echo "test: $(df -h --output=avail . | tail -1 | tr -d ' ') free on the build disk"
start=$(date +%s)
cmake --preset asan -DOMNIGRAPH_WERROR=ON >/dev/null
cmake --build --preset asan
echo "test: build took $(( $(date +%s) - start )) s; build/asan holds $(du -sh build/asan | cut -f1)"

# Test servers (Ceph RGW for S3, Azurite for Azure): see scripts/servers.sh.
if [ -f scripts/servers.sh ]; then
  # shellcheck source=/dev/null
  source scripts/servers.sh
  servers_start
  trap servers_stop EXIT
fi

start=$(date +%s)
ctest --preset asan "$@"
echo "test: tests took $(( $(date +%s) - start )) s"

# The fuzz smoke run (docs/design/fuzzing.md, decisions.md "A second, clang build in CI" and
# "The CI smoke run fuzzes the decoders and parsers").
if [ "${OMNIGRAPH_SKIP_FUZZ:-0}" != 1 ]; then
  start=$(date +%s)
  bash scripts/fuzz.sh --ci 2
  echo "test: fuzz smoke run took $(( $(date +%s) - start )) s"
fi

bash scripts/lint.sh
