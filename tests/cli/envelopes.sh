#!/usr/bin/env bash
# The --json envelopes of the omnigraph command, parsed (python3's json) and checked member by
# member against OmniGraph's: load and mutate carry the commit object, branch create, list and
# delete their own shapes, query --format jsonl a metadata line first, schema plan a step_count,
# and a failed --if-commit exits 4 with the error envelope on stdout. Also the write echo with its
# access path. One process per command over a temporary directory.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"; }
# check 'PYTHON BOOLEAN OVER d' [FILE]: the JSON document in FILE (default: the last stdout) as d.
check() {
  python3 - "$1" "${2:-$DIR/out}" <<'PY' || fail "check '$1' on: $(cat "${2:-$DIR/out}")"
import json, sys
d = json.load(open(sys.argv[2]))
sys.exit(0 if eval(sys.argv[1]) else 1)
PY
}

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
printf '{"type":"Person","data":{"name":"Ada","age":36}}\n{"type":"Company","data":{"name":"Acme"}}\n' \
  >"$DIR/seed.jsonl"
G=$DIR/g
expect_rc 0 "$BIN" init --schema "$DIR/s.pg" "$G"
[ "$(cat "$DIR/err")" = "omnigraph init → $G (direct, local)" ] || fail "init echo: $(cat "$DIR/err")"

# load: OmniGraph's load output with the commit object.
expect_rc 0 "$BIN" --as ana load --data "$DIR/seed.jsonl" --mode merge --json "$G"
[ "$(cat "$DIR/err")" = "omnigraph load → $G (direct, local)" ] || fail "load echo: $(cat "$DIR/err")"
check 'sorted(d) == ["actor_id", "branch", "branch_created", "commit", "edges", "mode", "nodes", "total_entities", "uri"]'
check 'd["uri"] == sys.argv[2].rsplit("/", 1)[0] + "/g" and d["branch"] == "main" and d["mode"] == "merge"'
check 'd["nodes"] == [{"entities_loaded": 1, "name": "Company"}, {"entities_loaded": 1, "name": "Person"}]'
check 'sorted(d["commit"]) == ["actor_id", "created_at", "graph_branch", "graph_commit_id", "graph_manifest_version", "parent_commit_id", "summary"]'
check 'd["commit"]["graph_manifest_version"] == 1 and d["commit"]["actor_id"] == "ana" and isinstance(d["commit"]["created_at"], int)'
cp "$DIR/out" "$DIR/load.json"
LOADED=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["commit"]["graph_commit_id"])' <"$DIR/out")
# The same object commit show gives (which adds the tables the commit touched).
expect_rc 0 "$BIN" commit show "$LOADED" --json "$G"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); b.pop("tables", None); sys.exit(a["commit"] != b)' \
  "$DIR/load.json" "$DIR/out" || fail "load's commit differs from commit show: $(cat "$DIR/out")"
# A load of no entity publishes one commit that changes no table, as OmniGraph's does (decision
# 197): its parent is the head before it, and its change block is empty.
printf '\n\n' >"$DIR/empty.jsonl"
expect_rc 0 "$BIN" load --data "$DIR/empty.jsonl" --mode merge --json "$G"
check 'd["total_entities"] == 0 and d["commit"]["parent_commit_id"] == "'"$LOADED"'"'
EMPTY=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["commit"]["graph_commit_id"])' <"$DIR/out")
expect_rc 0 "$BIN" commit changes "$EMPTY" --json "$G"
check 'd["changes"] == []'
expect_rc 0 "$BIN" load --data "$DIR/empty.jsonl" --mode merge "$G"
grep -q "^loaded $G on branch main with merge: 0 entities" "$DIR/out" || fail "empty load human: $(cat "$DIR/out")"
grep -q '^no commit' "$DIR/out" && fail "an empty load's human form says no commit: $(cat "$DIR/out")"
expect_rc 0 "$BIN" load --data "$DIR/seed.jsonl" --mode merge "$G"
grep -q "^loaded $G on branch main with merge: 2 entities across 2 node types and 0 edge types" \
  "$DIR/out" || fail "load human: $(cat "$DIR/out")"

