#!/usr/bin/env bash
# Start a throw-away single-node Ceph cluster (1 mon, 1 memstore OSD, no mgr,
# auth=none) plus a radosgw S3 endpoint on 127.0.0.1, for tests.
# Debian 12 (bookworm) packages only; no systemd, no docker; run as root.
# OmniGraph's copy of the shared script; scripts/servers.sh runs it for the integration tests.
# It also exports AWS_ALLOW_HTTP=true: the endpoint is plain HTTP, which the S3 configuration
# refuses without it, as OmniGraph's does (docs/design/decisions.md 150).
#
#   eval "$(./start-rgw.sh)"     # exports S3_ENDPOINT, AWS_ACCESS_KEY_ID, ...
#   ./stop-rgw.sh
#
# stdout carries only `export ...` lines; progress/errors go to stderr.
# Idempotent: if the cluster from RGW_DIR is already up it just re-prints exports;
# a half-dead one is stopped (by its saved PIDs only) and rebuilt from scratch.
#
# Tunables (env):
#   RGW_DIR        state dir (conf, logs, pids, mon store)   default /tmp/rgw-emu
#   RGW_PORT       S3 port on 127.0.0.1                       default 7480
#   RGW_MON_PORT   ceph-mon msgr2 port on 127.0.0.1            default 13300
#   RGW_ACCESS_KEY / RGW_SECRET_KEY   S3 credentials of user "tester"
#   RGW_MEMSTORE_BYTES  capacity of the in-memory OSD          default 4 GiB
#   RGW_BUCKET     if set, this bucket is created once ready
#   RGW_START_TIMEOUT  seconds to wait for each daemon         default 120
set -euo pipefail

RGW_DIR=${RGW_DIR:-/tmp/rgw-emu}
RGW_PORT=${RGW_PORT:-7480}
RGW_MON_PORT=${RGW_MON_PORT:-13300}
RGW_ACCESS_KEY=${RGW_ACCESS_KEY:-TESTACCESSKEY0000001}
RGW_SECRET_KEY=${RGW_SECRET_KEY:-testsecretkey0000000000000000000000000001}
RGW_MEMSTORE_BYTES=${RGW_MEMSTORE_BYTES:-4294967296}
RGW_START_TIMEOUT=${RGW_START_TIMEOUT:-120}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

log() { printf '[start-rgw] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
running() { [[ -r /proc/$1/stat ]] && [[ "$(awk '{print $3}' /proc/"$1"/stat 2>/dev/null)" != Z ]]; }
alive() { [[ -f "$1" ]] && running "$(cat "$1")"; }
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
http_up() { [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$RGW_PORT/" || true)" == 200 ]]; }
ceph_() { timeout 20 ceph -c "$RGW_DIR/ceph.conf" "$@"; }

print_exports() {
  cat <<EOF
export S3_ENDPOINT=http://127.0.0.1:$RGW_PORT
export AWS_ENDPOINT_URL=http://127.0.0.1:$RGW_PORT
export AWS_ALLOW_HTTP=true
export AWS_ACCESS_KEY_ID=$RGW_ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$RGW_SECRET_KEY
export AWS_REGION=us-east-1
export AWS_DEFAULT_REGION=us-east-1
export S3_FORCE_PATH_STYLE=true
export RGW_DIR=$RGW_DIR
export RGW_CEPH_CONF=$RGW_DIR/ceph.conf
EOF
}

T0=$(now)
[[ $EUID -eq 0 ]] || die "must run as root (apt-get, ceph daemons)"

# --- already running? -------------------------------------------------------
if alive "$RGW_DIR/pids/mon" && alive "$RGW_DIR/pids/osd" && alive "$RGW_DIR/pids/rgw" && http_up; then
  log "already running (RGW_DIR=$RGW_DIR)"
  print_exports; exit 0
fi
if [[ -d "$RGW_DIR/pids" ]]; then
  log "stale/partial cluster in $RGW_DIR: stopping it (saved PIDs only) and rebuilding"
  RGW_DIR=$RGW_DIR "$HERE/stop-rgw.sh" >&2 || true
fi
port_busy "$RGW_PORT" && die "127.0.0.1:$RGW_PORT already in use by another process (set RGW_PORT)"
port_busy "$RGW_MON_PORT" && die "127.0.0.1:$RGW_MON_PORT already in use by another process (set RGW_MON_PORT)"

# --- install ------------------------------------------------------------------
need_install=0
for p in radosgw ceph-mon ceph-osd uuid-runtime curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed$' || need_install=1
done
if [[ $need_install == 1 ]]; then
  log "installing radosgw ceph-mon ceph-osd from Debian (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends radosgw ceph-mon ceph-osd uuid-runtime curl >&2
  log "install done after $(since "$T0")s"
fi
for b in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool ceph-authtool uuidgen curl; do
  command -v "$b" >/dev/null || die "missing $b after install"
done

