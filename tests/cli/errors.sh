#!/usr/bin/env bash
# Errors worded so an OmniGraph user recognizes them, each one line with exit status 1 and nothing
# changed: a missing edge endpoint, a key update, a value out of a type's range, creating or
# deleting main, a missing file, --query with -e, several queries and no name, empty values;
# and the branch name OmniGraph reserves. One process per command over a temporary directory.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# refused 'WORDS' ARGS...: exit 1, one line on stderr containing each of WORDS ('|'-separated),
# nothing on stdout, and every file of the graph's folder as it was.
refused() {
  local words=$1; shift
  local before; before=$(state)
  "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = 1 ] || fail "'$*' exited $rc, want 1: $(cat "$DIR/err")"
  [ "$(wc -l <"$DIR/err")" = 1 ] || fail "'$*': want one line of error, got: $(cat "$DIR/err")"
  [ -s "$DIR/out" ] && fail "'$*' printed to stdout: $(cat "$DIR/out")"
  local IFS='|'
  for w in $words; do
    grep -qF -- "$w" "$DIR/err" || fail "'$*': error lacks '$w': $(cat "$DIR/err")"
  done
  [ "$before" = "$(state)" ] || fail "'$*' changed the graph"
}

# Every file of the graph's folder, tables included: a refused load or mutation leaves no object
# behind (docs/design/decisions.md 84).
state() { (cd "$G" && find . -type f | sort | xargs -r md5sum); }

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
G=$DIR/g
"$BIN" init --schema "$DIR/s.pg" "$G" >/dev/null 2>&1 || fail init
printf '{"type":"Person","data":{"name":"Ada"}}\n' >"$DIR/ada.jsonl"
"$BIN" load --data "$DIR/ada.jsonl" --mode merge "$G" >/dev/null 2>&1 || fail load

# An edge endpoint that does not exist: "not found", the type and the id.
HIRE='query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }'
refused "not found|Company|'Nowhere'" "$BIN" mutate -e "$HIRE" --params '{"p":"Ada","c":"Nowhere"}' "$G"
printf '{"edge":"WorksAt","from":"Ada","to":"Nowhere"}\n' >"$DIR/edge.jsonl"
refused "line 1|not found|Company|'Nowhere'" "$BIN" load --data "$DIR/edge.jsonl" --mode merge "$G"
# Updating a key property names @key.
refused "@key|name" "$BIN" mutate -e 'query r($n: String) { update Person set { name: "X" } where name = $n }' \
  --params '{"n":"Ada"}' "$G"
# A value outside a type's range names the type: a parameter in OmniGraph's words ("exceeds I32
# range"), a load line "out of range".
refused "exceeds I32 range" "$BIN" mutate -e 'query a($n: String, $a: I32) { insert Person { name: $n, age: $a } }' \
  --params '{"n":"Bo","a":3000000000}' "$G"
printf '{"type":"Person","data":{"name":"Bo","age":3000000000}}\n' >"$DIR/range.jsonl"
refused "out of range|I32" "$BIN" load --data "$DIR/range.jsonl" --mode merge "$G"
# main cannot be created or deleted.
refused "'main'|cannot be created or deleted" "$BIN" branch create main "$G"
refused "'main'|cannot be created or deleted" "$BIN" branch delete main "$G"
# A missing file.
for cmd in "load --mode merge --data" "query --query" "mutate --query" "schema plan --schema" \
           "lint --schema $DIR/s.pg --query"; do
  # shellcheck disable=SC2086
  refused "No such file|$DIR/none" "$BIN" $cmd "$DIR/none" "$G"
done
refused "No such file|$DIR/none.pg" "$BIN" init --schema "$DIR/none.pg" "$DIR/fresh"
[ -e "$DIR/fresh" ] && fail "a failed init created its path"
# init refuses a folder holding anything, naming it and what it holds; --force creates the graph
# among the files (saying so, and leaving them alone) but never over a graph (decision 84).
KEEP=$G
G=$DIR/occupied
mkdir -p "$G/notes" && echo hi >"$G/notes/a.md"
refused "init refused|$G|is not empty|1 object: 'notes/a.md'|--force" "$BIN" init --schema "$DIR/s.pg" "$G"
"$BIN" init --force --schema "$DIR/s.pg" "$G" >"$DIR/out" 2>&1 || fail "init --force: $(cat "$DIR/out")"
grep -qF "not a graph, left in place: 'notes/a.md'" "$DIR/out" || fail "init --force output: $(cat "$DIR/out")"
[ "$(cat "$G/notes/a.md")" = hi ] || fail "init --force changed a file it found"
refused "a graph already exists|graph id" "$BIN" init --force --schema "$DIR/s.pg" "$G"
refused "a graph already exists" "$BIN" init --schema "$DIR/s.pg" "$G"
mkdir -p "$DIR/occupied2" && echo hi >"$DIR/occupied2/x"
"$BIN" init --force --json --schema "$DIR/s.pg" "$DIR/occupied2" >"$DIR/out" 2>"$DIR/err" ||
  fail "init --force --json: $(cat "$DIR/err")"
