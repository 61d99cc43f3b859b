#!/usr/bin/env bash
# A large `load` or `ingest` of a local file re-executes the CLI once with glibc's heap on
# transparent huge pages where the kernel gives them cheaply (decision 250): the answer, stdout,
# stderr and exit status are those of a run without it (OMNIGRAPH_LOAD_HUGE_PAGES=0), global
# options before and after the command and `--data=F` included; a small input, `--server`, or the
# setting 0 never re-executes. Counting the executions needs strace; without it only the answers
# are compared.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32?  note: String? }
PG
# 34 MiB of persons (above the 32 MiB at which a load asks for huge pages), and a small file.
python3 - "$DIR/big.jsonl" "$DIR/small.jsonl" <<'PY'
import sys
pad = "x" * 80
with open(sys.argv[1], "w") as f:
    i = 0
    while f.tell() < 34 * 1024 * 1024:
        f.write('{"type":"Person","data":{"name":"p%d","age":%d,"note":"%s"}}\n' % (i, i % 90, pad))
        i += 1
with open(sys.argv[2], "w") as f:
    for i in range(10):
        f.write('{"type":"Person","data":{"name":"s%d","age":%d}}\n' % (i, i))
PY
[ "$(stat -c %s "$DIR/big.jsonl")" -ge $((32 << 20)) ] || fail "input under 32 MiB"

# run NAME ENV... -- ARGS...: the CLI on a fresh graph, stdout/stderr/status kept under NAME.
run() {
  local name=$1; shift
  local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  rm -rf "$DIR/g"
  "$BIN" init --schema "$DIR/s.pg" "$DIR/g" >/dev/null 2>&1 || fail "init for $name"
  if command -v strace >/dev/null; then
    # LeakSanitizer refuses to run under ptrace (an ASan build aborts at exit): off for these.
    env "${env[@]}" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -v -s 256 -e trace=execve -o "$DIR/$name.trace" "$BIN" "$@" \
      >"$DIR/$name.out" 2>"$DIR/$name.err"
  else
    env "${env[@]}" "$BIN" "$@" >"$DIR/$name.out" 2>"$DIR/$name.err"
  fi
  echo $? >"$DIR/$name.rc"
}
execs() { grep -c 'execve(' "$DIR/$1.trace"; }
same() {  # The answers of two runs, ids and times aside.
  for part in out err rc; do
    python3 - "$DIR/$1.$part" "$DIR/$2.$part" <<'PY' || fail "$1 and $2 differ in $part"
import re, sys
def norm(path):
    t = open(path).read()
    t = re.sub(r'"(commit|commit_id|actor_id)": *"[^"]*"', r'"\1":""', t)
    return re.sub(r'[0-9A-HJKMNP-TV-Z]{26}', 'ULID', t)
sys.exit(0 if norm(sys.argv[1]) == norm(sys.argv[2]) else 1)
PY
  done
}

run big X=1 -- --as alice load --data "$DIR/big.jsonl" --mode overwrite "$DIR/g"
run big_off OMNIGRAPH_LOAD_HUGE_PAGES=0 -- --as alice load --data "$DIR/big.jsonl" --mode overwrite "$DIR/g"
[ "$(cat "$DIR/big.rc")" = 0 ] || fail "big load: $(cat "$DIR/big.err")"
same big big_off
grep -q '[0-9]' "$DIR/big.out" || fail "no counts: $(cat "$DIR/big.out")"
run eq X=1 -- load --data="$DIR/big.jsonl" --mode append --quiet "$DIR/g"
run eq_off OMNIGRAPH_LOAD_HUGE_PAGES=0 -- load --data="$DIR/big.jsonl" --mode append --quiet "$DIR/g"
same eq eq_off
run ingest X=1 -- ingest --data "$DIR/big.jsonl" "$DIR/g"
run ingest_off OMNIGRAPH_LOAD_HUGE_PAGES=0 -- ingest --data "$DIR/big.jsonl" "$DIR/g"
same ingest ingest_off
[ "$(grep -c deprecated "$DIR/ingest.err")" = 1 ] || fail "ingest warned $(grep -c deprecated "$DIR/ingest.err") times"
run small X=1 -- load --data "$DIR/small.jsonl" --mode append "$DIR/g"
[ "$(cat "$DIR/small.rc")" = 0 ] || fail "small load: $(cat "$DIR/small.err")"

if command -v strace >/dev/null; then
  for r in big_off eq_off ingest_off small; do
    [ "$(execs $r)" = 1 ] || fail "$r executed $(execs $r) times"
  done
  # Whether this machine gives huge pages cheaply now: THP on madvise, and free 2 MiB blocks for
  # three times the input and 256 MiB more (what api::Database::LoadWantsHugePageHeap asks).
  want=$(python3 - "$(stat -c %s "$DIR/big.jsonl")" <<'PY'
import sys
size = int(sys.argv[1])
try:
    mode = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    free = 0
    for line in open("/proc/buddyinfo"):
        counts = [int(x) for x in line.split()[4:]]
        free += sum(c * 4096 * 2**o for o, c in enumerate(counts) if o >= 9)
except OSError:
    print(1); sys.exit()
print(2 if "[madvise]" in mode and free >= 3 * size + (256 << 20) + (64 << 20) else 0)
PY
)
  for r in big eq ingest; do
    got=$(execs $r)
    if [ "$want" = 0 ]; then
      [ "$got" -le 2 ] || fail "$r executed $got times"
    else
      [ "$got" = "$want" ] || fail "$r executed $got times, expected $want"
    fi
  done
  # Once re-executed, the process runs with the tunable and does not execute again.
  if [ "$want" = 2 ]; then
    grep -q 'glibc.malloc.hugetlb=1' "$DIR/big.trace" || fail "no tunable in $(cat "$DIR/big.trace")"
  fi
fi
echo "huge_heap: ok"
