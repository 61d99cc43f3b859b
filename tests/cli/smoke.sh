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
LOADED=$(sed -n 's/.*"commit": "\([^"]*\)".*/\1/p' "$DIR/out")
[ -n "$LOADED" ] || fail "no commit in load output"

expect_rc 0 "$BIN" mutate -e 'query add($n: String, $a: I32) { insert Person { name: $n, age: $a } }' \
  --params '{"n":"Grace","a":41}' "$G"
grep -q '"affected_nodes": 1' "$DIR/out" || fail "mutate output: $(cat "$DIR/out")"
# A stale --if-commit exits 4 and changes nothing.
expect_rc 4 "$BIN" mutate rm -e 'query rm($n: String) { delete Person where name = $n }' \
  --params '{"n":"Ada"}' --if-commit "$LOADED" "$G"
expect_rc 0 "$BIN" commit list --json "$G"
[ "$(grep -c graph_commit_id "$DIR/out")" = 3 ] || fail "commit list: $(cat "$DIR/out")"

expect_rc 0 "$BIN" branch create dev "$G"
expect_rc 0 "$BIN" mutate -e 'query rm($n: String) { delete Person where name = $n }' \
  --params '{"n":"Ada"}' --branch dev "$G"
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
expect_rc 0 "$BIN" schema apply --schema "$DIR/s2.pg" "$G"
grep -q '"applied": true' "$DIR/out" || fail "schema apply: $(cat "$DIR/out")"
expect_rc 0 "$BIN" schema show "$G"
grep -q 'node City' "$DIR/out" || fail "schema show: $(cat "$DIR/out")"
expect_rc 0 "$BIN" cleanup --keep 1 "$G"
grep -q 'would remove' "$DIR/out" || fail "cleanup dry run: $(cat "$DIR/out")"
expect_rc 1 "$BIN" cleanup "$G"
echo "cli smoke: ok"
