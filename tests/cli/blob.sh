#!/usr/bin/env bash
# Blob reads (docs/design/blob.md): `omnigraph blob get|stat` on a local graph and through
# omnigraph-server give the same bytes and the same stat; GET/HEAD /blob at the HTTP level (curl)
# with Range (206, Content-Range), an unsatisfiable range (416, bytes */N, blob_range), ETag and
# If-None-Match (304), If-Range, If-Match (412), the 404 and 400 envelopes; and the server's
# peak RSS while it streams a large Blob grows by far less than the Blob. Starts a server: label
# integration.
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
# The large Blob, in MiB of random (incompressible) bytes: one load line holds at most 32 MiB of
# base64, so 22 MiB is near the largest value any write admits.
BIG_MIB=${OMNIGRAPH_BLOB_TEST_MIB:-22}

cat >"$DIR/s.pg" <<'PG'
node Doc { name: String @key  body: Blob?  note: String? }
edge Cites: Doc -> Doc { proof: Blob? }
PG
head -c 300000 /dev/urandom >"$DIR/small.bin"   # plain (incompressible)
yes 'compressible text ' | head -c 3000000 >"$DIR/text.bin"  # stored zstd-compressed
head -c $((BIG_MIB << 20)) /dev/urandom >"$DIR/big.bin"
python3 - "$DIR" <<'PY' || fail "seed data"
import base64, json, sys
d = sys.argv[1]
def b(name):
    return "base64:" + base64.b64encode(open(f"{d}/{name}", "rb").read()).decode()
rows = [
    {"type": "Doc", "data": {"name": "small", "body": b("small.bin")}},
    {"type": "Doc", "data": {"name": "text", "body": b("text.bin"), "note": "n"}},
    {"type": "Doc", "data": {"name": "empty", "body": "base64:"}},
    {"type": "Doc", "data": {"name": "none", "note": "no body"}},
    {"edge": "Cites", "from": "small", "to": "text", "data": {"proof": "base64:cHJvb2Y="}},
]
with open(f"{d}/seed.jsonl", "w") as f:
    for r in rows:
        f.write(json.dumps(r) + "\n")
with open(f"{d}/big.jsonl", "w") as f:
    f.write(json.dumps({"type": "Doc", "data": {"name": "big", "body": b("big.bin")}}) + "\n")
PY

G=$DIR/g
"$BIN" --quiet init --schema "$DIR/s.pg" "$G" >/dev/null || fail "init"
"$BIN" --quiet load --data "$DIR/seed.jsonl" --mode merge "$G" >/dev/null || fail "seed"
"$BIN" --quiet load --data "$DIR/big.jsonl" --mode merge "$G" >/dev/null || fail "big"
rm -f "$DIR/big.jsonl"
# Under AddressSanitizer freed memory waits in a quarantine (256 MiB by default) instead of being
# reused, which would make every streamed piece look resident: keep it small for the server.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=4" \
  OMNIGRAPH_UNAUTHENTICATED=1 launch_server "$SERVER" "$G"

# Streaming: the server's peak RSS grows by far less than the Blob it serves.
curl -s -o /dev/null "$URL/blob?entity=node&type=Doc&id=small&property=body" || fail "warm-up"
hwm() { awk '/^VmHWM/ {print $2}' "/proc/$SPID/status"; }
before=$(hwm)
[ "$(curl -s -o /dev/null -w '%{http_code} %{size_download}' \
  "$URL/blob?entity=node&type=Doc&id=big&property=body")" = "200 $((BIG_MIB << 20))" ] ||
  fail "big GET"
after=$(hwm)
growth_kib=$((after - before))
echo "server VmHWM grew by $growth_kib KiB while serving a $BIG_MIB MiB Blob"
[ "$growth_kib" -lt $((BIG_MIB * 1024 / 2)) ] ||
  fail "the server's peak RSS grew by $growth_kib KiB serving $BIG_MIB MiB"