# --- fresh state dir ------------------------------------------------------------
[[ $RGW_DIR == /?*/* || $RGW_DIR == /tmp/?* ]] || die "RGW_DIR must be an absolute path at least two levels deep"
if [[ -d $RGW_DIR && -n "$(ls -A "$RGW_DIR")" && ! -f $RGW_DIR/.rgw-emu ]]; then
  die "$RGW_DIR exists, is not empty and was not made by this script; refusing to wipe it"
fi
rm -rf "$RGW_DIR"
mkdir -p "$RGW_DIR"/{mon/ceph-a,osd/ceph-0,rgw,run,log,pids}
touch "$RGW_DIR/.rgw-emu"
D=$RGW_DIR
FSID=$(uuidgen)
cat > "$D/ceph.conf" <<EOF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$RGW_MON_PORT
mon initial members = a
public addr = 127.0.0.1
ms bind ipv6 = false
ms bind msgr1 = false
ms mon client mode = crc
auth cluster required = none
auth service required = none
auth client required = none
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail warn = 1
mon data avail crit = 0
paxos propose interval = 0.1
osd objectstore = memstore
memstore device bytes = $RGW_MEMSTORE_BYTES
run dir = $D/run
admin socket = $D/run/\$name.asok
log file = $D/log/\$name.log
mon data = $D/mon/\$cluster-\$id
osd data = $D/osd/\$cluster-\$id
keyring = $D/keyring
debug ms = 0
[client.rgw.a]
rgw data = $D/rgw
rgw frontends = beast endpoint=127.0.0.1:$RGW_PORT tcp_nodelay=1
rgw dns name = localhost
debug rgw = 0
EOF
# keyrings are not used for auth (auth=none) but mkfs wants one
ceph-authtool --create-keyring "$D/keyring" --gen-key -n mon. --cap mon 'allow *' >/dev/null
ceph-authtool "$D/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' --cap mgr 'allow *' >/dev/null

start_daemon() { # name pidfile cmd...
  local name=$1 pidf=$2; shift 2
  setsid "$@" </dev/null >"$D/log/$name.out" 2>&1 &
  echo $! > "$pidf"
}
wait_for() { # what timeout cmd...
  local what=$1 to=$2 t=$(now); shift 2
  until "$@" >/dev/null 2>&1; do
    awk -v a="$t" -v b="$(now)" -v to="$to" 'BEGIN{exit !(b-a>to)}' && die "$what not ready after ${to}s; see $D/log"
    sleep 0.2
  done
}

# --- mon ----------------------------------------------------------------------
monmaptool --create --fsid "$FSID" --addv a "[v2:127.0.0.1:$RGW_MON_PORT]" "$D/monmap" >/dev/null
ceph-mon -c "$D/ceph.conf" --mkfs -i a --monmap "$D/monmap" --keyring "$D/keyring" 2>>"$D/log/mkfs.out"
start_daemon mon "$D/pids/mon" ceph-mon -c "$D/ceph.conf" -i a -f
wait_for "ceph-mon" "$RGW_START_TIMEOUT" ceph_ mon stat
log "mon up after $(since "$T0")s"

# --- osd (memstore) -------------------------------------------------------------
OSD_UUID=$(uuidgen)
[[ "$(ceph_ osd new "$OSD_UUID")" == 0 ]] || die "ceph osd new did not return id 0"
ceph-osd -c "$D/ceph.conf" -i 0 --mkfs --osd-uuid "$OSD_UUID" >>"$D/log/mkfs.out" 2>&1
start_daemon osd "$D/pids/osd" ceph-osd -c "$D/ceph.conf" -i 0 -f
osd_up() { ceph_ osd dump 2>/dev/null | grep -q '^osd.0 up'; }
wait_for "ceph-osd" "$RGW_START_TIMEOUT" osd_up
log "osd up after $(since "$T0")s"

# --- radosgw ------------------------------------------------------------------
start_daemon rgw "$D/pids/rgw" radosgw -c "$D/ceph.conf" -n client.rgw.a -f
wait_for "radosgw" "$RGW_START_TIMEOUT" http_up
log "radosgw up after $(since "$T0")s"

# --- S3 user ------------------------------------------------------------------
radosgw-admin -c "$D/ceph.conf" user create --uid=tester --display-name=tester \
  --access-key="$RGW_ACCESS_KEY" --secret-key="$RGW_SECRET_KEY" >"$D/log/user.json" 2>>"$D/log/admin.out" \
  || die "radosgw-admin user create failed; see $D/log/admin.out"

# one signed request to prove the credentials work (also creates the bucket pools)
B=${RGW_BUCKET:-rgw-emu-selftest}
code=$(curl -s -o "$D/log/selftest.out" -w '%{http_code}' --max-time 30 \
  --aws-sigv4 "aws:amz:us-east-1:s3" --user "$RGW_ACCESS_KEY:$RGW_SECRET_KEY" \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT "http://127.0.0.1:$RGW_PORT/$B")
[[ $code == 200 ]] || die "signed CreateBucket returned $code; see $D/log/selftest.out"
if [[ -z "${RGW_BUCKET:-}" ]]; then
  curl -s -o /dev/null --max-time 30 --aws-sigv4 "aws:amz:us-east-1:s3" --user "$RGW_ACCESS_KEY:$RGW_SECRET_KEY" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X DELETE "http://127.0.0.1:$RGW_PORT/$B" || true
fi
log "ready after $(since "$T0")s total: S3 on http://127.0.0.1:$RGW_PORT (pids: mon $(cat "$D/pids/mon"), osd $(cat "$D/pids/osd"), rgw $(cat "$D/pids/rgw"))"
print_exports
