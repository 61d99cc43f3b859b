#!/usr/bin/env bash
# The omnigraph command end to end on a local graph: init, load, mutate, history, branches,
# export, and the exit codes of errors (1) and a failed --if-commit (4).
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"; }

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company { since: Date? }
PG
cat >"$DIR/seed.jsonl" <<'JSONL'
{"type":"Person","data":{"name":"Ada","age":36}}
{"type":"Company","data":{"name":"Acme"}}
{"edge":"WorksAt","from":"Ada","to":"Acme","data":{"since":"2020-01-01"}}
JSONL
G=$DIR/g
expect_rc 0 "$BIN" init --schema "$DIR/s.pg" "$G"
expect_rc 1 "$BIN" init --schema "$DIR/s.pg" "$G"
grep -q 'already_initialized' "$DIR/err" || fail "second init: $(cat "$DIR/err")"
expect_rc 0 "$BIN" load --data "$DIR/seed.jsonl" --mode append --json "$G"
grep -q '"total_entities": 3' "$DIR/out" || fail "load output: $(cat "$DIR/out")"
grep -q 'omnigraph load → ' "$DIR/err" || fail "load echo: $(cat "$DIR/err")"
LOADED=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["commit"]["graph_commit_id"])' <"$DIR/out")
[ -n "$LOADED" ] || fail "no commit in load output"

expect_rc 0 "$BIN" mutate -e 'query add($n: String, $a: I32) { insert Person { name: $n, age: $a } }' \
  --params '{"n":"Grace","a":41}' --json "$G"
grep -q '"affected_nodes": 1' "$DIR/out" || fail "mutate output: $(cat "$DIR/out")"
# A stale --if-commit exits 4 and changes nothing.
expect_rc 4 "$BIN" mutate rm -e 'query rm($n: String) { delete Person where name = $n }' \
  --params '{"n":"Ada"}' --if-commit "$LOADED" "$G"
expect_rc 0 "$BIN" commit list --json "$G"
[ "$(grep -c graph_commit_id "$DIR/out")" = 3 ] || fail "commit list: $(cat "$DIR/out")"

expect_rc 0 "$BIN" branch create dev "$G"
expect_rc 0 "$BIN" mutate -e 'query rm($n: String) { delete Person where name = $n }' \
  --params '{"n":"Ada"}' --branch dev --json "$G"
grep -q '"affected_edges": 1' "$DIR/out" || fail "cascade: $(cat "$DIR/out")"
expect_rc 0 "$BIN" export "$G"
grep -q '"name":"Ada"' "$DIR/out" || fail "main lost Ada: $(cat "$DIR/out")"
expect_rc 0 "$BIN" export --branch dev "$G"
grep -q '"name":"Ada"' "$DIR/out" && fail "dev still has Ada"
expect_rc 0 "$BIN" branch list "$G"
[ "$(wc -l <"$DIR/out")" = 2 ] || fail "branch list: $(cat "$DIR/out")"
expect_rc 0 "$BIN" branch delete dev "$G"
# Branch statements run through mutate and query (docs/design/query-language.md).
expect_rc 0 "$BIN" mutate -e 'branch create "stmt/a"' --json "$G"
grep -q '"query_name": "branch create"' "$DIR/out" || fail "branch create statement: $(cat "$DIR/out")"
expect_rc 0 "$BIN" query -e 'branch list' --format csv "$G"
[ "$(tr '\n' ' ' <"$DIR/out")" = "name main stmt/a " ] || fail "branch list statement: $(cat "$DIR/out")"
expect_rc 1 "$BIN" mutate -e 'branch list' "$G"
grep -q 'run it with query' "$DIR/err" || fail "branch list as a mutation: $(cat "$DIR/err")"
expect_rc 0 "$BIN" mutate -e 'branch delete "stmt/a"' "$G"

