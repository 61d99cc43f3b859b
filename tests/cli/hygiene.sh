#!/usr/bin/env bash
# Command-line hygiene: reads and failed inits leave the file system as it
# was, bad input is refused with an error that names it, options go before or after the URI,
# and a usage error is one line pointing to --help with exit status 1.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"; }
# The error output is exactly one line and contains $1.
expect_one_line() {
  [ "$(wc -l <"$DIR/err")" = 1 ] || fail "want one line of error, got: $(cat "$DIR/err")"
  grep -qF -- "$1" "$DIR/err" || fail "error lacks '$1': $(cat "$DIR/err")"
}
absent() { [ ! -e "$1" ] || fail "$1 was created: $(find "$1" | head -5)"; }
# Every entry of directory $1, dot files included, one per line.
entries() { (cd "$1" && find . -mindepth 1 | sort); }

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
printf '{"type":"Person","data":{"name":"Ada","age":36}}\n{"type":"Company","data":{"name":"Acme"}}\n' \
  >"$DIR/seed.jsonl"
Q='query staff($c: String) { match { $p: Person  $p worksAt $x  $x: Company { name: $c } } return { $p.name } }'

# Reads and writes on a missing path: "no graph", and nothing is created, parents included.
M=$DIR/missing/deeper/g
on_missing() {
  expect_rc 1 "$BIN" "$@" "$M"
  grep -q 'no graph at' "$DIR/err" || fail "'$*' on a missing path: $(cat "$DIR/err")"
  absent "$DIR/missing"
}
on_missing query -e "$Q" --params '{"c":"Acme"}'
on_missing mutate -e 'query add($n: String) { insert Person { name: $n } }' --params '{"n":"Bo"}'
on_missing commit list
on_missing commit show 00X3AAA4000000000000000000
on_missing branch list
on_missing branch create dev
on_missing branch delete dev
on_missing schema show
on_missing schema plan --schema "$DIR/s.pg"
on_missing export
on_missing cleanup --keep 1
on_missing cleanup --keep 1 --confirm
on_missing load --data "$DIR/seed.jsonl" --mode append
# A read of an existing directory that holds no graph leaves it empty.
mkdir "$DIR/empty"
expect_rc 1 "$BIN" commit list "$DIR/empty"
[ -z "$(entries "$DIR/empty")" ] || fail "a read left: $(entries "$DIR/empty")"

# Failed inits leave nothing: no root, no parents, no temporary folder.
printf 'node Person { name: String @key\n' >"$DIR/broken.pg"
printf 'node person { name: String }\n' >"$DIR/lower.pg"
for schema in "$DIR/broken.pg" "$DIR/lower.pg" "$DIR/no-such.pg" "$DIR"; do
  expect_rc 1 "$BIN" init --schema "$schema" "$DIR/missing/g"
  absent "$DIR/missing"
  expect_rc 1 "$BIN" init --schema "$schema" "$DIR/empty"
  [ -z "$(entries "$DIR/empty")" ] || fail "init --schema $schema left: $(entries "$DIR/empty")"
done
touch "$DIR/file"
expect_rc 1 "$BIN" init --schema "$DIR/s.pg" "$DIR/file/g"
absent "$DIR/file/g"

# A good init; a second one fails and changes nothing.
G=$DIR/g
expect_rc 0 "$BIN" init --schema "$DIR/s.pg" "$G"
entries "$G" >"$DIR/before"
expect_rc 1 "$BIN" init --schema "$DIR/s.pg" "$G"
entries "$G" | diff -q - "$DIR/before" >/dev/null || fail "a refused init changed the graph"

# A directory where a file is expected is an error naming it.
expect_rc 1 "$BIN" load --data "$DIR" --mode append "$G"
expect_one_line "is a directory"
expect_rc 1 "$BIN" query -e "$Q" --params-file "$DIR" "$G"
expect_one_line "is a directory"
expect_rc 0 "$BIN" commit list --json "$G"
[ "$(grep -c graph_commit_id "$DIR/out")" = 1 ] || fail "a refused load left a commit"

# Unknown query parameters are an error naming them, for reads and mutations.
expect_rc 0 "$BIN" load --data "$DIR/seed.jsonl" --mode append "$G"
expect_rc 1 "$BIN" query -e "$Q" --params '{"c":"Acme","who":1,"zz":2}' "$G"
expect_one_line "unknown parameters 'who', 'zz' for query 'staff' (it declares \$c)"
expect_rc 1 "$BIN" mutate -e 'query add($n: String) { insert Person { name: $n } }' \
  --params '{"n":"Bo","name":"Bo"}' "$G"
expect_one_line "unknown parameter 'name' for query 'add' (it declares \$n)"
expect_rc 1 "$BIN" query -e 'query all() { match { $p: Person } return { $p.name } }' \
  --params '{"c":"Acme"}' "$G"
expect_one_line "unknown parameter 'c' for query 'all' (it declares no parameters)"

# Negative or zero counts are errors naming the option, not huge numbers.
expect_rc 1 "$BIN" commit list --limit -1 "$G"
expect_one_line "--limit"
expect_rc 1 "$BIN" commit list --limit 12x "$G"
expect_one_line "--limit"
expect_rc 1 "$BIN" cleanup --keep -1 "$G"
expect_one_line "--keep"
expect_rc 1 "$BIN" cleanup --keep 0 "$G"
expect_one_line "--keep"
expect_rc 0 "$BIN" commit list --limit 0 --json "$G"
[ "$(grep -c graph_commit_id "$DIR/out")" = 0 ] || fail "--limit 0: $(cat "$DIR/out")"

