# Test servers for the `integration` label, sourced by scripts/test.sh (which calls servers_start
# before ctest and servers_stop on exit): Ceph RGW for the S3 backend (docs/design/s3.md) and
# Azurite for the Azure backend (docs/design/azure.md).
#
#   source scripts/servers.sh && servers_start   # exports OMNIGRAPH_TEST_S3_URI and AWS_*
#                                                # (AWS_ALLOW_HTTP=true among them),
#                                                # OMNIGRAPH_TEST_AZURE_URI and AZURE_*
#   servers_stop                                 # stops what servers_start started, by saved PIDs
#
# Tunables: RGW_DIR (state dir, default /tmp/omnigraph-rgw), RGW_PORT (default 7480),
# RGW_MON_PORT (default 13300), RGW_BUCKET (default omnigraph-test); AZURITE_DIR (default
# /tmp/omnigraph-azurite), AZURITE_PORT (default 10000), AZURITE_CONTAINER (default
# omnigraph-test). See scripts/start-rgw.sh and scripts/start-azurite.sh.

_servers_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

servers_start() {
  export RGW_DIR=${RGW_DIR:-/tmp/omnigraph-rgw}
  export RGW_BUCKET=${RGW_BUCKET:-omnigraph-test}
  export AZURITE_DIR=${AZURITE_DIR:-/tmp/omnigraph-azurite}
  export AZURITE_CONTAINER=${AZURITE_CONTAINER:-omnigraph-test}
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
  start=$(date +%s)
  # start-azurite.sh always passes --disableTelemetry (Azurite otherwise tries the internet).
  if ! exports=$(bash "$_servers_root/scripts/start-azurite.sh"); then
    echo "servers: Azurite did not start; its log is $AZURITE_DIR/azurite.log" >&2
    return 1
  fi
  eval "$exports"
  export OMNIGRAPH_TEST_AZURE_URI="az://$AZURITE_CONTAINER/tests"
  echo "servers: Azurite on $AZURE_BLOB_ENDPOINT after $(( $(date +%s) - start )) s;" \
    "OMNIGRAPH_TEST_AZURE_URI=$OMNIGRAPH_TEST_AZURE_URI"
}

servers_stop() {
  if [ -n "${RGW_DIR:-}" ]; then
    bash "$_servers_root/scripts/stop-rgw.sh" || true
  fi
  if [ -n "${AZURITE_DIR:-}" ]; then
    bash "$_servers_root/scripts/stop-azurite.sh" || true
  fi
}
