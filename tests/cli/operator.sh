#!/usr/bin/env bash
# The operator's config end to end (docs/design/operator-config.md): $OMNIGRAPH_HOME/config.yaml
# and credentials against a real omnigraph-server that requires a token. Scope precedence (flag >
# profile > defaults), named servers, login/logout (mode 0600, stdin), the keyed-token rule, the
# actor cascade (--as > operator.actor), aliases (read-only), output defaults and table layout,
# cluster scopes, and secrets never echoed.
#
#   operator.sh OMNIGRAPH OMNIGRAPH_SERVER
set -u
BIN=$1
SERVER=$2
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset OMNIGRAPH_BEARER_TOKEN OMNIGRAPH_PROFILE
export OMNIGRAPH_HOME=$DIR/home
omnigraph() { "$BIN" "$@"; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err") $(cat "$DIR/out")"; }
json() { python3 -c "import json,sys; d=json.load(open('$DIR/out')); print($1)"; }
SECRET=tok-0p3rator-s3cret

cat >"$DIR/s.pg" <<'EOF'
node Item { id: String @key  note: String? }
EOF
cat >"$DIR/q.gq" <<'EOF'
query items() {
  match { $i: Item }
  return { $i.id, $i.note }
  order { $i.id asc }
}
query item($id: String) {
  match { $i: Item { id: $id } }
  return { $i.id, $i.note }
}
query add_item($id: String) {
  insert Item { id: $id, note: "added" }
}
EOF
G=$DIR/g.omni
omnigraph --quiet init --schema "$DIR/s.pg" "$G" >/dev/null || fail "init"
printf '%s\n' '{"type":"Item","data":{"id":"i1","note":"a fairly long note to cut"}}' \
  '{"type":"Item","data":{"id":"i2","note":"short"}}' >"$DIR/seed.jsonl"
omnigraph --quiet load --data "$DIR/seed.jsonl" --mode overwrite "$G" >/dev/null || fail "load"

# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
OMNIGRAPH_SERVER_BEARER_TOKENS_JSON="{\"act-op\":\"$SECRET\"}" launch_server "$SERVER" "$G" \
  --graph-id g --queries "$DIR/q.gq" --allow-writes act-op

# No config: nothing changes (a direct query by URI).
expect_rc 0 omnigraph query --query "$DIR/q.gq" items "$G" --format json
[ "$(json 'len(d["rows"])')" = 2 ] || fail "direct query without a config"

mkdir -p "$OMNIGRAPH_HOME"
cat >"$OMNIGRAPH_HOME/config.yaml" <<EOF
operator:
  actor: act-op
servers:
  dev:
    url: $URL
defaults:
  server: dev
  default_graph: g
profiles:
  local: { store: $G }
  brain: { cluster: $DIR/cluster, default_graph: c1 }
  ghost: { server: nowhere }
aliases:
  note:
    server: dev
    graph: g
    query: item
    args: [id]
    format: json
  adder:
    server: dev
    graph: g
    query: add_item
    args: [id]
EOF

# The default scope is the server dev, which wants a token: none yet.
expect_rc 1 omnigraph query items --format json
grep -qi 'unauth\|401\|token' "$DIR/err" || fail "no token: $(cat "$DIR/err")"

# login: from stdin, mode 0600, the token never echoed; an unknown server is refused.
echo "$SECRET" | omnigraph login dev >"$DIR/out" 2>"$DIR/err" || fail "login: $(cat "$DIR/err")"
[ "$(stat -c %a "$OMNIGRAPH_HOME/credentials")" = 600 ] || fail "credentials mode"
grep -q "$SECRET" "$DIR/out" "$DIR/err" && fail "login echoed the token"
expect_rc 1 omnigraph login prod --token "$SECRET"
grep -q "$SECRET" "$DIR/err" && fail "a login error echoed the token"