# Local and served: the same bytes as were loaded, and the same stat.
for name in small text empty big; do
  "$BIN" blob get node Doc "$name" body --store "$G" >"$DIR/local.$name" 2>"$DIR/err" ||
    fail "local get $name: $(cat "$DIR/err")"
  "$BIN" blob get node Doc "$name" body --server "$URL" --out "$DIR/served.$name" 2>"$DIR/err" ||
    fail "served get $name: $(cat "$DIR/err")"
  want=$DIR/$name.bin
  [ "$name" = empty ] && want=/dev/null
  cmp -s "$DIR/local.$name" "$want" || fail "local get $name: other bytes than loaded"
  cmp -s "$DIR/served.$name" "$want" || fail "served get $name: other bytes than loaded"
  for form in "" --json; do
    "$BIN" blob stat node Doc "$name" body $form --store "$G" >"$DIR/stat.l" 2>&1 ||
      fail "local stat $name: $(cat "$DIR/stat.l")"
    "$BIN" blob stat node Doc "$name" body $form --server "$URL" >"$DIR/stat.s" 2>&1 ||
      fail "served stat $name: $(cat "$DIR/stat.s")"
    cmp -s "$DIR/stat.l" "$DIR/stat.s" ||
      fail "stat $name $form differs: $(cat "$DIR/stat.l") vs $(cat "$DIR/stat.s")"
  done
done
grep -q "\"size\": $((BIG_MIB << 20))" "$DIR/stat.l" || fail "big stat: $(cat "$DIR/stat.l")"
# An edge's Blob; ranges by --offset/--length, the same on both sides.
for where in "--store $G" "--server $URL"; do
  for args in "--offset 1000 --length 5000" "--offset 299990" "--length 7" "--offset 299999 --length 50"; do
    # shellcheck disable=SC2086
    "$BIN" blob get node Doc small body $args $where >"$DIR/part" 2>"$DIR/err" ||
      fail "get $args $where: $(cat "$DIR/err")"
    python3 - "$DIR/small.bin" "$DIR/part" $args <<'PY' || fail "get $args $where: wrong bytes"
import sys
data, part = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
a = dict(zip(sys.argv[3::2], sys.argv[4::2]))
start = int(a.get("--offset", 0))
end = start + int(a["--length"]) if "--length" in a else len(data)
sys.exit(0 if part == data[start:end] else 1)
PY
  done
  # shellcheck disable=SC2086
  "$BIN" blob get node Doc small body --offset 300000 $where >/dev/null 2>"$DIR/err.$$" &&
    fail "a start at the end was served ($where)"
  grep -q "not satisfiable" "$DIR/err.$$" || fail "unsatisfiable ($where): $(cat "$DIR/err.$$")"
  # shellcheck disable=SC2086
  "$BIN" blob get node Doc none body $where >/dev/null 2>"$DIR/err.$$" && fail "a null cell"
  grep -q "is null" "$DIR/err.$$" || fail "null cell ($where): $(cat "$DIR/err.$$")"
  # shellcheck disable=SC2086
  "$BIN" blob get node Doc nobody body $where >/dev/null 2>"$DIR/err.$$" && fail "no entity"
  # shellcheck disable=SC2086
  "$BIN" blob get node Doc small note $where >/dev/null 2>"$DIR/err.$$" && fail "a String"
  [ "$where" = "--store $G" ] && { grep -q "not Blob" "$DIR/err.$$" || fail "$(cat "$DIR/err.$$")"; }
done
"$BIN" blob get node Doc small body --length 0 --store "$G" >/dev/null 2>&1 && fail "--length 0"
EDGE=$("$BIN" export --type Cites "$G" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["data"]["id"])')
"$BIN" blob get edge Cites "$EDGE" proof --store "$G" >"$DIR/proof" 2>"$DIR/err" ||
  fail "edge get: $(cat "$DIR/err")"
[ "$(cat "$DIR/proof")" = proof ] || fail "edge blob: $(cat "$DIR/proof")"

# HTTP, with curl.
B="$URL/blob?entity=node&type=Doc&id=small&property=body"
hdr() { grep -i "^$1:" "$DIR/h" | head -1 | cut -d' ' -f2- | tr -d '\r'; }
code() { rm -f "$DIR/body"; : >"$DIR/body"; curl -s -o "$DIR/body" -D "$DIR/h" -w '%{http_code}' "$@"; }
[ "$(code "$B")" = 200 ] || fail "GET: $(cat "$DIR/h")"
cmp -s "$DIR/body" "$DIR/small.bin" || fail "GET body"
ETAG=$(hdr etag)
[ -n "$ETAG" ] && [ "$(hdr accept-ranges)" = bytes ] && [ "$(hdr content-length)" = 300000 ] ||
  fail "GET headers: $(cat "$DIR/h")"