# mutate: OmniGraph's change output with the commit object; its parent is the load's commit.
HIRE='query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }'
expect_rc 0 "$BIN" mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}' --json "$G"
[ "$(cat "$DIR/err")" = "omnigraph mutate → $G (direct, local)" ] || fail "mutate echo: $(cat "$DIR/err")"
check 'sorted(d) == ["affected_edges", "affected_nodes", "branch", "commit", "query_name"]'
check 'd["affected_edges"] == 1 and d["commit"]["graph_manifest_version"] == 5'
HEAD=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["commit"]["graph_commit_id"])' <"$DIR/out")
# Nothing affected: no commit.
expect_rc 0 "$BIN" mutate -e 'query rm($n: String) { delete Person where name = $n }' \
  --params '{"n":"Nobody"}' --json "$G"
check 'd["commit"] is None and d["affected_nodes"] == 0'
expect_rc 0 "$BIN" mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}' "$G"
grep -q '^changed main via hire: 0 nodes, 1 edges' "$DIR/out" || fail "mutate human: $(cat "$DIR/out")"
expect_rc 0 "$BIN" commit list --json "$G"
HEAD=$(python3 -c 'import json,sys; d=json.load(sys.stdin); d=d["commits"] if isinstance(d, dict) else d; print(d[0]["graph_commit_id"])' <"$DIR/out")

# A stale --if-commit: exit 4; with --json the error envelope on stdout, naming both heads.
RM='query rm($n: String) { delete Person where name = $n }'
expect_rc 4 "$BIN" mutate -e "$RM" --params '{"n":"Ada"}' --if-commit "$LOADED" --json "$G"
check 'sorted(d) == ["error", "precondition_failure"]'
check 'd["precondition_failure"] == {"expected": "'"$LOADED"'", "actual": "'"$HEAD"'"}'
[ -s "$DIR/err" ] && fail "a --json precondition failure also wrote stderr: $(cat "$DIR/err")"
expect_rc 4 "$BIN" mutate -e "$RM" --params '{"n":"Ada"}' --if-commit "$LOADED" "$G"
grep -q 'precondition_failed' "$DIR/err" || fail "precondition on stderr: $(cat "$DIR/err")"
[ -s "$DIR/out" ] && fail "a precondition failure printed to stdout: $(cat "$DIR/out")"

# branch create / list / delete.
expect_rc 0 "$BIN" --as ana branch create --from main zeta --json "$G"
[ "$(cat "$DIR/err")" = "omnigraph branch create → $G (direct, local)" ] || fail "create echo"
check 'd == {"name": "zeta", "from": "main", "uri": "'"$G"'", "actor_id": "ana"}'
expect_rc 0 "$BIN" branch create alpha "$G"
[ "$(cat "$DIR/out")" = "created branch alpha from main" ] || fail "create human: $(cat "$DIR/out")"
expect_rc 0 "$BIN" branch list --json "$G"
check 'd == {"branches": ["alpha", "main", "zeta"]}'
expect_rc 0 "$BIN" branch list "$G"
[ "$(cat "$DIR/out")" = "$(printf 'alpha\nmain\nzeta')" ] || fail "list human: $(cat "$DIR/out")"
expect_rc 0 "$BIN" branch delete zeta --json "$G"
check 'd == {"name": "zeta", "uri": "'"$G"'"}'
expect_rc 0 "$BIN" branch delete alpha "$G"
[ "$(cat "$DIR/out")" = "deleted branch alpha" ] || fail "delete human: $(cat "$DIR/out")"

# query --format jsonl: the metadata line, then one object per row.
Q='query people() { match { $p: Person } return { $p.name } order { $p.name } }'
expect_rc 0 "$BIN" query -e "$Q" --format jsonl "$G"
head -1 "$DIR/out" >"$DIR/meta.json"
check 'd == {"kind": "metadata", "query_name": "people", "target": {"branch": "main"}, "row_count": 1}' \
  "$DIR/meta.json"
sed -n 2p "$DIR/out" >"$DIR/row.json"
check 'd == {"p.name": "Ada"}' "$DIR/row.json"
[ "$(wc -l <"$DIR/out")" = 2 ] || fail "jsonl lines: $(cat "$DIR/out")"

# explain: the plan text as it is in the table format, rows and `plan` in the envelope.
expect_rc 0 "$BIN" query -e "explain $Q" "$G"
[ "$(cat "$DIR/out")" = "$(printf 'match\n  access $p: Person every row\n  cross join [$p]\norder by [$p.name] ties [$p]\nproject [$p.name]')" ] \
  || fail "explain text: $(cat "$DIR/out")"
