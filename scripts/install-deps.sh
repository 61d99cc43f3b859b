#!/usr/bin/env bash
# Installs every Debian 12 package the build, the tests and the benchmarks need.
# Idempotent: a second run installs nothing and takes about a second.
set -euo pipefail

packages=(
  cmake ninja-build ccache g++ make pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  nlohmann-json3-dev libsimdjson-dev
  libcurl4-openssl-dev libssl-dev
  libxxhash-dev libzstd-dev libroaring-dev
  libcli11-dev libcpp-httplib-dev
  libre2-dev libsqlite3-dev sqlite3
  clang-format
  # The S3 test server (scripts/start-rgw.sh): a single-node Ceph RGW on loopback.
  radosgw ceph-mon ceph-osd uuid-runtime curl
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
