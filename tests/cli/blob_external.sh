#!/usr/bin/env bash
# External Blob references end to end (docs/design/blob.md "External Blob references"): a cluster
# graph whose cluster.yaml allows one s3 base; a load through the server stores an admitted URI
# and refuses one outside the base, a load on the store (which has no rules) refuses every URI
# and writes nothing; `blob stat` says external + the URI on the store and through the server
# alike, `blob get` refuses to download it on both, export shows the URI, and GET/HEAD /blob
# answer 302 with Location. Starts a server: label integration.
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

cd "$DIR" || fail "cd"
cat >s.pg <<'PG'
node Doc { name: String @key  body: Blob? }
PG
cat >cluster.yaml <<'YAML'
version: 1
metadata:
  name: ext
graphs:
  ext:
    schema: s.pg
    external_blobs:
      allow:
        - base: s3://assets/docs/
          scope: server_safe
YAML
"$BIN" cluster import --config . >out 2>err || fail "cluster import: $(cat err)"
"$BIN" cluster apply --config . --as tester >out 2>err || fail "cluster apply: $(cat err)"
G=$DIR/graphs/ext.omni
[ -d "$G" ] || fail "apply did not create $G"
echo '{"type":"Doc","data":{"name":"a","body":"s3://assets/docs/a.pdf"}}' >a.jsonl
echo '{"type":"Doc","data":{"name":"m","body":"base64:bWFuYWdlZA=="}}' >m.jsonl
echo '{"type":"Doc","data":{"name":"o","body":"s3://other/o.pdf"}}' >o.jsonl

# The store has no rules: refused, with OmniGraph's words, and nothing written.
before=$(find "$G" -type f | sort)
"$BIN" load --data a.jsonl --mode merge "$G" >out 2>err && fail "a store load of a URI ran"
grep -q "external blob URI 's3://assets/docs/a.pdf' is not allowed: new external Blob URI ingress is denied for this graph" err ||
  fail "store refusal: $(cat err)"
[ "$(find "$G" -type f | sort)" = "$before" ] || fail "a refused store load left objects behind"

OMNIGRAPH_UNAUTHENTICATED=1 launch_server "$SERVER" --cluster .
R=(--server "$URL" --graph ext)
"$BIN" load --data a.jsonl --mode merge "${R[@]}" >out 2>err || fail "served load: $(cat err)"
"$BIN" load --data m.jsonl --mode merge "${R[@]}" >out 2>err || fail "served managed load: $(cat err)"
before=$(find "$G" -type f | sort)
"$BIN" load --data o.jsonl --mode merge "${R[@]}" >out 2>err && fail "a URI outside the base was stored"
grep -q "external blob URI 's3://other/o.pdf' is not allowed: URI is outside every configured external Blob base" err ||
  fail "served refusal: $(cat err)"
[ "$(find "$G" -type f | sort)" = "$before" ] || fail "a refused served load left objects behind"

# stat and get: the same on the store and through the server.
for where in store served; do
  if [ $where = store ]; then A=(--store "$G"); else A=("${R[@]}"); fi
  "$BIN" blob stat node Doc a body "${A[@]}" >"stat.$where" 2>err || fail "$where stat: $(cat err)"
  grep -q "^node Doc 'a' body: external s3://assets/docs/a.pdf" "stat.$where" ||
    fail "$where stat: $(cat "stat.$where")"
  "$BIN" blob stat node Doc a body --json "${A[@]}" >"statj.$where" 2>err || fail "$where stat --json"
  python3 - "statj.$where" <<'PY' || fail "$where stat --json: $(cat "statj.$where")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["kind"] == "external" and d["uri"] == "s3://assets/docs/a.pdf", d
assert "etag" not in d and "size" not in d, d
PY
  "$BIN" blob get node Doc a body --out "got.$where" "${A[@]}" >out 2>err &&
    fail "$where get of an external Blob succeeded"
  grep -q 'external Blob is not downloaded; URI: s3://assets/docs/a.pdf; use `blob stat --json` to inspect the descriptor' err ||
    fail "$where get: $(cat err)"
  [ ! -e "got.$where" ] || fail "$where get created its --out file"
  "$BIN" blob get node Doc m body "${A[@]}" >"m.$where" 2>err || fail "$where managed get"
  [ "$(cat "m.$where")" = managed ] || fail "$where managed get: $(cat "m.$where")"
done
cmp -s stat.store stat.served || fail "stat differs: $(cat stat.store) / $(cat stat.served)"
python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); a['target'].pop('resolved_snapshot',None); b['target'].pop('resolved_snapshot',None); assert a==b,(a,b)" statj.store statj.served ||
  fail "stat --json differs"

# Export shows the URI.
"$BIN" export --store "$G" >export.jsonl 2>err || fail "export: $(cat err)"
grep -q '"body":"s3://assets/docs/a.pdf"' export.jsonl || fail "export: $(cat export.jsonl)"

# HTTP: 302 with the stored URI, for GET and HEAD, whatever the conditional headers.
Q="$URL/graphs/ext/blob?entity=node&type=Doc&id=a&property=body"
curl -s -D head.txt -o body.txt -H 'Range: bytes=0-3' "$Q" || fail "GET"
grep -qi '^HTTP/1.1 302' head.txt || fail "GET status: $(cat head.txt)"
grep -qi '^location: s3://assets/docs/a.pdf' head.txt || fail "GET Location: $(cat head.txt)"
grep -qi '^cache-control: no-store' head.txt || fail "GET Cache-Control: $(cat head.txt)"
grep -qi '^omnigraph-snapshot-id: ' head.txt || fail "GET snapshot: $(cat head.txt)"
grep -qi '^etag' head.txt && fail "GET carries an ETag: $(cat head.txt)"
[ ! -s body.txt ] || fail "GET body: $(cat body.txt)"
curl -s -I -H 'If-None-Match: *' "$Q" >head.txt || fail "HEAD"
grep -qi '^HTTP/1.1 302' head.txt || fail "HEAD status: $(cat head.txt)"
grep -qi '^location: s3://assets/docs/a.pdf' head.txt || fail "HEAD Location: $(cat head.txt)"
echo "ok"
