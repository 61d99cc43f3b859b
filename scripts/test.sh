#!/usr/bin/env bash
# The README's test command: installs what is needed, builds the asan preset (ASan + UBSan) with
# warnings as errors, starts the test servers, runs every test label, then the lint.
# Usage: scripts/test.sh [extra ctest arguments, e.g. -L unit]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-deps.sh

export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
start=$(date +%s)
cmake --preset asan -DOMNIGRAPH_WERROR=ON >/dev/null
cmake --build --preset asan
echo "test: build took $(( $(date +%s) - start )) s"

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

bash scripts/lint.sh
