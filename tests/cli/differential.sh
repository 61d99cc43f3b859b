#!/usr/bin/env bash
# The differential layer (issue 43): runs the CLI suite SUITE twice, once direct and once with
# every command on a local graph going through a real omnigraph-server on loopback, and fails
# unless both passes succeed and each invocation printed the same thing (stdout, stderr, exit
# status) after normalizing commit ids, ULIDs, times, the temporary folder and the access-path
# echo ("-> PATH (direct, local)" vs "-> URL (served)"). A verb that works locally and not
# through a server fails here unless remote-refused.txt lists it, and each verb listed there
# must, through a server, fail with exactly the typed error it gives. Differences the product is
# known to have are listed in differential-known.txt, each with its reason; an entry that no
# longer matches a difference fails too. How an invocation is rewritten: differential.py.
#
#   differential.sh SUITE OMNIGRAPH OMNIGRAPH_SERVER
set -u
SUITE=$1
BIN=$2
SERVER=$3
HERE=$(cd "$(dirname "$0")" && pwd)
NAME=$(basename "$SUITE" .sh)
case $NAME in
  cluster) echo "SKIP: cluster verbs are the control plane: direct storage access by design, no served form"; exit 77 ;;
  hygiene) echo "SKIP: hygiene traces the local load's self re-exec (strace), which has no remote form"; exit 77 ;;
  progress) echo "SKIP: progress is local only: handles from Connect report no progress"; exit 77 ;;
  huge_heap) echo "SKIP: huge_heap counts the local load's self re-exec under strace, which a server has no form of"; exit 77 ;;
  batch) echo "SKIP: batch already runs every command through a server, in concurrent rounds whose output varies from run to run"; exit 77 ;;
  policy) echo "SKIP: policy checks bundle files and enforces them on a store; a server enforces its own"; exit 77 ;;
  remote) echo "SKIP: remote is itself a direct/served comparison, plus failures only a server has"; exit 77 ;;
  stored) echo "SKIP: stored already runs each stored query through a server and compares it with the same query run directly"; exit 77 ;;
  s3config) echo "SKIP: s3config tests the S3 settings the command's own process reads; a served graph is opened with the server's"; exit 77 ;;
  embed) echo "SKIP: embed is a local verb over files (its --server refusal is the suite's own check), and a String nearest embeds with the provider of the process that runs it: a served graph's is the server's environment, set before the suite changes its own"; exit 77 ;;
  blob) echo "SKIP: blob already compares each read direct and through a server it starts, byte for byte (raw bytes on stdout, which the transcript does not carry), plus HTTP-level checks"; exit 77 ;;
  blob_external) echo "SKIP: blob_external starts its own cluster server and compares the store with it (stat, get, export), plus curl-level 302 checks; its cluster import output carries observation times"; exit 77 ;;
  operator) echo "SKIP: operator already runs its commands both direct and through a server it starts (scopes, tokens, aliases)"; exit 77 ;;
esac
WORK=$(mktemp -d)
trap '[ -n "${OG_DIFF_KEEP:-}" ] && cp -r "$WORK" "$OG_DIFF_KEEP"; python3 "$HERE/differential.py" stop "$WORK/remote/state"; python3 "$HERE/differential.py" stop "$WORK/refused"; rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# The shim the suite runs in place of the omnigraph command.
SHIM=$WORK/omnigraph
printf '#!/bin/sh\nexec python3 %q shim "$@"\n' "$HERE/differential.py" >"$SHIM"
chmod +x "$SHIM"
export OG_DIFF_BIN=$BIN OG_DIFF_SERVER=$SERVER OG_DIFF_REFUSED=$HERE/remote-refused.txt
# Actors the suite names with --as: each gets a token on every server.
OG_DIFF_ACTORS=$(grep -o -- '--as [A-Za-z0-9_-]\+' "$SUITE" | awk '{print $2}' | sort -u | paste -sd, -)
export OG_DIFF_ACTORS

# pass MODE: runs the suite through the shim; its output in $WORK/MODE.log, its status in RC.
pass() {
  mkdir -p "$WORK/$1/tmp" "$WORK/$1/state"
  TMPDIR=$WORK/$1/tmp OG_DIFF_MODE=$1 OG_DIFF_STATE=$WORK/$1/state \
    bash "$SUITE" "$SHIM" "$SERVER" >"$WORK/$1.log" 2>&1
  RC=$?
}
pass direct
[ "$RC" = 0 ] || fail "$NAME, direct pass (the suite itself fails): $(grep -m1 -A4 '^FAIL' "$WORK/direct.log")"
pass remote
REMOTE_RC=$RC
STATUS=0
if [ "$REMOTE_RC" != 0 ]; then
  echo "FAIL $NAME: the suite's own assertions fail in the remote pass (exit $REMOTE_RC):"
  grep -m1 -A4 '^FAIL' "$WORK/remote.log" || tail -5 "$WORK/remote.log"
  STATUS=1
fi
python3 "$HERE/differential.py" compare "$NAME" "$HERE/differential-known.txt" \
  "$WORK/direct/state/transcript.jsonl" "$WORK/remote/state/transcript.jsonl" \
  "$WORK/direct/tmp" "$WORK/remote/tmp" || STATUS=1

# The refused verbs, each through a server on a fresh graph.
mkdir -p "$WORK/refused"
echo 'node Person { name: String @key }' >"$WORK/refused/s.pg"
# shellcheck disable=SC2016  # a query's variables, not the shell's
echo 'query q() { match { $p: Person } return { $p.name } }' >"$WORK/refused/q.gq"
OG_DIFF_ACTORS='' python3 "$HERE/differential.py" refused "$WORK/refused" "$HERE/remote-refused.txt" \
  "$WORK/refused/s.pg" "$WORK/refused/q.gq" || STATUS=1
[ "$STATUS" = 0 ] && echo "cli $NAME differential: ok"
exit "$STATUS"
