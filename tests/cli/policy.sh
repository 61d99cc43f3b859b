#!/usr/bin/env bash
# omnigraph policy validate | test | explain, and a bundle enforced on a store with --policy
# --as (docs/design/policy.md "CLI"): the industry-intel cookbook's bundles and its README's
# answers, a tests file (passing and failing), bad bundles (exit 1, one line naming file, rule
# and key), and writes through the gate: refused ones change nothing.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
POL=$HERE/../../../shared/fixtures/cookbooks/industry-intel/policies
[ -f "$POL/intel.policy.yaml" ] || fail "fixture missing: $POL/intel.policy.yaml"
INTEL=(--policy "$POL/intel.policy.yaml" --applies-to spike)
SERVER=(--policy "$POL/server.policy.yaml" --applies-to cluster)

# validate: the human line and the JSON summary.
out=$("$BIN" policy validate "${INTEL[@]}") || fail "validate intel: $out"
[ "$out" = "policy $POL/intel.policy.yaml is valid: graph bundle, 3 rules, 2 groups, 2 actors" ] \
  || fail "validate line: $out"
"$BIN" policy validate "${SERVER[@]}" --json >"$DIR/v.json" || fail "validate server --json"
python3 - "$DIR/v.json" <<'PY' || fail "validate --json: $(cat "$DIR/v.json")"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["valid"] is True and v["kind"] == "server", v
assert v["applies_to"] == ["cluster"] and v["rules"] == ["admin-graph-list"], v
assert v["actors"] == ["act-admin"], v
PY

# explain: the README's answers, decision by decision.
expect() {  # expect allow|deny ARGS...
  local want=$1; shift
  local got; got=$("$BIN" policy explain "$@" --json) || fail "explain $*: $got"
  echo "$got" | grep -q "\"decision\": \"$want\"" || fail "explain $*: want $want, got $got"
}
expect allow "${SERVER[@]}" --actor act-admin --action graph_list
expect deny "${SERVER[@]}" --actor act-reader --action graph_list
expect allow "${INTEL[@]}" --actor act-reader --action invoke_query
expect allow "${INTEL[@]}" --actor act-reader --action read --branch main
expect deny "${INTEL[@]}" --actor act-reader --action change --branch main
expect allow "${INTEL[@]}" --actor act-analyst --action change --branch main
expect deny "${INTEL[@]}" --actor act-analyst --action schema_apply --target-branch main
expect deny "${INTEL[@]}" --graph other --actor act-reader --action read --branch main
out=$("$BIN" policy explain "${INTEL[@]}" --actor act-analyst --action change --branch main)
[ "$out" = "allow: rule 'analyst-writes' allows 'act-analyst' 'change' on branch 'main'" ] \
  || fail "explain line: $out"
out=$("$BIN" policy explain "${INTEL[@]}" --actor act-reader --action change --branch main)
[ "$out" = "deny: no rule allows 'act-reader' 'change' on branch 'main' (default deny)" ] \
  || fail "explain deny line: $out"

# Per-query scope: invoke_query limited to named stored queries.
cat >"$DIR/q.policy.yaml" <<'YAML'
version: 1
groups: {readers: [act-reader]}
rules:
  - id: read-queries
    allow:
      actors: { group: readers }
      actions: [invoke_query]
      queries: [get_signal]
YAML
expect allow --policy "$DIR/q.policy.yaml" --actor act-reader --action invoke_query --query get_signal
expect deny --policy "$DIR/q.policy.yaml" --actor act-reader --action invoke_query --query add_signal
expect deny --policy "$DIR/q.policy.yaml" --actor act-reader --action invoke_query

# test: a passing file, then one case that fails (exit 1, FAIL line).
cat >"$DIR/intel.tests.yaml" <<'YAML'
version: 1
cases:
  - id: reader-invokes
    actor: act-reader
    action: invoke_query
    expect: allow
  - id: reader-cannot-write
    actor: act-reader
    action: change
    branch: main
    expect: deny
  - id: analyst-writes
    actor: act-analyst
    action: change
    branch: feature
    expect: allow
    rule: analyst-writes
  - id: nobody-merges
    actor: act-analyst
    action: branch_merge
    branch: feature
    target_branch: main
    expect: deny