# Bad input: a missing file, bad JSON parameters, a malformed load line with its line number.
expect_rc 1 "$BIN" load --data "$DIR/none.jsonl" --mode append "$G"
expect_rc 1 "$BIN" mutate -e 'query q($n: String) { delete Person where name = $n }' --params '{"n":' "$G"
printf '{"type":"Person","data":{"name":"X"}}\n{"type":"Nope"}\n' >"$DIR/bad.jsonl"
expect_rc 1 "$BIN" load --data "$DIR/bad.jsonl" --mode append "$G"
grep -q 'line 2' "$DIR/err" || fail "load error lacks the line: $(cat "$DIR/err")"
expect_rc 0 "$BIN" commit list --json "$G"
[ "$(grep -c graph_commit_id "$DIR/out")" = 3 ] || fail "a rejected write left a commit"
# Merge: a change on a branch and one on main merge back as one commit; --delete-branch removes
# the source; conflicting updates exit 1, publish nothing and list the conflicts with --json.
ADD='query add($n: String, $a: I32) { insert Person { name: $n, age: $a } }'
UP='query up($n: String, $a: I32) { update Person set { age: $a } where name = $n }'
expect_rc 0 "$BIN" branch create feat "$G"
expect_rc 0 "$BIN" mutate -e "$ADD" --params '{"n":"Linus","a":50}' --branch feat "$G"
expect_rc 0 "$BIN" mutate -e "$ADD" --params '{"n":"Ken","a":70}' "$G"
expect_rc 0 "$BIN" branch merge feat --delete-branch --json "$G"
grep -q '"outcome": "merged"' "$DIR/out" || fail "branch merge: $(cat "$DIR/out")"
grep -q '"branch_deleted": true' "$DIR/out" || fail "branch merge delete: $(cat "$DIR/out")"
grep -q 'omnigraph branch merge → ' "$DIR/err" || fail "merge echo: $(cat "$DIR/err")"
expect_rc 0 "$BIN" export "$G"
grep -q '"name":"Linus"' "$DIR/out" || fail "merge lost Linus: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit list --json "$G"
grep -q 'merged_parent_commit_id' "$DIR/out" || fail "no merged commit: $(cat "$DIR/out")"
expect_rc 0 "$BIN" branch create c1 "$G"
expect_rc 0 "$BIN" mutate -e "$UP" --params '{"n":"Ken","a":71}' --branch c1 "$G"
expect_rc 0 "$BIN" mutate -e "$UP" --params '{"n":"Ken","a":72}' "$G"
expect_rc 1 "$BIN" branch merge c1 --into main --json "$G"
grep -q '"kind": "divergent_update"' "$DIR/out" || fail "merge conflicts: $(cat "$DIR/out")"
grep -q 'merge_conflicts' "$DIR/err" || fail "merge conflict error: $(cat "$DIR/err")"
expect_rc 1 "$BIN" branch merge c1 --into c1 "$G"
# Reads: a table, JSON with the exact column names, a snapshot read at an earlier commit.
Q='query staff($c: String) { match { $p: Person  $p worksAt $x  $x: Company { name: $c } } return { $p.name, $p.age } order { $p.name } }'
expect_rc 0 "$BIN" query -e "$Q" --params '{"c":"Acme"}' "$G"
grep -q 'Ada' "$DIR/out" || fail "query table: $(cat "$DIR/out")"
grep -q '(1 row)' "$DIR/out" || fail "query table footer: $(cat "$DIR/out")"
expect_rc 0 "$BIN" query staff -e "$Q" --params '{"c":"Acme"}' --json "$G"
grep -q '"p.name": "Ada"' "$DIR/out" || fail "query json: $(cat "$DIR/out")"
expect_rc 0 "$BIN" query -e "$Q" --params '{"c":"Acme"}' --format csv --snapshot "$LOADED" "$G"
[ "$(sed -n 2p "$DIR/out")" = "Ada,36" ] || fail "query csv at snapshot: $(cat "$DIR/out")"
expect_rc 1 "$BIN" query -e 'query q() { match { $p: Nobody } return { $p.name } }' "$G"
grep -q 'Nobody' "$DIR/err" || fail "type error names the type: $(cat "$DIR/err")"

# Schema: plan and apply an added type (one commit), then show it.
cp "$DIR/s.pg" "$DIR/s2.pg"; echo 'node City { name: String @key }' >>"$DIR/s2.pg"
expect_rc 0 "$BIN" schema plan --schema "$DIR/s2.pg" "$G"
grep -q '"add_type"' "$DIR/out" || fail "schema plan: $(cat "$DIR/out")"
# A schema apply is refused while a branch other than main exists (OmniGraph's message), and
# publishes nothing; with the branch deleted it applies.
BEFORE_APPLY=$("$BIN" commit list --json "$G" | python3 -c 'import json,sys; print(json.load(sys.stdin)["commits"][0]["graph_commit_id"])')
expect_rc 1 "$BIN" schema apply --schema "$DIR/s2.pg" "$G"
grep -qx 'omnigraph: error\[schema_boundary\]: schema apply requires a graph with only main; found non-main branches: c1' \
  "$DIR/err" || fail "schema apply with a branch open: $(cat "$DIR/err")"