# Now the default scope answers: the stored query through dev, graph g, equal to direct.
expect_rc 0 omnigraph query items --format json
python3 -c "import json; print(json.load(open('$DIR/out'))['rows'])" >"$DIR/served.rows"
omnigraph query --query "$DIR/q.gq" items "$G" --format json >"$DIR/out" 2>/dev/null
python3 -c "import json; print(json.load(open('$DIR/out'))['rows'])" >"$DIR/direct.rows"
cmp -s "$DIR/served.rows" "$DIR/direct.rows" || fail "served rows differ from direct"

# A keyed token goes only to its own server: the same port under another host name gets none.
expect_rc 1 omnigraph query items --server "http://localhost:$PORT" --graph g
# $OMNIGRAPH_TOKEN_DEV wins over the credentials file.
OMNIGRAPH_TOKEN_DEV=wrong "$BIN" query items >/dev/null 2>&1 && fail "the env token did not win"
# --server NAME resolves; an unknown name lists the known ones.
expect_rc 0 omnigraph query items --server dev --graph g --format json
expect_rc 1 omnigraph query items --server nope
grep -q "no server 'nope'.*servers: dev" "$DIR/err" || fail "unknown server: $(cat "$DIR/err")"

# Profiles: flag > $OMNIGRAPH_PROFILE > defaults; an explicit address beats them all.
expect_rc 0 omnigraph --profile local query --query "$DIR/q.gq" items --format json
[ "$(json 'len(d["rows"])')" = 2 ] || fail "--profile local"
OMNIGRAPH_PROFILE=local "$BIN" query --query "$DIR/q.gq" items --format json >"$DIR/out" 2>&1 ||
  fail "OMNIGRAPH_PROFILE=local: $(cat "$DIR/out")"
expect_rc 1 omnigraph --profile nope query items
grep -q "no profile 'nope'.*profiles: brain, ghost, local" "$DIR/err" || fail "unknown profile: $(cat "$DIR/err")"
expect_rc 1 omnigraph --profile brain export
grep -q 'cluster scope reaches optimize' "$DIR/err" || fail "cluster profile on a data verb: $(cat "$DIR/err")"
expect_rc 0 omnigraph profile list --json
[ "$(json '[p["name"] for p in d["profiles"] if not p["valid"]]')" = "['ghost']" ] ||
  fail "profile list: $(cat "$DIR/out")"
expect_rc 0 omnigraph profile show
grep -q "defaults  server dev ($URL)  graph g" "$DIR/out" || fail "profile show: $(cat "$DIR/out")"
expect_rc 0 omnigraph profile show --json
[ "$(json 'd["token"]')" = stored ] || fail "profile show token: $(cat "$DIR/out")"
grep -q "$SECRET" "$DIR/out" && fail "profile show printed the token"

# The actor cascade on direct writes: operator.actor, and --as over it.
expect_rc 0 omnigraph --profile local mutate --query "$DIR/q.gq" add_item --params '{"id":"i3"}' --json
[ "$(json 'd["commit"]["actor_id"]')" = act-op ] || fail "operator.actor: $(cat "$DIR/out")"
expect_rc 0 omnigraph mutate --query "$DIR/q.gq" add_item --params '{"id":"i4"}' --as someone "$G" --json
[ "$(json 'd["commit"]["actor_id"]')" = someone ] || fail "--as over operator.actor: $(cat "$DIR/out")"

# Aliases: a stored read on the named server; positional args bind in order; never a mutation.
expect_rc 0 omnigraph alias note i2
[ "$(json 'd["rows"][0]["i.note"]')" = short ] || fail "alias note: $(cat "$DIR/out")"
expect_rc 1 omnigraph alias adder i9
grep -q 'read-only' "$DIR/err" || fail "alias of a mutation: $(cat "$DIR/err")"
expect_rc 1 omnigraph alias nope
grep -q "no alias 'nope'.*aliases: adder, note" "$DIR/err" || fail "unknown alias: $(cat "$DIR/err")"