python3 -c 'import json, sys
got = json.load(open(sys.argv[1]))["forced"]
assert got == {"found": ["x"], "found_more": False}, got' "$DIR/out" ||
  fail "init --force --json: $(cat "$DIR/out")"
G=$KEEP
# --query with -e.
printf 'query q() { match { $p: Person } return { $p.name } }\n' >"$DIR/q.gq"
refused "--query and -e conflict" "$BIN" query --query "$DIR/q.gq" -e 'query q() { match { $p: Person } return { $p.name } }' "$G"
# Several queries and no name: "multiple queries", and their names.
printf 'query first() { match { $p: Person } return { $p.name } }\nquery second() { match { $p: Person } return { $p.age } }\n' >"$DIR/two.gq"
refused "multiple queries|first, second" "$BIN" query --query "$DIR/two.gq" "$G"
"$BIN" query second --query "$DIR/two.gq" "$G" >/dev/null 2>&1 || fail "a named query of two"
# An empty name or value: "must not be empty".
refused "name: must not be empty" "$BIN" branch create "" "$G"
refused "must not be empty|--as" "$BIN" --as "" branch create x "$G"
refused "must not be empty|-e" "$BIN" query -e "" "$G"
refused "must not be empty|--branch" "$BIN" export --branch "" "$G"
refused "must not be empty|--branch" "$BIN" load --data "$DIR/ada.jsonl" --mode merge --branch "" "$G"
# An id longer than 4096 bytes is refused (the empty string is an id, docs/design/decisions.md 70).
LONG=$(printf 'x%.0s' $(seq 1 4097))
refused "at most 4096 bytes" "$BIN" mutate -e 'query a($n: String) { insert Person { name: $n } }' \
  --params "{\"n\":\"$LONG\"}" "$G"
refused "must not be empty|--store" "$BIN" --store "" branch list

# A query's type error with a repair: the error line names the position and the code, and the
# repair follows on a line of its own (decision 200's diagnostic, printed by the CLI).
"$BIN" query -e 'query q() { match { $p: Persn } return { $p.name } }' "$G" >"$DIR/out" 2>"$DIR/err"
RC=$?
[ "$RC" = 1 ] || fail "type error exited $RC, want 1: $(cat "$DIR/err")"
[ -s "$DIR/out" ] && fail "type error printed to stdout: $(cat "$DIR/out")"
[ "$(wc -l <"$DIR/err")" = 2 ] || fail "type error: want the error and its fix, got: $(cat "$DIR/err")"
head -1 "$DIR/err" | grep -qF "1:25: T1" || fail "type error line: $(cat "$DIR/err")"
sed -n 2p "$DIR/err" | grep -q '^  fix: the node types are .*Person' || fail "fix line: $(cat "$DIR/err")"
# A parse error has no repair: one line.
refused "Q000" "$BIN" query -e 'query broken( {' "$G"

# The branch name OmniGraph reserves, however it is reached.
refused "reserved|__schema_apply_lock__" "$BIN" branch create __schema_apply_lock__ "$G"
refused "reserved|__schema_apply_lock__" "$BIN" branch create /__schema_apply_lock__ "$G"
refused "reserved|__schema_apply_lock__" "$BIN" load --data "$DIR/ada.jsonl" --mode merge \
  --branch __schema_apply_lock__ --from main "$G"
# Where we differ from OmniGraph on purpose, --help says so.
"$BIN" branch create --help >"$DIR/out" 2>&1; grep -q "need not be" "$DIR/out" || fail "create help: $(cat "$DIR/out")"
grep -q "__schema_apply_lock__" "$DIR/out" || fail "create help lacks the reserved name"
"$BIN" branch delete --help >"$DIR/out" 2>&1; grep -q "forked from it live on" "$DIR/out" || fail "delete help: $(cat "$DIR/out")"
"$BIN" load --help >"$DIR/out" 2>&1; grep -q "still publishes one commit" "$DIR/out" || fail "load help: $(cat "$DIR/out")"
# ...and does it: a parent deleted under a live fork leaves the fork readable.
"$BIN" branch create parent "$G" >/dev/null 2>&1 && "$BIN" branch create --from parent child "$G" >/dev/null 2>&1 &&
  "$BIN" branch create parent/x "$G" >/dev/null 2>&1 || fail "prefix-sharing names"
"$BIN" branch delete parent "$G" >/dev/null 2>&1 || fail "deleting a parent with a live fork"
"$BIN" export --branch child "$G" >"$DIR/out" 2>&1 && grep -q Ada "$DIR/out" || fail "the fork after its parent went: $(cat "$DIR/out")"
echo "cli errors: ok"