AFTER_APPLY=$("$BIN" commit list --json "$G" | python3 -c 'import json,sys; print(json.load(sys.stdin)["commits"][0]["graph_commit_id"])')
[ "$BEFORE_APPLY" = "$AFTER_APPLY" ] || fail "a refused schema apply published a commit"
expect_rc 0 "$BIN" branch delete c1 "$G"
expect_rc 0 "$BIN" schema apply --schema "$DIR/s2.pg" "$G"
grep -q '"applied": true' "$DIR/out" || fail "schema apply: $(cat "$DIR/out")"
expect_rc 0 "$BIN" schema show "$G"
grep -q 'node City' "$DIR/out" || fail "schema show: $(cat "$DIR/out")"
# The schema a past commit accepted: before City was added.
expect_rc 0 "$BIN" schema show --snapshot "$LOADED" "$G"
grep -q 'node Person' "$DIR/out" || fail "schema show --snapshot: $(cat "$DIR/out")"
grep -q 'node City' "$DIR/out" && fail "schema show --snapshot has City: $(cat "$DIR/out")"
expect_rc 1 "$BIN" schema show --snapshot main.99.AAAAAAAAAA "$G"
# History a person can read: one line per commit (short id, local date and time, actor, what it
# did), the JSON envelope {"commits":[...]}, pages, commit show and the snapshot object.
expect_rc 0 "$BIN" commit list "$G"
[ "$(wc -l <"$DIR/out")" = 7 ] || fail "commit list lines: $(cat "$DIR/out")"
head -1 "$DIR/out" | grep -Eq '^[0-9A-Z]{10}  [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}  -  schema apply: 1 step$' \
  || fail "commit list line: $(cat "$DIR/out")"
sed -n 2p "$DIR/out" | grep -q '  mutate up: ~1 node$' || fail "update line: $(cat "$DIR/out")"
sed -n 3p "$DIR/out" | grep -q '  (merge) merge feat → main: +1 node$' || fail "merge line: $(cat "$DIR/out")"
sed -n 4p "$DIR/out" | grep -q '  mutate add: +1 node$' || fail "mutate line: $(cat "$DIR/out")"
sed -n 6p "$DIR/out" | grep -q '  load append: +2 nodes +1 edge$' || fail "load line: $(cat "$DIR/out")"
sed -n 7p "$DIR/out" | grep -q '  init$' || fail "genesis line: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit list --json --limit 2 "$G"
grep -q '"commits": \[' "$DIR/out" || fail "commit list envelope: $(cat "$DIR/out")"
TOKEN=$(sed -n 's/.*"next_page_token": "\([^"]*\)".*/\1/p' "$DIR/out")
[ -n "$TOKEN" ] || fail "no next_page_token: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit list --page-token "$TOKEN" "$G"
[ "$(wc -l <"$DIR/out")" = 5 ] || fail "second page: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit show "$LOADED" "$G"
grep -q '^did      load append: +2 nodes +1 edge$' "$DIR/out" || fail "commit show: $(cat "$DIR/out")"
grep -q '^  node:Person  +1 ~0 -0$' "$DIR/out" || fail "commit show tables: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit show --json "$LOADED" "$G"
grep -q '"table_key": "edge:WorksAt"' "$DIR/out" || fail "commit show json: $(cat "$DIR/out")"
expect_rc 1 "$BIN" commit show main.99.AAAAAAAAAA "$G"
expect_rc 0 "$BIN" commit changes "$LOADED" "$G"
grep -q '^+ node Person Ada$' "$DIR/out" || fail "commit changes: $(cat "$DIR/out")"
sed -n 3p "$DIR/out" | grep -q '^+ edge WorksAt ' || fail "commit changes edge: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --json "$LOADED" "$G"
grep -q '"op": "insert"' "$DIR/out" || fail "commit changes json: $(cat "$DIR/out")"
# Pages and filters of commit changes: by kind, type and op, together, across a page boundary,
# and bad values refused (exit 1) with the value named.
expect_rc 0 "$BIN" commit changes --kind edge "$LOADED" "$G"
[ "$(cat "$DIR/out")" = "+ edge WorksAt $(sed -n 's/^+ edge WorksAt //p' "$DIR/out")" ] \
  && [ "$(wc -l <"$DIR/out")" = 1 ] || fail "changes --kind edge: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --type Company "$LOADED" "$G"
