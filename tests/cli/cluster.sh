#!/usr/bin/env bash
# Cluster directories end to end (docs/design/cluster.md): the industry-intel cookbook's quick
# start verbatim (cluster import, plan, apply --as, then load the seed into graphs/spike.omni and
# query it), idempotent apply, graphs list, schema apply refused on a cluster-managed graph, a
# deletion waiting for `cluster approve`, and force-unlock's exact-id rule. The cookbook is copied
# into a temporary directory; nothing is written to the source tree.
#
#   cluster.sh OMNIGRAPH COOKBOOK_DIR
set -u
BIN=$1
COOKBOOK=$2
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err") $(cat "$DIR/out")"; }
omnigraph() { "$BIN" "$@"; }
json() { python3 -c "import json,sys; d=json.load(open('$DIR/out')); print($1)"; }

cp -r "$COOKBOOK" "$DIR/industry-intel"
cd "$DIR/industry-intel" || fail "cd"
rm -rf graphs __cluster

# The quick start, verbatim.
expect_rc 0 omnigraph cluster import --config .
expect_rc 0 omnigraph cluster plan   --config .
grep -q 'Create graph.spike \[applied\]' "$DIR/out" || fail "plan: $(cat "$DIR/out")"
grep -q 'Create query.spike.recent_signals \[applied\]' "$DIR/out" || fail "plan: $(cat "$DIR/out")"
expect_rc 0 omnigraph cluster apply  --config . --as tester
grep -q 'converged: true' "$DIR/out" || fail "apply: $(cat "$DIR/out")"
[ -d graphs/spike.omni ] || fail "apply did not create graphs/spike.omni"
expect_rc 0 omnigraph load --data seed.jsonl --mode overwrite graphs/spike.omni

# Every stored query was published; one of them runs on the loaded graph.
expect_rc 0 omnigraph cluster status --config . --json
[ "$(json 'len([k for k in d["resources"] if k.startswith("query.spike.")])')" -gt 60 ] ||
  fail "status lists too few queries: $(cat "$DIR/out")"
[ "$(json 'd["state_revision"]')" = 1 ] || fail "state revision: $(cat "$DIR/out")"
expect_rc 0 omnigraph query --query queries/signals.gq recent_signals graphs/spike.omni --json
[ "$(json 'len(d["rows"])')" -gt 0 ] || fail "recent_signals returned nothing: $(cat "$DIR/out")"

# A second apply has nothing to do.
expect_rc 0 omnigraph cluster apply --config . --as tester --json
[ "$(json 'd["converged"] and not d["state_written"]')" = True ] || fail "re-apply: $(cat "$DIR/out")"

# graphs list reads the applied state.
expect_rc 0 omnigraph graphs list --cluster . --json
[ "$(json 'd["graphs"][0]["id"]')" = spike ] || fail "graphs list: $(cat "$DIR/out")"

# The graph evolves through the cluster, not schema apply.
expect_rc 1 omnigraph schema apply --schema schema.pg graphs/spike.omni
grep -q 'cluster apply' "$DIR/err" || fail "schema apply refusal: $(cat "$DIR/err")"

# Validation errors name the file, the key and a fix; exit 1.
cp cluster.yaml cluster.yaml.orig
sed -i 's/    schema: schema.pg/    schemma: schema.pg/' cluster.yaml
expect_rc 1 omnigraph cluster validate --config .
grep -q 'cluster.yaml:[0-9]*: graphs.spike.schemma: unknown key' "$DIR/err" ||
  fail "validate: $(cat "$DIR/err")"
cp cluster.yaml.orig cluster.yaml

# Deleting the graph waits for an approval.
printf 'version: 1\nmetadata:\n  name: spike-intel\n' >cluster.yaml
expect_rc 0 omnigraph cluster apply --config . --as tester
grep -q 'Delete graph.spike \[blocked\]  approval_required' "$DIR/out" || fail "blocked delete: $(cat "$DIR/out")"
[ -d graphs/spike.omni ] || fail "the graph went without approval"
expect_rc 0 omnigraph cluster approve graph.spike --as tester
grep -q 'cluster approve: delete graph.spike approved by tester' "$DIR/out" || fail "approve: $(cat "$DIR/out")"
expect_rc 0 omnigraph cluster apply --config . --as tester
grep -q 'Delete graph.spike \[applied\]' "$DIR/out" || fail "approved delete: $(cat "$DIR/out")"
grep -q 'converged: true' "$DIR/out" || fail "apply after approval: $(cat "$DIR/out")"
[ -z "$(find graphs/spike.omni -type f 2>/dev/null)" ] || fail "graph root still holds objects"

# force-unlock needs the exact id of a held lock.
expect_rc 1 omnigraph cluster force-unlock 01NOTALOCK --config .
grep -q 'no cluster lock is held' "$DIR/err" || fail "force-unlock: $(cat "$DIR/err")"
echo "cluster.sh: ok"
