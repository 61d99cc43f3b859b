#!/usr/bin/env bash
# The omnigraph command against an omnigraph-server (--server URL --token T) gives the same output
# as against a local graph: the same commands run on a local graph and, through a server, on a
# copy of it, and their stdout, stderr and exit status are compared (human forms and --json),
# after commit ids, dates and the two graphs' paths are made comparable. Then the failures only
# a server has: a wrong or missing token, a token without the grant, an unreachable or malformed
# URL, a verb the server has no route for. Starts a server: label integration.
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

cat >"$DIR/s.pg" <<'PG'
node Person { name: String @key  age: I32? }
node Company { name: String @key }
edge WorksAt: Person -> Company
PG
printf '{"type":"Person","data":{"name":"Ada","age":36}}\n{"type":"Company","data":{"name":"Acme"}}\n' \
  >"$DIR/seed.jsonl"
printf '{"type":"Person","data":{"name":"Bob","age":41}}\n{"type":"Person","data":{"name":"Cy"}}\n' \
  >"$DIR/more.jsonl"
printf '{"type":"Person","data":{"name":"Dee"}}\n{"type":"Nope","data":{}}\n' >"$DIR/bad.jsonl"
cp "$DIR/s.pg" "$DIR/s2.pg"
echo 'node Team { name: String @key }' >>"$DIR/s2.pg"
cat >"$DIR/q.gq" <<'GQ'
query people() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }
query older($min: I32) { match { $p: Person } where { $p.age > $min } return { $p.name } }
GQ
HIRE='query hire($p: String, $c: String) { insert WorksAt { from: $p, to: $c } }'

G=$DIR/g
"$BIN" --quiet init --schema "$DIR/s.pg" "$G" >/dev/null || fail "init"
"$BIN" --quiet --as ana load --data "$DIR/seed.jsonl" --mode merge "$G" >/dev/null || fail "seed"
# The server's graph: a copy, so that both sides start from the same state.
S=$DIR/served
cp -a "$G" "$S"
start_server "$SERVER" "$S" '{"ana":"tok-ana","ro":"tok-ro"}' ana

# The id of the N-th newest commit on main, on the local graph or through the server.
local_id() { "$BIN" commit list --json "$G" | python3 -c "import json,sys; print(json.load(sys.stdin)['commits'][$1]['graph_commit_id'])"; }
remote_id() { "$BIN" --server "$URL" --token tok-ana commit list --json | python3 -c "import json,sys; print(json.load(sys.stdin)['commits'][$1]['graph_commit_id'])"; }

# Makes one side's output comparable: the served copy's path is the local graph's, the server's
# echo is the local one's, commit ids (and their short forms) are numbered in order of first
# appearance as are edge ULIDs, and times and staged version numbers (random) are blanked.
normalize() {
  python3 "$(dirname "$0")/normalize.py" "$1" --replace "$S" "$G" \
    --replace "→ $URL (served)" "→ $G (direct, local)"
}

N=0
# both ARGS...: runs `omnigraph ARGS` on the local graph (as ana) and through the server (ana's
# token), and fails unless stdout, stderr and the exit status agree. An argument @Cn@ is the n-th
# newest commit on main of each side.
both() {
  N=$((N + 1))
  local largs=() rargs=() a
  for a in "$@"; do
    if [[ "$a" =~ ^@C([0-9]+)@$ ]]; then
      largs+=("$(local_id "${BASH_REMATCH[1]}")")
      rargs+=("$(remote_id "${BASH_REMATCH[1]}")")
    else
      largs+=("$a")
      rargs+=("$a")
    fi
  done
  "$BIN" --as ana "${largs[@]}" "$G" >"$DIR/l.out" 2>"$DIR/l.err"
  echo "rc $?" >>"$DIR/l.err"
  "$BIN" "${rargs[@]}" --server "$URL" --token tok-ana >"$DIR/r.out" 2>"$DIR/r.err"
  echo "rc $?" >>"$DIR/r.err"
  for f in l.out l.err r.out r.err; do normalize "$DIR/$f"; done
  diff -u "$DIR/l.out" "$DIR/r.out" >"$DIR/diff" ||
    fail "#$N '$*': stdout differs (local -, server +):
$(cat "$DIR/diff")"
  diff -u "$DIR/l.err" "$DIR/r.err" >"$DIR/diff" ||
    fail "#$N '$*': stderr or exit status differs (local -, server +):
$(cat "$DIR/diff")"
}