[ "$(cat "$DIR/out")" = "+ node Company Acme" ] || fail "changes --type: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --op delete "$LOADED" "$G"
[ "$(cat "$DIR/out")" = "(no entity changes)" ] || fail "changes --op: $(cat "$DIR/out")"
# Each filter repeats (OmniGraph's reference): a change matching any of the values is kept.
expect_rc 0 "$BIN" commit changes --type Company --type WorksAt "$LOADED" "$G"
[ "$(wc -l <"$DIR/out")" = 2 ] && sed -n 1p "$DIR/out" | grep -qx '+ node Company Acme' &&
  sed -n 2p "$DIR/out" | grep -q '^+ edge WorksAt ' || fail "changes --type x2: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --op delete --op insert --kind node --kind edge "$LOADED" "$G"
[ "$(wc -l <"$DIR/out")" = 3 ] || fail "changes --op x2 --kind x2: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --kind node --op insert --limit 1 --json "$LOADED" "$G"
grep -q '"id": "Ada"' "$DIR/out" || fail "changes first page: $(cat "$DIR/out")"
[ "$(grep -c '"op":' "$DIR/out")" = 1 ] || fail "changes page size: $(cat "$DIR/out")"
CTOKEN=$(sed -n 's/.*"next_page_token": "\([^"]*\)".*/\1/p' "$DIR/out")
[ -n "$CTOKEN" ] || fail "no next_page_token for changes: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --kind node --op insert --limit 1 --page-token "$CTOKEN" "$LOADED" "$G"
[ "$(sed -n 1p "$DIR/out")" = "+ node Company Acme" ] || fail "changes second page: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit changes --kind node --limit 1 --page-token "$CTOKEN" --json "$LOADED" "$G"
grep -q 'next_page_token' "$DIR/out" && fail "changes last page has a token: $(cat "$DIR/out")"
expect_rc 1 "$BIN" commit changes --kind vertex "$LOADED" "$G"
grep -q "unknown change kind 'vertex'" "$DIR/err" || fail "bad kind: $(cat "$DIR/err")"
expect_rc 1 "$BIN" commit changes --op upsert "$LOADED" "$G"
grep -q "unknown change op 'upsert'" "$DIR/err" || fail "bad op: $(cat "$DIR/err")"
expect_rc 1 "$BIN" commit changes --type Nobody "$LOADED" "$G"
grep -q "no type 'Nobody'" "$DIR/err" || fail "bad type: $(cat "$DIR/err")"
expect_rc 1 "$BIN" commit changes --limit 0 "$LOADED" "$G"
grep -q 'must be 1 to 10000, not 0' "$DIR/err" || fail "bad limit: $(cat "$DIR/err")"
expect_rc 1 "$BIN" commit changes --page-token nonsense "$LOADED" "$G"
grep -q "'nonsense' is not a page token" "$DIR/err" || fail "bad token: $(cat "$DIR/err")"
UPDATED=$("$BIN" commit list --json --limit 2 "$G" | sed -n 's/.*"graph_commit_id": "\([^"]*\)".*/\1/p' | sed -n 2p)
expect_rc 1 "$BIN" commit changes --page-token "$CTOKEN" "$UPDATED" "$G"
grep -q "is of commit '$LOADED', not of '$UPDATED'" "$DIR/err" || fail "other commit's token: $(cat "$DIR/err")"
GENESIS=$("$BIN" commit list --json "$G" | sed -n 's/.*"graph_commit_id": "\(main\.0\.[^"]*\)".*/\1/p')
expect_rc 1 "$BIN" commit changes "$GENESIS" "$G"
grep -q 'parentless_commit' "$DIR/err" || fail "genesis diff: $(cat "$DIR/err")"
expect_rc 0 "$BIN" snapshot --snapshot "$LOADED" --json "$G"
grep -q '"graph_manifest_version": 1' "$DIR/out" || fail "snapshot: $(cat "$DIR/out")"
grep -q '"type_name": "Person"' "$DIR/out" || fail "snapshot datasets: $(cat "$DIR/out")"
expect_rc 0 "$BIN" snapshot --branch main "$G"
head -1 "$DIR/out" | grep -q '  main #6  schema v2$' || fail "snapshot of main: $(cat "$DIR/out")"
# The change feed: every commit from the beginning with its entity changes, an empty caught-up
# page from its cursor, a baseline ending in the cursor to resume from, a damaged cursor refused.
expect_rc 0 "$BIN" changes poll --start beginning --json "$G"
grep -q '"caught_up": true' "$DIR/out" || fail "changes poll: $(cat "$DIR/out")"
CURSOR=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["cursor"])' <"$DIR/out")
expect_rc 0 "$BIN" changes poll --cursor "$CURSOR" "$G"
grep -q '^(no new commits)$' "$DIR/out" || fail "caught-up poll: $(cat "$DIR/out")"
expect_rc 0 "$BIN" changes poll --start beginning --limit 1 "$G"
grep -q '^  + node Person Ada$' "$DIR/out" || fail "changes poll page: $(cat "$DIR/out")"
grep -q '^more; next: --page-token c1\.' "$DIR/out" || fail "changes poll more: $(cat "$DIR/out")"
# One page exactly from a page token; the walk from the same token reaches the head.
PTOKEN=$(sed -n 's/^more; next: --page-token //p' "$DIR/out")
expect_rc 0 "$BIN" changes poll --page-token "$PTOKEN" --limit 1 "$G"
[ "$(grep -c '^commit ' "$DIR/out")" = 1 ] && grep -q '^more; next: --page-token' "$DIR/out" ||
  fail "one page from a page token: $(cat "$DIR/out")"