[ -n "$(hdr omnigraph-snapshot-id)" ] || fail "no Omnigraph-Snapshot-Id"
[ "$(code -I "$B")" = 200 ] && [ "$(hdr content-length)" = 300000 ] && [ "$(hdr etag)" = "$ETAG" ] ||
  fail "HEAD: $(cat "$DIR/h")"
[ "$(code -H 'Range: bytes=10-19' "$B")" = 206 ] || fail "Range: $(cat "$DIR/h")"
[ "$(hdr content-range)" = "bytes 10-19/300000" ] && [ "$(hdr content-length)" = 10 ] ||
  fail "206 headers: $(cat "$DIR/h")"
cmp -s "$DIR/body" <(tail -c +11 "$DIR/small.bin" | head -c 10) || fail "206 body"
[ "$(code -H 'Range: bytes=-5' "$B")" = 206 ] && [ "$(hdr content-range)" = "bytes 299995-299999/300000" ] ||
  fail "suffix range: $(cat "$DIR/h")"
[ "$(code -H 'Range: bytes=300000-' "$B")" = 416 ] && [ "$(hdr content-range)" = "bytes */300000" ] ||
  fail "416: $(cat "$DIR/h")"
python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["blob_range"]; sys.exit(0 if b=={"start":300000,"end":300000,"length":300000} else 1)' \
  "$DIR/body" || fail "416 body: $(cat "$DIR/body")"
[ "$(code -H 'Range: bytes=5-2' "$B")" = 200 ] || fail "a malformed range is ignored"
[ "$(code -H 'Range: bytes=0-1,5-6' "$B")" = 200 ] || fail "several ranges are ignored"
[ "$(code -H "If-None-Match: $ETAG" "$B")" = 304 ] && [ ! -s "$DIR/body" ] || fail "304: $(cat "$DIR/h")"
[ "$(code -H "If-None-Match: W/$ETAG" "$B")" = 304 ] || fail "weak If-None-Match"
[ "$(code -H 'If-None-Match: "other"' "$B")" = 200 ] || fail "If-None-Match other"
[ "$(code -H 'Range: bytes=0-0' -H "If-Range: $ETAG" "$B")" = 206 ] || fail "If-Range match"
[ "$(code -H 'Range: bytes=0-0' -H 'If-Range: "stale"' "$B")" = 200 ] || fail "If-Range stale"
[ "$(code -H 'If-Match: "stale"' "$B")" = 412 ] && grep -q '"code":"conflict"' "$DIR/body" ||
  fail "If-Match: $(cat "$DIR/body")"
[ "$(code -H "If-Match: $ETAG" "$B")" = 200 ] || fail "If-Match current"
E="$URL/blob?entity=node&type=Doc&id=empty&property=body"
[ "$(code -H 'Range: bytes=0-0' "$E")" = 416 ] && [ "$(hdr content-range)" = "bytes */0" ] ||
  fail "an empty Blob's range: $(cat "$DIR/h")"
[ "$(code "$E")" = 200 ] && [ "$(hdr content-length)" = 0 ] || fail "empty Blob: $(cat "$DIR/h")"
[ "$(code "$URL/blob?entity=node&type=Doc&id=nobody&property=body")" = 404 ] &&
  grep -q '"code":"not_found"' "$DIR/body" || fail "404: $(cat "$DIR/body")"
[ "$(code "$URL/blob?entity=node&type=Doc&id=none&property=body")" = 404 ] || fail "null 404"
[ "$(code "$URL/blob?entity=node&type=Doc&id=small&property=note")" = 400 ] &&
  grep -q '"code":"bad_request"' "$DIR/body" || fail "non-Blob 400: $(cat "$DIR/body")"
[ "$(code "$URL/blob?entity=thing&type=Doc&id=small&property=body")" = 400 ] || fail "entity 400"
[ "$(code "$URL/blob?entity=node&type=Doc&property=body")" = 400 ] || fail "missing id 400"
[ "$(code "$B&branch=main&snapshot=x")" = 400 ] || fail "branch and snapshot 400"

[ "$(code "$URL/graphs/x/blob?entity=node&type=Doc&id=small&property=body")" = 404 ] ||
  fail "an unknown graph"

echo PASS