# Reads, in every output format.
for f in table json jsonl csv kv; do both query people --query "$DIR/q.gq" --format "$f"; done
both query older --query "$DIR/q.gq" --params '{"min": 30}' --json
both query -e 'query n() { match { $c: Company } return { $c.name } }'
# Writes, human and --json, and the echo on stderr.
both load --data "$DIR/more.jsonl" --mode merge
both load --data "$DIR/more.jsonl" --mode merge --json
both load --data "$DIR/more.jsonl" --mode append --branch dev --from main --json
both mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}'
both mutate -e "$HIRE" --params '{"p":"Bob","c":"Acme"}' --json
both mutate -e "$HIRE" --params '{"p":"Cy","c":"Acme"}' --branch dev
both mutate -e 'query rm($n: String) { delete Person where name = $n }' --params '{"n":"Nobody"}' --json
both export
both export --type Person --branch dev
# Branches.
both branch create x
both branch create --from dev y --json
both branch list
both branch list --json
# Deleting a branch of a served graph asks for consent (decision 159): refused without --yes
# (there is no terminal to ask on), nothing deleted; done with it.
"$BIN" branch delete y --json --server "$URL" --token tok-ana >"$DIR/out" 2>"$DIR/err" &&
  fail "a served branch delete without --yes ran: $(cat "$DIR/out")"
grep -q "^omnigraph: error\[invalid_argument\]: branch delete is destructive and its target is not local: $URL (served); pass --yes to confirm" "$DIR/err" ||
  fail "served branch delete without --yes: $(cat "$DIR/err")"
both branch delete y --json --yes
both branch delete x --yes
both branch merge dev --json
both branch merge dev
# History and snapshots.
both commit list
both commit list --json
both commit list --limit 2
both commit list --limit 2 --json
# The audit filter: ana's commits only (genesis has no actor), paged, and nobody's (none).
both commit list --actor ana
both commit list --actor ana --limit 1 --json
both commit list --actor nobody --json
both commit show @C0@
both commit show @C1@ --json
both commit changes @C1@
both commit changes @C1@ --json
both snapshot
both snapshot --json
both snapshot --snapshot @C2@ --json
both snapshot --branch dev
# The change feed: pages from the beginning and from now, human and --json, and the baseline
# (a remote handle once had no change feed at all: it crashed).
both changes poll --start beginning --json
both changes poll --start beginning --limit 2
both changes poll --branch dev --start beginning --json
both changes poll --json
both changes baseline
both changes baseline --branch dev
both changes poll --branch nope
# Filters, the walk through every page, one page from a token, the inherited history of a branch
# and the durable --out baseline: the same through either door (docs/design/change-feed.md).
both changes poll --start beginning --kind node --op insert --json
both changes poll --start beginning --type WorksAt --type Company --page-size 1
both changes poll --start beginning --kind vertex
both changes poll --branch dev --start beginning --page-size 1 --json
both changes poll --branch dev --start beginning --kind edge
both changes baseline --kind node --type Person
both changes baseline --op upsert
both commit list --page-size 1
both commit list --page-size 2 --json
both commit changes @C1@ --page-size 1
both commit changes @C1@ --page-size 1 --kind node --json
for side in local remote; do
  if [ $side = local ]; then run=("$BIN" --as ana); tail_args=("$G"); else
    run=("$BIN"); tail_args=(--server "$URL" --token tok-ana); fi
  "${run[@]}" changes baseline --out "$DIR/$side.base" --kind node --json "${tail_args[@]}" \
    >"$DIR/$side.hand" || fail "changes baseline --out ($side)"
  python3 -c 'import json,sys; h=json.load(open(sys.argv[1])); assert h["resume_cursor"].startswith("c1."), h' \
    "$DIR/$side.hand" || fail "baseline handshake ($side): $(cat "$DIR/$side.hand")"
  grep -q baseline "$DIR/$side.base" && fail "the handshake went into the --out file ($side)"
  normalize "$DIR/$side.base"
  # One page exactly from a token the server's GET /commits handed out, and the feed's.
  token=$("${run[@]}" changes poll --start beginning --limit 1 --json "${tail_args[@]}" |
    python3 -c "import json,sys; print(json.load(sys.stdin)['next_page_token'])")
  "${run[@]}" changes poll --page-token "$token" --limit 1 --json "${tail_args[@]}" >"$DIR/$side.one" ||
    fail "changes poll --page-token ($side)"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["blocks"]) == 1 and "next_page_token" in d, d' \
    "$DIR/$side.one" || fail "one page from a token ($side): $(cat "$DIR/$side.one")"
done
diff -u "$DIR/local.base" "$DIR/remote.base" || fail "the --out baselines differ"
CTOKEN=$(curl -s -H 'Authorization: Bearer tok-ana' "$URL/commits?limit=1" |
  python3 -c "import json,sys; print(json.load(sys.stdin)['next_page_token'])")
