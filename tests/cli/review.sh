#!/usr/bin/env bash
# The review verbs (docs/design/diff.md): `diff FROM TO` between two branches, from a commit, in
# both directions, paged and filtered; `branch merge --dry-run` for a clean branch (fast-forward,
# then merged) and a conflicting one, publishing nothing; and their refusals. Each check reads the
# JSON envelope; the human forms are checked for their lines. The differential layer runs this
# suite through a server too.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"; }
check() {
  python3 - "$1" "$DIR/out" <<'PY' || fail "check '$1' on: $(cat "$DIR/out")"
import json, sys
d = json.load(open(sys.argv[2]))
sys.exit(0 if eval(sys.argv[1]) else 1)
PY
}
has() { grep -qF -- "$1" "$DIR/out" || fail "stdout lacks '$1': $(cat "$DIR/out")"; }
head_of() { "$BIN" commit list --branch "$1" --limit 1 --json "$G" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["commits"][0]["graph_commit_id"])'; }

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
cat >"$DIR/seed.jsonl" <<'JSONL'
{"type":"Person","data":{"name":"Ada","age":36}}
{"type":"Person","data":{"name":"Bob","age":41}}
{"type":"Company","data":{"name":"Acme"}}
JSONL
AGE='query age($n: String, $a: I32) { update Person set { age: $a } where name = $n }'
ADD='query add($n: String, $a: I32) { insert Person { name: $n, age: $a } }'
G=$DIR/g
expect_rc 0 "$BIN" init --schema "$DIR/s.pg" "$G"
expect_rc 0 "$BIN" load --data "$DIR/seed.jsonl" --mode append "$G"
SEEDED=$(head_of main)
# clean: an agent's branch that adds Cy and hires Ada; conflict: it ages Ada to 40.
expect_rc 0 "$BIN" branch create clean "$G"
expect_rc 0 "$BIN" mutate -e "$ADD" --params '{"n":"Cy","a":30}' --branch clean "$G"
expect_rc 0 "$BIN" mutate -e 'query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }' \
  --params '{"p":"Ada","c":"Acme"}' --branch clean "$G"
expect_rc 0 "$BIN" branch create conflict "$G"
expect_rc 0 "$BIN" mutate -e "$AGE" --params '{"n":"Ada","a":40}' --branch conflict "$G"

# The diff of two branch heads: per type counts and every change, images included.
expect_rc 0 "$BIN" diff main clean --json "$G"
check 'd["from"]["branch"] == "main" and d["to"]["branch"] == "clean"'
check '[(c["op"], c["type"]["name"], c["id"]) for c in d["changes"]][0] == ("insert", "Person", "Cy")'
check 'len(d["changes"]) == 2 and d["changes"][1]["after"]["endpoints"] == {"from": "Ada", "to": "Acme"}'
check '[(t["type"]["name"], t["inserted"], t["updated"], t["deleted"]) for t in d["types"]] == [("Person", 1, 0, 0), ("WorksAt", 1, 0, 0)]'
check '"next_page_token" not in d'
expect_rc 0 "$BIN" diff main conflict "$G"
has '  node Person  +0 ~1 -0'
has '~ node Person Ada: age 36 → 40'
# The other way round, an update undone.
expect_rc 0 "$BIN" diff conflict main --json "$G"
check 'd["changes"][0]["before"]["properties"]["age"] == 40 and d["changes"][0]["after"]["properties"]["age"] == 36'
# Pages of one change, filters.
expect_rc 0 "$BIN" diff main clean --limit 1 --json "$G"
check 'len(d["changes"]) == 1 and "next_page_token" in d'
TOKEN=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["next_page_token"])' "$DIR/out")
expect_rc 0 "$BIN" diff main clean --limit 1 --page-token "$TOKEN" --json "$G"
check 'len(d["changes"]) == 1 and d["changes"][0]["kind"] == "edge" and "next_page_token" not in d'
expect_rc 1 "$BIN" diff main conflict --page-token "$TOKEN" "$G"
grep -q 'is of diff' "$DIR/err" || fail "another diff's token: $(cat "$DIR/err")"
expect_rc 0 "$BIN" diff main clean --kind edge --json "$G"
check 'len(d["changes"]) == 1 and d["changes"][0]["type"]["name"] == "WorksAt"'
# Each filter repeats: both kinds are every change; two ops keep either.
expect_rc 0 "$BIN" diff main clean --kind edge --kind node --op update --op insert --json "$G"
check 'len(d["changes"]) == 2'
expect_rc 0 "$BIN" diff main clean --op update --op delete --json "$G"
check 'd["changes"] == []'
# A commit as a side: from the seed to main (nothing since), and to a branch.
expect_rc 0 "$BIN" diff --from-snapshot "$SEEDED" main --json "$G"
check 'd["changes"] == [] and d["from"] == {"graph_commit_id": "'"$SEEDED"'"}'
expect_rc 0 "$BIN" diff --from-snapshot "$SEEDED" --to-snapshot "$(head_of conflict)" --json "$G"
check 'len(d["changes"]) == 1 and d["changes"][0]["id"] == "Ada"'
# Refusals: a missing side, an unknown branch.
expect_rc 1 "$BIN" diff main "$G"
grep -q 'diff takes 2 branch name' "$DIR/err" || fail "one side: $(cat "$DIR/err")"
expect_rc 1 "$BIN" diff main nope "$G"
grep -q 'branch_not_found' "$DIR/err" || fail "unknown branch: $(cat "$DIR/err")"

# The dry run: a clean branch fast-forwards, publishing nothing.
MAIN=$(head_of main)
expect_rc 0 "$BIN" branch merge clean --dry-run --json "$G"
check 'd["dry_run"] and d["outcome"] == "fast_forward" and d["conflicts"] == []'
check 'd["source_ahead"] == 2 and d["target_ahead"] == 0 and d["base_commit_id"] == "'"$MAIN"'"'
[ "$(head_of main)" = "$MAIN" ] || fail "a dry run published"
# Once main moves, the same branch would merge three-way; the conflicting one would conflict.
expect_rc 0 "$BIN" mutate -e "$AGE" --params '{"n":"Ada","a":37}' "$G"
expect_rc 0 "$BIN" branch merge clean --dry-run "$G"
has 'would be merged'
has '(2 ahead)'
has '(1 ahead)'
expect_rc 0 "$BIN" branch merge conflict --dry-run --json "$G"
check 'd["outcome"] == "conflicts" and [(c["kind"], c["entity_id"]) for c in d["conflicts"]] == [("divergent_update", "Ada")]'
expect_rc 0 "$BIN" branch merge conflict --dry-run "$G"
has 'would conflict'
has "  divergent_update: Person 'Ada': updated on both sides differently"
MAIN=$(head_of main)
[ "$(head_of conflict)" != "$MAIN" ] || fail "heads"
expect_rc 1 "$BIN" branch merge conflict --dry-run --delete-branch "$G"
expect_rc 1 "$BIN" branch merge nope --dry-run "$G"
grep -q 'branch_not_found' "$DIR/err" || fail "unknown source: $(cat "$DIR/err")"
# The merge itself agrees with its preview, and a preview after it is up to date.
expect_rc 0 "$BIN" branch merge clean --json "$G"
check 'd["outcome"] == "merged"'
expect_rc 0 "$BIN" branch merge clean --dry-run --json "$G"
check 'd["outcome"] == "already_up_to_date" and d["source_ahead"] == 0'
expect_rc 1 "$BIN" branch merge conflict "$G"
echo OK
