#!/usr/bin/env bash
# The README's first command: installs what is needed, builds the release preset and runs the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
export CCACHE_BASEDIR="$(pwd)" CCACHE_NOHASHDIR=1
cmake --preset release >/dev/null
cmake --build --preset release
./build/release/bin/omnigraph-demo "${1:-/tmp/omnigraph-demo}"