"$BIN" commit list --page-token "$CTOKEN" --limit 1 --json --server "$URL" --token tok-ana >"$DIR/page" ||
  fail "commit list --page-token"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["commits"]) == 1 and "next_page_token" in d, d' \
  "$DIR/page" || fail "commit list one page: $(cat "$DIR/page")"
# A page's cursor continues the feed through either door: the next page is the same.
for side in local remote; do
  if [ $side = local ]; then run=("$BIN" --as ana); tail_args=("$G"); else
    run=("$BIN"); tail_args=(--server "$URL" --token tok-ana); fi
  cursor=$("${run[@]}" changes poll --start beginning --limit 1 --json "${tail_args[@]}" |
    python3 -c "import json,sys; p=json.load(sys.stdin); print(p.get('next_page_token') or p['cursor'])")
  "${run[@]}" changes poll --cursor "$cursor" --limit 1 --json "${tail_args[@]}" >"$DIR/$side.page" ||
    fail "changes poll --cursor ($side)"
  normalize "$DIR/$side.page"
done
diff -u "$DIR/local.page" "$DIR/remote.page" || fail "the page after a cursor differs"
# Idempotency keys: the second call with the same key publishes nothing and answers as the first,
# through either door.
both mutate -e "$HIRE" --params '{"p":"Cy","c":"Acme"}' --idempotency-key hire-cy --json
BEFORE_L=$(local_id 0) BEFORE_R=$(remote_id 0)
both mutate -e "$HIRE" --params '{"p":"Cy","c":"Acme"}' --idempotency-key hire-cy --json
[ "$(local_id 0)" = "$BEFORE_L" ] || fail "a repeated idempotency key published a commit (local)"
[ "$(remote_id 0)" = "$BEFORE_R" ] || fail "a repeated idempotency key published a commit (server)"
both mutate -e "$HIRE" --params '{"p":"Bob","c":"Acme"}' --idempotency-key hire-cy --json
both load --data "$DIR/more.jsonl" --mode merge --idempotency-key bad\ key
# The header in any case, as HTTP says: three appends of new people with one key are one commit
# (without the key the second would be a key conflict).
printf '{"type":"Person","data":{"name":"Eve"}}\n' >"$DIR/eve.jsonl"
BEFORE_R=$(remote_id 0)
for h in Idempotency-Key idempotency-key IDEMPOTENCY-KEY; do
  code=$(curl -s -o "$DIR/curl.out" -w '%{http_code}' -X POST -H 'Authorization: Bearer tok-ana' \
    -H "$h: load-eve" -H 'Content-Type: application/x-ndjson' --data-binary @"$DIR/eve.jsonl" \
    "$URL/load/ndjson?mode=append")
  [ "$code" = 200 ] || fail "keyed load with header '$h' answered $code: $(cat "$DIR/curl.out")"
done
AFTER_R=$(remote_id 0)
[ "$AFTER_R" != "$BEFORE_R" ] && [ "$(remote_id 1)" = "$BEFORE_R" ] ||
  fail "three keyed loads did not publish exactly one commit"
"$BIN" --quiet --as ana load --data "$DIR/eve.jsonl" --mode append "$G" >/dev/null ||
  fail "the local graph's Eve"
# Schema.
both schema show
# Refused while another branch exists (OmniGraph's message), through either door; then applied.
both branch create hold
both schema apply --schema "$DIR/s2.pg" --json
grep -q 'schema apply requires a graph with only main; found non-main branches: hold' "$DIR/r.err" ||
  fail "schema apply with a branch open (server): $(cat "$DIR/r.err")"
python3 -c 'import json,sys; print(json.dumps({"schema_source": open(sys.argv[1]).read()}))' \
  "$DIR/s2.pg" >"$DIR/apply.json"
code=$(curl -s -o "$DIR/curl.out" -w '%{http_code}' -X POST -H 'Authorization: Bearer tok-ana' \
  -H 'Content-Type: application/json' --data-binary @"$DIR/apply.json" "$URL/schema/apply")
