# Shared by the CLI tests that need an omnigraph-server: source it after setting DIR (a temporary
# folder the caller removes) and defining fail().
#
#   start_server SERVER GRAPH TOKENS_JSON WRITERS
# starts SERVER on GRAPH on a free loopback port with those bearer tokens and write grants, waits
# for its "listening on" line (at most 30 s; fails at once if it exits), and sets SPID and URL.
# The caller's EXIT trap kills "$SPID".
start_server() {
  local server=$1 graph=$2 tokens=$3 writers=$4
  OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=$tokens \
    "$server" "$graph" --bind 127.0.0.1:0 --allow-writes "$writers" \
    >"$DIR/server.out" 2>"$DIR/server.err" &
  SPID=$!
  for _ in $(seq 1 300); do
    grep -q 'listening on http://' "$DIR/server.out" && break
    kill -0 "$SPID" 2>/dev/null || fail "the server did not start: $(cat "$DIR/server.err")"
    sleep 0.1
  done
  URL=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$DIR/server.out")
  [ -n "$URL" ] || fail "no listening line: $(cat "$DIR/server.out")"
}