# Options before or after the URI, in every command.
expect_rc 0 "$BIN" export --type Person "$G"
grep -q '"Ada"' "$DIR/out" || fail "export --type T URI: $(cat "$DIR/out")"
grep -q 'Acme' "$DIR/out" && fail "export --type Person exported a Company"
expect_rc 0 "$BIN" export "$G" --type Person --type Company
grep -q 'Acme' "$DIR/out" || fail "export URI --type T --type U: $(cat "$DIR/out")"
expect_rc 0 "$BIN" init "$DIR/g2" --schema "$DIR/s.pg"
expect_rc 0 "$BIN" load "$DIR/g2" --data "$DIR/seed.jsonl" --mode append
expect_rc 0 "$BIN" query "$G" -e "$Q" --params '{"c":"Acme"}' --format csv
expect_rc 0 "$BIN" query staff "$G" -e "$Q" --params '{"c":"Acme"}'
expect_rc 0 "$BIN" query staff --store "$G" -e "$Q" --params '{"c":"Acme"}'
expect_rc 0 "$BIN" query -e "$Q" --params '{"c":"Acme"}' --store "$G"
expect_rc 1 "$BIN" query -e "$Q" --params '{"c":"Acme"}'
expect_one_line "no graph given"
expect_rc 0 "$BIN" mutate "$G" -e 'query add($n: String) { insert Person { name: $n } }' --params '{"n":"Bo"}'
expect_rc 0 "$BIN" commit list "$G" --limit 1 --json
[ "$(grep -c graph_commit_id "$DIR/out")" = 1 ] || fail "commit list URI --limit 1: $(cat "$DIR/out")"
expect_rc 0 "$BIN" branch create dev "$G" --from main
expect_rc 0 "$BIN" branch create --from dev dev2 "$G"
expect_rc 0 "$BIN" branch list "$G" --json
expect_rc 0 "$BIN" branch delete dev2 "$G"
expect_rc 0 "$BIN" schema show "$G" --branch dev
expect_rc 0 "$BIN" schema plan "$G" --schema "$DIR/s.pg"
expect_rc 0 "$BIN" cleanup "$G" --keep 5
expect_rc 0 "$BIN" --quiet load --data "$DIR/seed.jsonl" --mode merge "$G"
[ -s "$DIR/err" ] && fail "--quiet before the command still echoed: $(cat "$DIR/err")"
expect_rc 0 "$BIN" load "$G" --data "$DIR/seed.jsonl" --mode merge --quiet
[ -s "$DIR/err" ] && fail "--quiet after the URI still echoed: $(cat "$DIR/err")"

# A load runs on base pages: it no longer executes itself again with glibc's huge-page tunable
# added (decision 230 reverses decision 80). strace -v shows each execve's environment; an exec
# carrying the tunable is what is counted (a sanitizer runtime may execute itself again for its
# own reasons, with the environment as it was).
trace_execs() {
  # LeakSanitizer refuses to run under ptrace: an ASan build is traced with leak checks off.
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -v -s 512 -e trace=execve -o "$DIR/trace" "$BIN" "$@" >"$DIR/out" 2>"$DIR/err" ||
    fail "'$*' under strace: $(cat "$DIR/err")"
  grep -c 'execve(.*glibc\.malloc\.hugetlb' "$DIR/trace"
}
export GLIBC_TUNABLES=glibc.malloc.perturb=0
[ "$(trace_execs --quiet load "$G" --data "$DIR/seed.jsonl" --mode merge)" = 0 ] ||
  fail "load executed itself again with the huge-page tunable: $(cat "$DIR/trace")"
unset GLIBC_TUNABLES

# Usage errors: one line naming the problem and pointing to --help, exit 1.
expect_rc 1 "$BIN"
expect_one_line "omnigraph --help"
expect_rc 1 "$BIN" frobnicate "$G"
expect_one_line "frobnicate"
grep -q -- "--help" "$DIR/err" || fail "no pointer to --help: $(cat "$DIR/err")"
expect_rc 1 "$BIN" init --bogus "$G"
expect_one_line "--bogus"
grep -q -- "omnigraph init --help" "$DIR/err" || fail "no pointer to init --help: $(cat "$DIR/err")"
expect_rc 1 "$BIN" init "$DIR/g3"
expect_one_line "--schema"
absent "$DIR/g3"
expect_rc 1 "$BIN" load --mode append "$G"
expect_one_line "--data"
expect_rc 1 "$BIN" commit "$G"
expect_one_line "omnigraph commit --help"
expect_rc 1 "$BIN" branch create
expect_one_line "omnigraph branch create --help"
expect_rc 1 "$BIN" query "$G" extra "$G" -e "$Q"
expect_one_line "--help"
expect_rc 0 "$BIN" --help
grep -q 'init' "$DIR/out" || fail "--help: $(cat "$DIR/out")"
expect_rc 0 "$BIN" export --help
grep -q -- '--type' "$DIR/out" || fail "export --help: $(cat "$DIR/out")"
echo "cli hygiene: ok"