YAML
out=$("$BIN" policy test "${INTEL[@]}" --tests "$DIR/intel.tests.yaml") || fail "policy test: $out"
echo "$out" | tail -1 | grep -qx "4 passed, 0 failed" || fail "policy test summary: $out"
echo "$out" | grep -q "^PASS nobody-merges (no rule allows" || fail "policy test lines: $out"
sed 's/expect: deny/expect: allow/' "$DIR/intel.tests.yaml" >"$DIR/wrong.tests.yaml"
out=$("$BIN" policy test "${INTEL[@]}" --tests "$DIR/wrong.tests.yaml"); rc=$?
[ "$rc" = 1 ] || fail "a failing tests file exited $rc"
echo "$out" | grep -q "^FAIL reader-cannot-write: expected allow, got deny" || fail "FAIL line: $out"
echo "$out" | tail -1 | grep -qx "2 passed, 2 failed" || fail "failing summary: $out"

# Bad bundles: exit 1, one line on stderr naming the file, the rule and the key.
bad() {  # bad 'WORDS' YAML
  printf '%s' "$2" >"$DIR/bad.policy.yaml"
  "$BIN" policy validate --policy "$DIR/bad.policy.yaml" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = 1 ] || fail "bad bundle exited $rc: $2"
  [ "$(wc -l <"$DIR/err")" = 1 ] || fail "want one line: $(cat "$DIR/err")"
  [ -s "$DIR/out" ] && fail "bad bundle printed: $(cat "$DIR/out")"
  local IFS='|'
  for w in $1; do grep -qF -- "$w" "$DIR/err" || fail "error lacks '$w': $(cat "$DIR/err")"; done
}
bad "bad.policy.yaml|rule 'r'|key 'allow.actions'|unknown action 'write'" \
  $'version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n      actions: [write]\n'
bad "bad.policy.yaml:|malformed YAML" $'version: 1\nrules: [\n'
bad "bad.policy.yaml|unknown key 'effect'" $'version: 1\neffect: permit\n'
bad "rule 'r'|takes no branch scope" \
  $'version: 1\ngroups: {g: [a]}\nrules:\n  - id: r\n    allow:\n      actors: {group: g}\n      actions: [invoke_query]\n      branch_scope: any\n'
"$BIN" policy validate "${INTEL[@]/spike/cluster}" >/dev/null 2>"$DIR/err" \
  && fail "a graph bundle bound to cluster was accepted"
grep -q "applies to cluster" "$DIR/err" || fail "binding error: $(cat "$DIR/err")"

# Enforced on a store: a refused write exits 1 naming the rule and changes nothing.
cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key }
PG
G=$DIR/g
"$BIN" init --schema "$DIR/s.pg" "$G" >/dev/null 2>&1 || fail init
"$BIN" branch create --from main feature "$G" >/dev/null 2>&1 || fail "branch create"
printf '{"type":"Person","data":{"name":"Ada"}}\n' >"$DIR/ada.jsonl"
state() { (cd "$G" && find . -type f | sort | xargs -r md5sum); }
before=$(state)
"$BIN" --quiet "${INTEL[@]}" --as act-reader load --data "$DIR/ada.jsonl" --mode append --branch feature "$G" \
  >"$DIR/out" 2>"$DIR/err" && fail "a reader's load was accepted"
grep -q "permission denied: no rule allows 'act-reader' 'change' on branch 'feature'" "$DIR/err" \
  || fail "refused load: $(cat "$DIR/err")"
"$BIN" --quiet "${INTEL[@]}" load --data "$DIR/ada.jsonl" --mode append --branch feature "$G" \
  >"$DIR/out" 2>"$DIR/err" && fail "a load without --as was accepted"
grep -q "no actor" "$DIR/err" || fail "no actor: $(cat "$DIR/err")"
"$BIN" --quiet "${INTEL[@]}" --as act-analyst branch create --from main b2 "$G" \
  >"$DIR/out" 2>"$DIR/err" && fail "an analyst's branch create was accepted"
[ "$before" = "$(state)" ] || fail "refused writes changed the graph"
"$BIN" --quiet "${INTEL[@]}" --as act-analyst load --data "$DIR/ada.jsonl" --mode append --branch feature "$G" \
  >"$DIR/out" 2>"$DIR/err" || fail "an analyst's load: $(cat "$DIR/err")"
"$BIN" "${INTEL[@]}" --as act-reader commit list --branch feature "$G" --json >"$DIR/c.json" \
  || fail "a reader's commit list"
