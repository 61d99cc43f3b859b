#!/usr/bin/env bash
# Installs every Debian 12 package the build, the tests and the benchmarks need, and Azurite
# (the Azure test server) from npm.
# Idempotent: a second run installs nothing and takes about a second.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ make pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libsimdjson-dev
  libcurl4-openssl-dev libssl-dev
  libxxhash-dev libzstd-dev libroaring-dev
  libcli11-dev libcpp-httplib-dev
  # The server's HTTP library was chosen against Boost.Beast (scripts/http-compare.sh compiles
  # both); wrk drives scripts/loadtest.sh and that comparison.
  libboost-dev wrk
  libre2-dev libsqlite3-dev sqlite3
  # YAML: cluster.yaml, omnigraph.yaml, operator config and policy bundles.
  libyaml-cpp-dev
  # Full-text search: Unicode normalization and Snowball stemmers.
  libutf8proc-dev libstemmer-dev
  # The vector index (src/table/ann_index.cc): faiss links BLAS and LAPACK; OpenBLAS's
  # single-threaded build provides them fast (the reference BLAS makes index builds ~10x slower).
  libfaiss-dev libblas-dev liblapack-dev libopenblas0-serial
  # omnigraph-bench vector's peer (bench/vector_bench.cc): hnswlib, header-only.
  libhnswlib-dev
  clang-format python3
  # tests/openapi/contract.py validates the server's answers against OmniGraph's openapi.json.
  python3-jsonschema
  # The fuzz preset (docs/design/fuzzing.md): clang with libFuzzer's runtime, and lld to link.
  clang-14 libclang-rt-14-dev lld-14
  # The release preset links with lld (ld.lld, which gcc's -fuse-ld=lld runs) to lay out the code
  # of cold paths first (cmake/LinkOrder.cmake).
  lld
  # tests/cli/hygiene.sh watches the CLI re-execute itself for a bulk load (main.cc).
  strace
  # The S3 test server (scripts/start-rgw.sh): a single-node Ceph RGW on loopback.
  radosgw ceph-mon ceph-osd uuid-runtime curl
  # The review page's browser test (tests/ui): headless Chromium, driven by puppeteer-core below.
  chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# The Azure test server (scripts/start-azurite.sh) is Azurite from npm, on Node.js: Debian's,
# unless node and npm are already on the PATH (from any source).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing+=(nodejs npm); fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Azurite, pinned (DEPENDENCIES.md), into AZURITE_HOME; azurite 3.37 wants node >= 22, which
# start-azurite.sh takes from npm when Debian's is older. Both steps are skipped when present.
AZURITE_HOME=${AZURITE_HOME:-/opt/azurite-emu}
AZURITE_VERSION=${AZURITE_VERSION:-3.37.0}
have=$(node -p "try{require('$AZURITE_HOME/node_modules/azurite/package.json').version}catch(e){''}" \
  2>/dev/null || true)
if [ "$have" != "$AZURITE_VERSION" ]; then
  echo "install-deps: installing azurite@$AZURITE_VERSION into $AZURITE_HOME (npm)"
  $SUDO mkdir -p "$AZURITE_HOME"
  [ -f "$AZURITE_HOME/package.json" ] ||
    echo '{"name":"azurite-emu","private":true}' | $SUDO tee "$AZURITE_HOME/package.json" >/dev/null
  $SUDO npm install --prefix "$AZURITE_HOME" --no-audit --no-fund --loglevel=error \
    "azurite@$AZURITE_VERSION"
fi
if (( $(node -p 'process.versions.node.split(".")[0]') < 22 )) &&
  ! "$AZURITE_HOME/node_modules/.bin/node" --version 2>/dev/null | grep -q '^v22\.'; then
  echo "install-deps: installing node@22 for azurite into $AZURITE_HOME (npm)"
  $SUDO npm install --prefix "$AZURITE_HOME" --no-audit --no-fund --loglevel=error node@22
fi

# The MCP tests (tests/mcp, docs/design/mcp.md): the official TypeScript SDK client and the
# official conformance suite, pinned, with the Node 22 the suite needs (npm's node@22), into
# build/npm of this checkout. Skipped when those versions are present.
MCP_NPM_HOME=${MCP_NPM_HOME:-$(cd "$(dirname "$0")/.." && pwd)/build/npm}
MCP_SDK_VERSION=1.32.2
MCP_CONFORMANCE_VERSION=0.1.16
MCP_NODE_VERSION=22.23.3
mcp_have() {  # PACKAGE: its installed version, or nothing
  node -p "try{require('$MCP_NPM_HOME/node_modules/$1/package.json').version}catch(e){''}" \
    2>/dev/null || true
}
if [ "$(mcp_have @modelcontextprotocol/sdk)" != "$MCP_SDK_VERSION" ] ||
  [ "$(mcp_have @modelcontextprotocol/conformance)" != "$MCP_CONFORMANCE_VERSION" ] ||
  [ "$(mcp_have node)" != "$MCP_NODE_VERSION" ]; then
  echo "install-deps: installing the MCP SDK, conformance suite and node@22 into $MCP_NPM_HOME (npm)"
  mkdir -p "$MCP_NPM_HOME"
  [ -f "$MCP_NPM_HOME/package.json" ] ||
    echo '{"name":"omnigraph-mcp-tests","private":true}' >"$MCP_NPM_HOME/package.json"
  npm install --prefix "$MCP_NPM_HOME" --no-audit --no-fund --loglevel=error \
    "node@$MCP_NODE_VERSION" "@modelcontextprotocol/sdk@$MCP_SDK_VERSION" \
    "@modelcontextprotocol/conformance@$MCP_CONFORMANCE_VERSION"
fi

# The review page's browser test (tests/ui/review.sh, docs/design/review-page.md "Tests"):
# puppeteer-core, pinned, into the same build/npm, driving Debian's chromium (puppeteer's own
# browser download is never fetched: puppeteer-core has none). It needs node >= 22.12, which the
# MCP block above installs there. Skipped when present.
UI_PUPPETEER_VERSION=25.16.0
if [ "$(mcp_have puppeteer-core)" != "$UI_PUPPETEER_VERSION" ]; then
  echo "install-deps: installing puppeteer-core@$UI_PUPPETEER_VERSION into $MCP_NPM_HOME (npm)"
  mkdir -p "$MCP_NPM_HOME"
  npm install --prefix "$MCP_NPM_HOME" --no-audit --no-fund --loglevel=error \
    "puppeteer-core@$UI_PUPPETEER_VERSION"
fi