expect_rc 0 "$BIN" query -e "explain $Q" --json "$G"
check 'd["plan"].splitlines() == [r["plan"] for r in d["rows"]] and d["columns"] == ["plan"] and d["rows"][0] == {"plan": "match"}'
# File headers: an ignored setting warns on stderr; show all lists the settings in effect.
expect_rc 0 "$BIN" query -e "set ann_nprobes = 4; set traversal_work_limit = 77; show all;" --json "$G"
check 'd["query_name"] == "show all" and {"name": "traversal_work_limit", "value": "77", "applied": True} in d["rows"] and len(d["rows"]) == 7'
grep -q '^warning: 1:1: Q003: setting `ann_nprobes` tunes' "$DIR/err" || fail "no warning: $(cat "$DIR/err")"
# Two people, so expanding from each costs two units (one per start): over a limit of 1.
expect_rc 0 "$BIN" mutate -e 'query add() { insert Person { name: "Bo" } }' "$G"
expect_rc 1 "$BIN" query -e "set traversal_work_limit = 1; query k() { match { \$p: Person  \$p worksAt \$c } return { \$c.name } }" "$G"
grep -q 'exceeded traversal_work_limit (1 units' "$DIR/err" || fail "work limit error: $(cat "$DIR/err")"

# A mutation's headers are checked too: a bad value changes nothing; explain is for reads.
expect_rc 1 "$BIN" mutate -e 'set stage_write_concurrency = 0; query add2() { insert Person { name: "Cy" } }' "$G"
grep -q 'Q002: setting `stage_write_concurrency` takes an integer from 1 to 256, got 0' "$DIR/err" \
  || fail "mutation header error: $(cat "$DIR/err")"
expect_rc 1 "$BIN" mutate -e 'explain query add2() { insert Person { name: "Cy" } }' "$G"
grep -q 'explain prints the plan of a read query' "$DIR/err" || fail "explain mutation: $(cat "$DIR/err")"
expect_rc 0 "$BIN" mutate -e 'set stage_write_concurrency = 4; query add2() { insert Person { name: "Cy" } }' "$G"
expect_rc 0 "$BIN" query -e 'query n() { match { $p: Person } return { count($p) as n } }' --json "$G"
check 'd["rows"] == [{"n": 3}]'
# An ignored header of a mutation warns on stderr, and its --json carries `warnings`; without
# one the member is absent (deletes that match nothing: no commit).
expect_rc 0 "$BIN" mutate -e 'set ann_nprobes = 4; query rm3() { delete Person where name = "Nobody" }' --json "$G"
check 'd["affected_nodes"] == 0 and d["commit"] is None and len(d["warnings"]) == 1 and d["warnings"][0].startswith("1:1: Q003: setting `ann_nprobes`")'
grep -q '^warning: 1:1: Q003: setting `ann_nprobes` tunes' "$DIR/err" || fail "no mutate warning: $(cat "$DIR/err")"
expect_rc 0 "$BIN" mutate -e 'set ann_nprobes = 4; query rm4() { delete Person where name = "Nobody" }' "$G"
grep -q '^warning: 1:1: Q003: setting `ann_nprobes` tunes' "$DIR/err" || fail "no mutate text warning: $(cat "$DIR/err")"
grep -q '^changed main via rm4' "$DIR/out" || fail "mutate text: $(cat "$DIR/out")"
expect_rc 0 "$BIN" mutate -e 'query rm5() { delete Person where name = "Nobody" }' --json "$G"
check '"warnings" not in d'

# schema plan --json: uri, supported, step_count, steps.
cp "$DIR/s.pg" "$DIR/s2.pg"; echo 'node City { name: String @key }' >>"$DIR/s2.pg"
expect_rc 0 "$BIN" schema plan --schema "$DIR/s2.pg" --json "$G"
check 'd["step_count"] == 1 == len(d["steps"]) and d["supported"] is True and d["uri"] == "'"$G"'"'
expect_rc 0 "$BIN" schema plan --schema "$DIR/s.pg" --json "$G"
check 'd["step_count"] == 0 and d["steps"] == []'

# The echo names the access path: a file:// URI is local too, memory:// is not.
expect_rc 0 "$BIN" branch create viafile "file://$G"
[ "$(cat "$DIR/err")" = "omnigraph branch create → file://$G (direct, local)" ] || fail "file echo: $(cat "$DIR/err")"
expect_rc 0 "$BIN" init --schema "$DIR/s.pg" memory://m
[ "$(cat "$DIR/err")" = "omnigraph init → memory://m (direct, remote)" ] || fail "memory echo: $(cat "$DIR/err")"
expect_rc 0 "$BIN" --quiet branch create quiet "$G"
[ -s "$DIR/err" ] && fail "--quiet still echoed: $(cat "$DIR/err")"
echo "cli envelopes: ok"