grep -q '"actor_id": "act-analyst"' "$DIR/c.json" || fail "the analyst's commit: $(cat "$DIR/c.json")"
"$BIN" "${INTEL[@]}" --as act-nobody commit list "$G" >/dev/null 2>&1 \
  && fail "an unknown actor's read was accepted"
# Per-type authority on the store: an agent may change Signal only; the mutate door's branch
# statements need their branch action; explain --type asks about types.
cat >"$DIR/t.pg" <<'PG'
node Person { name: String @key }
node Signal { slug: String @key }
PG
cat >"$DIR/t.policy.yaml" <<'YAML'
version: 1
groups: {agents: [agent-1]}
rules:
  - id: agents-signals
    allow:
      actors: { group: agents }
      actions: [read, change]
      types: [Signal]
YAML
TP=(--policy "$DIR/t.policy.yaml")
expect allow "${TP[@]}" --actor agent-1 --action change --branch main --type Signal
expect deny "${TP[@]}" --actor agent-1 --action change --branch main --type Signal --type Person
expect deny "${TP[@]}" --actor agent-1 --action change --branch main
T=$DIR/t
"$BIN" init --schema "$DIR/t.pg" "$T" >/dev/null 2>&1 || fail "init typed"
tstate() { (cd "$T" && find . -type f | sort | xargs -r md5sum); }
printf '{"type":"Signal","data":{"slug":"s1"}}\n{"type":"Person","data":{"name":"Bo"}}\n' >"$DIR/mixed.jsonl"
printf '{"type":"Signal","data":{"slug":"s1"}}\n' >"$DIR/signal.jsonl"
before=$(tstate)
"$BIN" --quiet "${TP[@]}" --as agent-1 load --data "$DIR/mixed.jsonl" --mode append "$T" \
  >"$DIR/out" 2>"$DIR/err" && fail "a load of Person by a Signal-only agent was accepted"
grep -q "permission denied: .*of type 'Person'.*(input line 2)" "$DIR/err" \
  || fail "typed refusal: $(cat "$DIR/err")"
"$BIN" --quiet "${TP[@]}" --as agent-1 mutate -e 'query a() { insert Person { name: "X" } }' "$T" \
  >"$DIR/out" 2>"$DIR/err" && fail "a Person insert by a Signal-only agent was accepted"
"$BIN" --quiet "${TP[@]}" --as agent-1 mutate -e 'branch create sneaky' "$T" \
  >"$DIR/out" 2>"$DIR/err" && fail "a branch statement passed on change alone"
grep -q "'branch_create'" "$DIR/err" || fail "branch statement refusal: $(cat "$DIR/err")"
[ "$before" = "$(tstate)" ] || fail "refused typed writes changed the graph"
"$BIN" --quiet "${TP[@]}" --as agent-1 load --data "$DIR/signal.jsonl" --mode append "$T" \
  >"$DIR/out" 2>"$DIR/err" || fail "a Signal load: $(cat "$DIR/err")"
# A merge the bundle allows with a branch delete it does not: the merge lands, the branch stays,
# and OmniGraph's warning names the branch (exit 0).
M=$DIR/m
"$BIN" init --schema "$DIR/s.pg" "$M" >/dev/null 2>&1 || fail "init m"
"$BIN" branch create --from main side "$M" >/dev/null 2>&1 || fail "branch create side"
printf 'version: 1\ngroups: {m: [merger]}\nrules:\n  - id: merge-only\n    allow:\n      actors: {group: m}\n      actions: [read, change, branch_merge]\n' \
  >"$DIR/merge-only.policy.yaml"
"$BIN" --quiet --policy "$DIR/merge-only.policy.yaml" --as merger \
  mutate -e 'query a() { insert Person { name: "Side" } }' --branch side "$M" >/dev/null 2>"$DIR/err" \
  || fail "a change on side: $(cat "$DIR/err")"
"$BIN" --quiet --policy "$DIR/merge-only.policy.yaml" --as merger \
  branch merge side --delete-branch --json "$M" >"$DIR/out" 2>"$DIR/err" \
  || fail "merge without delete: $(cat "$DIR/err")"
grep -q "^warning: merged, but could not delete branch 'side': .*branch_delete" "$DIR/err" \
  || fail "the delete's warning: $(cat "$DIR/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["outcome"] == "fast_forward" and d["branch_deleted"] is False and "branch_delete_error" in d, d' "$DIR/out" \
  || fail "merge envelope: $(cat "$DIR/out")"
"$BIN" branch list "$M" | grep -qx 'side' || fail "side was deleted"
echo "policy: ok"
