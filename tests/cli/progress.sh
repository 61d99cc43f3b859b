#!/usr/bin/env bash
# Progress on stderr (load, export, cleanup, branch merge): shown when stderr is a terminal (a
# real pseudo-terminal here), never when it is redirected or with --quiet, and never mixed into
# stdout.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# on_tty OUT ERR CMD...: runs CMD with stderr on a new pseudo-terminal and stdout into OUT; what
# the terminal showed goes to ERR. Exits with CMD's status.
on_tty() {
  python3 - "$@" <<'PY'
import os, pty, subprocess, sys
out_path, err_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(out_path, "wb") as out:
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
os.close(slave)
shown = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: the child closed the terminal.
        break
    if not chunk:
        break
    shown += chunk
open(err_path, "wb").write(shown)
sys.exit(p.wait())
PY
}
shows() { grep -qF -- "$1" "$2" || fail "terminal lacks '$1': $(cat -v "$2")"; }
quiet_err() {  # No progress text and no carriage return in a redirected stderr.
  if grep -q 'entities\|tables,' "$1" || grep -q $'\r' "$1"; then
    fail "progress on a redirected stderr: $(cat -v "$1")"
  fi
}

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
edge Knows: Person -> Person
PG
python3 - "$DIR/people.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(3000):
        f.write('{"type":"Person","data":{"name":"p%d","age":%d}}\n' % (i, i % 90))
    for i in range(1, 3000):
        f.write('{"edge":"Knows","from":"p%d","to":"p%d"}\n' % (i - 1, i))
PY
G=$DIR/g
"$BIN" init --schema "$DIR/s.pg" "$G" >/dev/null 2>&1 || fail init

# load on a terminal: the progress line, rewritten in place, finished with a newline; then the
# write echo. stdout is what it is without a terminal.
on_tty "$DIR/out" "$DIR/err" "$BIN" load --data "$DIR/people.jsonl" --mode append "$G" ||
  fail "load on a terminal: $(cat -v "$DIR/err")"
shows $'\r\033[Kload reading: ' "$DIR/err"
shows 'load done: 5,999 entities, ' "$DIR/err"
shows $'/s, ' "$DIR/err"
python3 - "$DIR/err" <<'PY' || fail "the finished line and the echo: $(cat -v "$DIR/err")"
import re, sys
shown = open(sys.argv[1], newline="").read()
finished = r"load done: 5,999 entities, [0-9,]+/s, [0-9.]+ s\r?\nomnigraph load \u2192 "
sys.exit(0 if re.search(finished, shown) else 1)
PY
grep -q 'with append: 5999 entities' "$DIR/out" || fail "load stdout: $(cat "$DIR/out")"
grep -q $'\r\|entities,' "$DIR/out" && fail "progress on stdout: $(cat -v "$DIR/out")"

# The same load redirected: stderr holds the echo alone, byte for byte.
"$BIN" init --schema "$DIR/s.pg" "$DIR/h" >/dev/null 2>&1 || fail init h
"$BIN" load --data "$DIR/people.jsonl" --mode append "$DIR/h" >"$DIR/out2" 2>"$DIR/err2" || fail load h
[ "$(cat "$DIR/err2")" = "omnigraph load → $DIR/h (direct, local)" ] ||
  fail "redirected stderr: $(cat -v "$DIR/err2")"
quiet_err "$DIR/err2"

# --quiet on a terminal: nothing on stderr.
"$BIN" init --schema "$DIR/s.pg" "$DIR/q" >/dev/null 2>&1 || fail init q
on_tty "$DIR/out" "$DIR/err" "$BIN" --quiet load --data "$DIR/people.jsonl" --mode append "$DIR/q" ||
  fail "quiet load"
[ ! -s "$DIR/err" ] || fail "--quiet showed: $(cat -v "$DIR/err")"

# export with stdout to a file and stderr on a terminal: the share of the snapshot's total.
on_tty "$DIR/export.jsonl" "$DIR/err" "$BIN" export "$G" || fail "export on a terminal"
shows 'export done: 5,999 entities, ' "$DIR/err"
[ "$(wc -l <"$DIR/export.jsonl")" = 5999 ] || fail "export lines: $(wc -l <"$DIR/export.jsonl")"
"$BIN" export "$G" >"$DIR/export2.jsonl" 2>"$DIR/err2" || fail "export redirected"
cmp -s "$DIR/export.jsonl" "$DIR/export2.jsonl" || fail "export differs on a terminal"
[ ! -s "$DIR/err2" ] || fail "export's redirected stderr: $(cat -v "$DIR/err2")"

# branch merge and cleanup count tables.
"$BIN" branch create side "$G" >/dev/null 2>&1 || fail "branch create"
printf '{"type":"Person","data":{"name":"side"}}\n' >"$DIR/side.jsonl"
printf '{"type":"Person","data":{"name":"main"}}\n' >"$DIR/main.jsonl"
"$BIN" load --data "$DIR/side.jsonl" --mode merge --branch side "$G" >/dev/null 2>&1 || fail side
"$BIN" load --data "$DIR/main.jsonl" --mode merge "$G" >/dev/null 2>&1 || fail main
on_tty "$DIR/out" "$DIR/err" "$BIN" branch merge side "$G" || fail "merge: $(cat -v "$DIR/err")"
shows 'merge done: 2 tables, ' "$DIR/err"
on_tty "$DIR/out" "$DIR/err" "$BIN" cleanup --keep 1 "$G" || fail "cleanup: $(cat -v "$DIR/err")"
shows 'cleanup done: ' "$DIR/err"
"$BIN" cleanup --keep 1 "$G" >"$DIR/out2" 2>"$DIR/err2" || fail "cleanup redirected"
quiet_err "$DIR/err2"

# A failed load on a terminal clears its line before the error.
printf '{"type":"Person","data":{"name":"x"}}\n{"type":"Nobody"}\n' >"$DIR/bad.jsonl"
on_tty "$DIR/out" "$DIR/err" "$BIN" load --data "$DIR/bad.jsonl" --mode merge "$G" &&
  fail "a bad load succeeded"
shows $'\r\033[Komnigraph: error[invalid_argument]: line 2: ' "$DIR/err"
echo "cli progress: ok"
