# shellcheck shell=bash
# Shared by the CLI tests that need an omnigraph-server: source it after setting DIR (a temporary
# folder the caller removes) and defining fail().
#
#   launch_server SERVER ARG...
# starts SERVER with those arguments on a free loopback port (the caller's environment, e.g. a
# token map or OMNIGRAPH_UNAUTHENTICATED=1, as given before the call), waits for its "listening
# on" line (at most 30 s; fails at once if it exits), and sets SPID, URL and PORT. The caller's
# EXIT trap kills "$SPID".
#
#   start_server SERVER GRAPH TOKENS_JSON WRITERS
# launches SERVER on GRAPH with those bearer tokens and write grants.
launch_server() {
  local server=$1
  shift
  # Emptied here, not only by the background redirect: that one runs after the fork, so a
  # previous server's "listening on" line could be read (and then vanish) before it does.
  : >"$DIR/server.out"
  "$server" "$@" --bind 127.0.0.1:0 >"$DIR/server.out" 2>"$DIR/server.err" &
  SPID=$!
  for _ in $(seq 1 300); do
    grep -q 'listening on http://' "$DIR/server.out" && break
    kill -0 "$SPID" 2>/dev/null || fail "the server did not start: $(cat "$DIR/server.err")"
    sleep 0.1
  done
  URL=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$DIR/server.out")
  # shellcheck disable=SC2034  # for the caller
  PORT=${URL##*:}
  [ -n "$URL" ] || fail "no listening line: $(cat "$DIR/server.out")"
}

start_server() {
  local server=$1 graph=$2 tokens=$3 writers=$4
  OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=$tokens launch_server "$server" "$graph" \
    --allow-writes "$writers"
}