[ "$code" = 409 ] || fail "POST /schema/apply with a branch open answered $code: $(cat "$DIR/curl.out")"
python3 - "$DIR/curl.out" <<'PY' || fail "POST /schema/apply refusal: $(cat "$DIR/curl.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] == "schema apply requires a graph with only main; found non-main branches: hold", d
assert d["code"] == "conflict" and d["omnigraph_code"] == "schema_boundary", d
assert "change_diff_refusal" not in d, d
PY
both branch delete hold --yes
both schema apply --schema "$DIR/s2.pg" --json
both schema show --json
# Failures: the same error, exit status and envelope.
both mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}' --if-commit @C1@ --json
both mutate -e "$HIRE" --params '{"p":"Ada","c":"Acme"}' --if-commit @C1@
both commit show main.999.AAAAAAAAAA
both branch delete nope --yes
both branch create main
both query -e 'query broken( {'
both query -e 'query p() { match { $p: Person } return { $p.nick } }'
both load --data "$DIR/bad.jsonl" --mode merge
both load --data "$DIR/seed.jsonl" --mode append
both snapshot --branch nope
both export --branch nope
# The two graphs hold the same data.
both export

# Failures only a server has. Each is one line and exit status 1, and publishes nothing.
COMMITS=$(remote_id 0)
expect() { # expect RC PATTERN ARGS...: the exit status and the stderr line.
  local want=$1 pattern=$2
  shift 2
  "$BIN" "$@" >"$DIR/out" 2>"$DIR/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"
  [ -z "$pattern" ] || grep -q -- "$pattern" "$DIR/err" || fail "'$*' stderr: $(cat "$DIR/err"), want /$pattern/"
  [ "$want" = 0 ] || [ "$(wc -l <"$DIR/err")" = 1 ] || fail "'$*' said more than a line: $(cat "$DIR/err")"
}
M=(mutate -e "$HIRE" --params '{"p":"Cy","c":"Acme"}')
expect 1 "^omnigraph: error\[configuration\]: the bearer token is not one this server knows ($URL)$" \
  --server "$URL" --token wrong "${M[@]}"
expect 1 '^omnigraph: error\[configuration\]: the bearer token is not one this server knows' \
  --server "$URL" --token wrong branch list
expect 1 '^omnigraph: error\[configuration\]: this route needs an Authorization: Bearer' \
  --server "$URL" "${M[@]}"
expect 1 "^omnigraph: error\[configuration\]: actor 'ro' may not change" \
  --server "$URL" --token tok-ro "${M[@]}"
expect 1 "^omnigraph: error\[configuration\]: actor 'ro' may not branch_create" \
  --server "$URL" --token tok-ro branch create z
[ "$(remote_id 0)" = "$COMMITS" ] || fail "a refused write published a commit"
# The token may come from the environment; a read-only token may read.
export OMNIGRAPH_BEARER_TOKEN=tok-ro
expect 0 '' --server "$URL" branch list
export OMNIGRAPH_BEARER_TOKEN=tok-ana
expect 0 '(served)' --server "$URL" "${M[@]}"
unset OMNIGRAPH_BEARER_TOKEN
expect 0 '(served)' --token tok-ana "${M[@]}" "$URL"  # An http:// URI argument is a server too.
expect 1 '^omnigraph: error\[transient\]: cannot reach omnigraph-server' \
  --server http://127.0.0.1:1 --token tok-ana branch list
expect 1 "^omnigraph: error\[invalid_argument\]: no server 'nowhere' under servers: in .*config.yaml" \
  --server nowhere branch list
expect 1 '^omnigraph: error\[not_found\]' --server "$URL" --graph other --token tok-ana branch list
expect 1 '^omnigraph: error\[unsupported\]: cleanup is not served over HTTP' \
  --server "$URL" --token tok-ana cleanup --keep 1
expect 1 '^omnigraph: error\[unsupported\]: schema plan is not served over HTTP' \
  --server "$URL" --token tok-ana schema plan --schema "$DIR/s2.pg"
expect 1 '^omnigraph: error\[unsupported\]: repair is not served over HTTP' \
  --server "$URL" --token tok-ana repair
expect 1 '^omnigraph: error\[unsupported\]: lint is not served over HTTP' \
  --server "$URL" --token tok-ana lint --query "$DIR/q.gq"
expect 1 '^omnigraph: error\[unsupported\]: init creates a graph on a store' \
  --server "$URL" --token tok-ana init --schema "$DIR/s.pg"
expect 1 '^omnigraph: error\[invalid_argument\]: --as sets the actor of direct writes' \
  --server "$URL" --token tok-ana --as bob "${M[@]}"
expect 1 '^omnigraph: error\[invalid_argument\]: --server is exclusive' \
  --server "$URL" --token tok-ana branch list "$G"
expect 1 '^omnigraph: error\[invalid_argument\]: --token is for a server' --token t branch list "$G"
expect 1 '^omnigraph: error\[invalid_argument\]: --graph names a graph of a server' \
  --graph g branch list "$G"
echo "cli remote: $N commands agree; server-only failures ok"