expect_rc 1 "$BIN" changes poll --page-token "$PTOKEN" --start beginning "$G"
# Every page (decision 156): a walk in pages of one prints what one page of them all prints,
# human and --json, for the feed, the history and a commit's changes.
walk_same() { # walk_same WHAT ARGS...: --page-size 1 and the default walk equal --limit 1000.
  local what=$1
  shift
  "$BIN" "$@" --limit 1000 "$G" >"$DIR/one" 2>&1 || fail "$what (one page): $(cat "$DIR/one")"
  "$BIN" "$@" --page-size 1 "$G" >"$DIR/walk1" 2>&1 || fail "$what (pages of 1): $(cat "$DIR/walk1")"
  "$BIN" "$@" "$G" >"$DIR/walk" 2>&1 || fail "$what (walk): $(cat "$DIR/walk")"
  cmp -s "$DIR/one" "$DIR/walk1" || fail "$what: pages of 1 differ: $(diff "$DIR/one" "$DIR/walk1")"
  cmp -s "$DIR/one" "$DIR/walk" || fail "$what: the walk differs: $(diff "$DIR/one" "$DIR/walk")"
}
for json in "" --json; do
  walk_same "changes poll $json" changes poll --start beginning $json
  walk_same "filtered changes poll $json" changes poll --start beginning --kind node --op insert $json
  walk_same "commit list $json" commit list $json
  walk_same "commit changes $json" commit changes "$LOADED" $json
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["changes"]) == 3, d' \
  "$DIR/walk" || fail "commit changes walk json: $(cat "$DIR/walk")"
# Filters (repeatable): only what matches, in a block for every commit; bad values refused.
expect_rc 0 "$BIN" changes poll --start beginning --kind edge --json "$G"
python3 - "$DIR/out" <<'PY' || fail "changes poll --kind edge: $(cat "$DIR/out")"
import json, sys
d = json.load(open(sys.argv[1]))
changes = [c for b in d["blocks"] for c in b["changes"]]
assert changes and all(c["kind"] == "edge" for c in changes), changes
assert len(d["blocks"]) >= 5, d
PY
ECURSOR=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cursor"])' "$DIR/out")
expect_rc 0 "$BIN" changes poll --cursor "$ECURSOR" --kind edge "$G"
grep -q '^caught up' "$DIR/out" || fail "same-filter cursor: $(cat "$DIR/out")"
expect_rc 1 "$BIN" changes poll --cursor "$ECURSOR" "$G"
grep -q 'change cursor rejected: it was issued for the filter scope' "$DIR/err" ||
  fail "a filtered cursor without its filter: $(cat "$DIR/err")"
