#!/usr/bin/env bash
# `commit show` of a group commit (docs/design/engine.md "Group commit"): writes that meet on one
# server share a record, and `commit show` (human and --json) lists its members in order with
# their actor, idempotency key and own counts; a record of one write lists none. Concurrent
# mutations go through one omnigraph-server in rounds until a round forms a batch. Starts a
# server: label integration.
set -u
BIN=$1
SERVER=$2
DIR=$(mktemp -d)
SPID=
trap '[ -n "$SPID" ] && kill "$SPID" 2>/dev/null; wait 2>/dev/null; rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=tests/cli/lib.sh
. "$(dirname "$0")/lib.sh"
unset OMNIGRAPH_BEARER_TOKEN
# Rounds of concurrent writes before giving up on seeing a batch.
ROUNDS_MAX=20
WRITERS=12

echo 'node Fact { key: String @key  value: I32? }' >"$DIR/s.pg"
ADD='query add($k: String) { insert Fact { key: $k } }'
G=$DIR/g
"$BIN" --quiet init --schema "$DIR/s.pg" "$G" >/dev/null || fail "init"
start_server "$SERVER" "$G" '{"ana":"tok-ana","bo":"tok-bo"}' ana,bo
remote() { "$BIN" --server "$URL" "$@"; }

# A write alone: its record has no members.
remote --token tok-ana mutate -e "$ADD" --params '{"k":"solo"}' --json >"$DIR/solo.json" ||
  fail "solo write: $(cat "$DIR/solo.json")"
SOLO=$(remote --token tok-ana commit list --json |
  python3 -c "import json,sys; print(json.load(sys.stdin)['commits'][0]['graph_commit_id'])")
remote --token tok-ana commit show "$SOLO" --json >"$DIR/solo-show.json" || fail "show solo"
python3 -c "import json,sys; sys.exit('members' in json.load(open(sys.argv[1])))" \
  "$DIR/solo-show.json" || fail "a single write's record lists members: $(cat "$DIR/solo-show.json")"
remote --token tok-ana commit show "$SOLO" >"$DIR/solo-show.txt" || fail "show solo (human)"
grep -q '^members' "$DIR/solo-show.txt" && fail "a single write shows members: $(cat "$DIR/solo-show.txt")"

# Rounds of concurrent writes (every other one by bo, every third keyed) until one record holds
# several of them.
BATCH=
for round in $(seq 1 "$ROUNDS_MAX"); do
  pids=()
  for w in $(seq 1 "$WRITERS"); do
    token=tok-ana
    [ $((w % 2)) = 0 ] && token=tok-bo
    key=()
    [ $((w % 3)) = 0 ] && key=(--idempotency-key "key-$round-$w")
    remote --token "$token" mutate -e "$ADD" --params "{\"k\":\"r$round-w$w\"}" "${key[@]}" \
      >"$DIR/w$w.out" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail "a write failed: $(cat "$DIR"/w*.out)"; done
  remote --token tok-ana commit list --limit 100 --json >"$DIR/list.json" || fail "commit list"
  for id in $(python3 -c "import json,sys; [print(c['graph_commit_id']) for c in json.load(open(sys.argv[1]))['commits']]" "$DIR/list.json"); do
    remote --token tok-ana commit show "$id" --json >"$DIR/show.json" || fail "show $id"
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1])).get('members', [])))" "$DIR/show.json")
    if [ "$n" -gt 1 ]; then BATCH=$id; break 2; fi
  done
done
[ -n "$BATCH" ] || fail "no batch formed in $ROUNDS_MAX rounds of $WRITERS concurrent writes"

# --json: every member has its actor (ana or bo) and its counts (one node each); the keyed ones
# their key; the members' counts sum to the record's inserted rows.
python3 - "$DIR/show.json" <<'PY' || fail "commit show --json members: $(cat "$DIR/show.json")"
import json, sys
c = json.load(open(sys.argv[1]))
members = c["members"]
assert len(members) > 1, members
for m in members:
    assert m["actor_id"] in ("ana", "bo"), m
    assert m["counts"] == {"affected_nodes": 1, "affected_edges": 0}, m
    if "idempotency_key" in m:
        assert m["idempotency_key"].startswith("key-"), m
inserted = sum(t["inserted"] for t in c["tables"])
assert inserted == len(members), (inserted, len(members))
PY
# Human: a members line with the count, then one line per member with actor, key and counts.
remote --token tok-ana commit show "$BATCH" >"$DIR/show.txt" || fail "show (human)"
N=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['members']))" "$DIR/show.json")
grep -q "^members  $N\$" "$DIR/show.txt" || fail "no 'members  $N' line: $(cat "$DIR/show.txt")"
[ "$(grep -cE '^  (ana|bo)  .*"affected_nodes":1' "$DIR/show.txt")" = "$N" ] ||
  fail "not one line per member: $(cat "$DIR/show.txt")"
python3 - "$DIR/show.json" "$DIR/show.txt" <<'PY' || fail "keys in the human form: $(cat "$DIR/show.txt")"
import json, sys
members = json.load(open(sys.argv[1]))["members"]
text = open(sys.argv[2]).read()
for m in members:
    if "idempotency_key" in m:
        assert "  key " + m["idempotency_key"] + "  " in text, m
PY
echo "PASS: commit show lists the $N members of $BATCH"
