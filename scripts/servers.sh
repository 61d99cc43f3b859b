# Test servers for the `integration` label, sourced by scripts/test.sh (which calls servers_start
# before ctest and servers_stop on exit). Today: Ceph RGW for the S3 backend (docs/design/s3.md).
#
#   source scripts/servers.sh && servers_start   # exports OMNIGRAPH_TEST_S3_URI and AWS_*
#   servers_stop                                 # stops what servers_start started, by saved PIDs
#
# Tunables: RGW_DIR (state dir, default /tmp/omnigraph-rgw), RGW_PORT (default 7480),
# RGW_MON_PORT (default 13300), RGW_BUCKET (default omnigraph-test). See scripts/start-rgw.sh.

_servers_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

servers_start() {
  export RGW_DIR=${RGW_DIR:-/tmp/omnigraph-rgw}
  export RGW_BUCKET=${RGW_BUCKET:-omnigraph-test}
  local start exports
  start=$(date +%s)
  if ! exports=$(bash "$_servers_root/scripts/start-rgw.sh"); then
    echo "servers: Ceph RGW did not start; its logs are in $RGW_DIR/log" >&2
    return 1
  fi
  eval "$exports"
  # Each test works under its own prefix (or its own bucket) below this one.
  export OMNIGRAPH_TEST_S3_URI="s3://$RGW_BUCKET/tests"
  echo "servers: Ceph RGW on $S3_ENDPOINT after $(( $(date +%s) - start )) s;" \
    "OMNIGRAPH_TEST_S3_URI=$OMNIGRAPH_TEST_S3_URI"
}

servers_stop() {
  if [ -n "${RGW_DIR:-}" ]; then
    bash "$_servers_root/scripts/stop-rgw.sh" || true
  fi
}