expect_rc 0 "$BIN" changes poll --start beginning --type Company --type WorksAt --op insert "$G"
grep -q '^  + node Company Acme$' "$DIR/out" && grep -q '^  + edge WorksAt ' "$DIR/out" &&
  ! grep -q 'node Person' "$DIR/out" || fail "--type twice: $(cat "$DIR/out")"
expect_rc 1 "$BIN" changes poll --kind vertex "$G"
grep -q "unknown change kind 'vertex'" "$DIR/err" || fail "bad feed kind: $(cat "$DIR/err")"
expect_rc 1 "$BIN" changes baseline --op upsert "$G"
grep -q "unknown change op 'upsert'" "$DIR/err" || fail "bad baseline op: $(cat "$DIR/err")"
expect_rc 0 "$BIN" changes baseline --kind node --type Company "$G"
[ "$(wc -l <"$DIR/out")" = 2 ] && head -1 "$DIR/out" | grep -q '"Acme"' ||
  fail "filtered baseline: $(cat "$DIR/out")"
# --start beginning on a branch replays the history it inherited (decision 157).
expect_rc 0 "$BIN" branch create inh "$G"
expect_rc 0 "$BIN" changes poll --branch inh --start beginning --json "$G"
MAIN_FEED=$("$BIN" changes poll --start beginning --json "$G" |
  python3 -c 'import json,sys; print([b["cause"]["graph_commit_id"] for b in json.load(sys.stdin)["blocks"]])')
INH_FEED=$(python3 -c 'import json,sys; print([b["cause"]["graph_commit_id"] for b in json.load(open(sys.argv[1]))["blocks"]])' "$DIR/out")
[ "$MAIN_FEED" = "$INH_FEED" ] || fail "inherited history: $INH_FEED, main has $MAIN_FEED"
expect_rc 0 "$BIN" branch delete inh "$G"
expect_rc 0 "$BIN" changes baseline "$G"
tail -1 "$DIR/out" | grep -q '^{"baseline":{"resume_cursor":"c1\.' || fail "baseline: $(cat "$DIR/out")"
RESUME=$(tail -1 "$DIR/out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["baseline"]["resume_cursor"])')
expect_rc 0 "$BIN" mutate -e "$ADD" --params '{"n":"Rob","a":60}' "$G"
expect_rc 0 "$BIN" changes poll --cursor "$RESUME" --json "$G"
[ "$(grep -c '"graph_commit_id"' "$DIR/out")" = 1 ] || fail "poll after baseline: $(cat "$DIR/out")"
# --out: the export installed at PATH (no handshake line in it), the handshake printed after.
echo stale >"$DIR/base.jsonl"
expect_rc 0 "$BIN" changes baseline --out "$DIR/base.jsonl" --json "$G"
python3 - "$DIR/out" "$DIR/base.jsonl" <<'PY' || fail "baseline --out: $(cat "$DIR/out") $(cat "$DIR/base.jsonl")"
import json, sys
h = json.load(open(sys.argv[1]))
assert set(h) == {"resume_cursor", "snapshot_commit_id"}, h
lines = [json.loads(l) for l in open(sys.argv[2])]
assert lines and all("baseline" not in l for l in lines), lines
PY
ls -a "$DIR" | grep -q 'partial' && fail "baseline --out left its partial file"
"$BIN" changes baseline "$G" | head -n -1 | cmp -s - "$DIR/base.jsonl" ||
  fail "baseline --out differs from the stdout export"
expect_rc 0 "$BIN" changes baseline --out "$DIR/base.jsonl" "$G"
grep -q '^next: --cursor c1\.' "$DIR/out" || fail "baseline --out human: $(cat "$DIR/out")"
expect_rc 1 "$BIN" changes baseline --out "$DIR/nowhere/base.jsonl" "$G"
grep -q 'cannot create' "$DIR/err" || fail "baseline --out into a missing folder: $(cat "$DIR/err")"
expect_rc 1 "$BIN" changes poll --cursor "c1.damaged.0000000000000000" "$G"
grep -q 'change_cursor_rejected' "$DIR/err" || fail "damaged cursor: $(cat "$DIR/err")"
expect_rc 0 "$BIN" cleanup --keep 1 "$G"
grep -q 'would remove' "$DIR/out" || fail "cleanup dry run: $(cat "$DIR/out")"
expect_rc 1 "$BIN" cleanup "$G"
echo "cli smoke: ok"