# Output defaults and the table layout.
python3 - "$OMNIGRAPH_HOME/config.yaml" <<'EOF'
import sys
p = sys.argv[1]
s = open(p).read().replace("  default_graph: g\n", "  default_graph: g\n  output: table\n"
                           "  table_max_column_width: 10\n  table_cell_layout: truncate\n", 1)
open(p, "w").write(s)
EOF
expect_rc 0 omnigraph --profile local query --query "$DIR/q.gq" items
grep -q 'a fairly …' "$DIR/out" || fail "truncated cell: $(cat "$DIR/out")"
sed -i 's/table_cell_layout: truncate/table_cell_layout: wrap/' "$OMNIGRAPH_HOME/config.yaml"
expect_rc 0 omnigraph --profile local query --query "$DIR/q.gq" items
grep -q '^      ong note t' "$DIR/out" || fail "wrapped cell: $(cat "$DIR/out")"
sed -i 's/output: table/output: json/' "$OMNIGRAPH_HOME/config.yaml"
expect_rc 0 omnigraph --profile local query --query "$DIR/q.gq" items
[ "$(json 'len(d["rows"])')" = 4 ] || fail "defaults.output json: $(cat "$DIR/out")"

# Cluster scope: a profile bound to a cluster reaches repair for its default graph.
mkdir -p "$DIR/cluster"
cp "$DIR/s.pg" "$DIR/cluster/s.pg"
printf 'version: 1\nmetadata:\n  name: c\ngraphs:\n  c1:\n    schema: s.pg\n' >"$DIR/cluster/cluster.yaml"
omnigraph cluster import --config "$DIR/cluster" >/dev/null 2>&1 || fail "cluster import"
omnigraph cluster apply --config "$DIR/cluster" >/dev/null 2>&1 || fail "cluster apply"
expect_rc 0 omnigraph --profile brain repair --json
[ "$(json 'len(d["defects"])')" = 0 ] || fail "repair through a cluster profile: $(cat "$DIR/out")"

# Secrets: a token in config.yaml is refused without being echoed; a world-readable credentials
# file is refused; --help shows no token.
cp "$OMNIGRAPH_HOME/config.yaml" "$DIR/config.good"
printf 'servers:\n  leak:\n    url: http://x\n    token: %s\n' "$SECRET" >"$OMNIGRAPH_HOME/config.yaml"
expect_rc 1 omnigraph query items
grep -q 'config.yaml:3: servers.leak: holds a secret' "$DIR/err" || fail "token in config: $(cat "$DIR/err")"
grep -q "$SECRET" "$DIR/err" && fail "the config error echoed the token"
cp "$DIR/config.good" "$OMNIGRAPH_HOME/config.yaml"
chmod 644 "$OMNIGRAPH_HOME/credentials"
expect_rc 1 omnigraph query items
grep -q 'may be read by others' "$DIR/err" || fail "readable credentials: $(cat "$DIR/err")"
chmod 600 "$OMNIGRAPH_HOME/credentials"
omnigraph --help 2>&1 | grep -q "$SECRET" && fail "--help shows the token"
# Malformed YAML names the file and line; an unknown key warns and loads.
printf 'servers:\n  dev: [\n' >"$OMNIGRAPH_HOME/config.yaml"
expect_rc 1 omnigraph query items
grep -q 'config.yaml:[0-9]*: not valid YAML' "$DIR/err" || fail "bad YAML: $(cat "$DIR/err")"
{ cat "$DIR/config.good"; echo 'future_key: 1'; } >"$OMNIGRAPH_HOME/config.yaml"
expect_rc 0 omnigraph --profile local query --query "$DIR/q.gq" items
grep -q 'unknown key future_key' "$DIR/err" || fail "unknown key warning: $(cat "$DIR/err")"

# logout removes the token (twice is fine); the default scope is then refused again.
expect_rc 0 omnigraph logout dev
expect_rc 0 omnigraph logout dev
grep -q '^\[dev\]' "$OMNIGRAPH_HOME/credentials" && fail "logout left the token"
expect_rc 1 omnigraph query items
echo "operator.sh: ok"
