#!/usr/bin/env bash
# The omnigraph verbs lint (and its old name check), repair, optimize, version and --version: every
# output form and exit status, one process per command over a temporary directory.
set -u
BIN=$1
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
expect_rc() { local want=$1; shift; "$@" >"$DIR/out" 2>"$DIR/err"; local rc=$?
  [ "$rc" = "$want" ] || fail "'$*' exited $rc, want $want: $(cat "$DIR/err")"; }
check() {
  python3 - "$1" "${2:-$DIR/out}" <<'PY' || fail "check '$1' on: $(cat "${2:-$DIR/out}")"
import json, sys
d = json.load(open(sys.argv[2]))
sys.exit(0 if eval(sys.argv[1]) else 1)
PY
}
has() { grep -qF -- "$1" "$DIR/out" || fail "stdout lacks '$1': $(cat "$DIR/out")"; }

cat >"$DIR/p.pg" <<'PG'
node Policy { slug: String @key  name: String?  effectiveTo: DateTime? }
PG
cat >"$DIR/q.gq" <<'GQ'
query update_policy($slug: String, $name: String) {
  update Policy set { name: $name } where slug = $slug
}
query list_policies() {
  match { $p: Policy }
  return { $p.name, $p.effectiveTo }
}
GQ
printf 'query bad($s: String) {\n  update Policy set { nope: "x" } where slug = $s\n}\n' >"$DIR/bad.gq"
printf 'query broken( {\n' >"$DIR/parse.gq"

# lint offline: the report, warnings (L201) do not fail it.
expect_rc 0 "$BIN" lint --query "$DIR/q.gq" --schema "$DIR/p.pg"
has 'OK    query `update_policy` (mutation)'
has 'OK    query `list_policies` (read)'
has 'WARN  Policy.effectiveTo exists in schema but no update query sets it'
has 'INFO  Lint complete: 2 queries processed (0 error(s), 1 warning(s), 0 info item(s))'
expect_rc 0 "$BIN" lint --query "$DIR/q.gq" --schema "$DIR/p.pg" --json
check 'd["status"] == "ok" and d["schema_source"] == {"kind": "file", "path": sys.argv[2].rsplit("/", 1)[0] + "/p.pg"}'
check 'd["query_path"].endswith("/q.gq") and d["queries_processed"] == 2 and d["warnings"] == 1 and d["errors"] == 0'
check '[q["name"] for q in d["results"]] == ["update_policy", "list_policies"]'
check 'd["results"][1]["operation"]["result"] == [{"name": "p.name", "kind": "string", "nullable": True}, {"name": "p.effectiveTo", "kind": "datetime", "nullable": True}]'
check 'd["findings"][0]["code"] == "L201" and d["findings"][0]["severity"] == "warning"'
check 'list(d)[:3] == ["status", "schema_source", "query_path"]'
# A query that does not check: exit 1, the report still printed (stdout), its error in it.
expect_rc 1 "$BIN" lint --query "$DIR/bad.gq" --schema "$DIR/p.pg"
has 'ERROR query `bad`: '
has '1 queries processed (1 error(s), 0 warning(s), 0 info item(s))'
expect_rc 1 "$BIN" lint --query "$DIR/bad.gq" --schema "$DIR/p.pg" --json
check 'd["status"] == "error" and d["results"][0]["status"] == "error" and "operation" not in d["results"][0]'
# A parse error: Q000.
expect_rc 1 "$BIN" lint --query "$DIR/parse.gq" --schema "$DIR/p.pg" --json
check 'd["findings"][0]["code"] == "Q000" and d["results"] == []'
# The old name: the same report after a one-line warning.
expect_rc 0 "$BIN" check --query "$DIR/q.gq" --schema "$DIR/p.pg"
has 'INFO  Lint complete: 2 queries processed'
[ "$(cat "$DIR/err")" = 'warning: `omnigraph check` is deprecated; use `omnigraph lint` instead' ] ||
  fail "check warning: $(cat "$DIR/err")"
# `query lint` and `query check` (lint's names before it was a verb of its own): lint, warned.
for old in lint check; do
  expect_rc 0 "$BIN" query "$old" --query "$DIR/q.gq" --schema "$DIR/p.pg"
  has 'INFO  Lint complete: 2 queries processed'
  [ "$(cat "$DIR/err")" = "warning: \`omnigraph query $old\` is deprecated; use \`omnigraph lint\` instead" ] ||
    fail "query $old warning: $(cat "$DIR/err")"
done
# Against a graph: --schema URI, the URI argument, or --store.
G=$DIR/g
expect_rc 0 "$BIN" init --schema "$DIR/p.pg" "$G"
for how in "--schema $G" "$G" "--store $G"; do
  # shellcheck disable=SC2086
  expect_rc 0 "$BIN" lint --query "$DIR/q.gq" $how --json
  check 'd["schema_source"] == {"kind": "graph", "uri": "'"$G"'"} and d["warnings"] == 1'
done
# Neither a schema nor a graph; a schema file that does not exist; a bad schema.
expect_rc 1 "$BIN" lint --query "$DIR/q.gq"
grep -q 'lint requires --schema <schema.pg> (offline) or a graph target' "$DIR/err" ||
  fail "lint without a schema: $(cat "$DIR/err")"
expect_rc 1 "$BIN" lint --query "$DIR/q.gq" --schema "$DIR/none.pg"
grep -q "No such file" "$DIR/err" || fail "missing schema: $(cat "$DIR/err")"
printf 'node {\n' >"$DIR/broken.pg"
expect_rc 1 "$BIN" lint --query "$DIR/q.gq" --schema "$DIR/broken.pg"
expect_rc 1 "$BIN" lint --query "$DIR/none.gq" --schema "$DIR/p.pg"
grep -q "No such file" "$DIR/err" || fail "missing query file: $(cat "$DIR/err")"
expect_rc 1 "$BIN" lint --schema "$DIR/p.pg"
grep -q 'error\[usage\]' "$DIR/err" || fail "lint without --query: $(cat "$DIR/err")"

# version and --version.
expect_rc 0 "$BIN" version
grep -qE '^omnigraph [0-9]+\.[0-9]+\.[0-9]+$' "$DIR/out" || fail "version: $(cat "$DIR/out")"
grep -qE '^storage-stamp [0-9]+$' "$DIR/out" || fail "version stamp: $(cat "$DIR/out")"
grep -q '^build ' "$DIR/out" || fail "version build: $(cat "$DIR/out")"
expect_rc 0 "$BIN" version --json
check 'sorted(d) == ["build", "internal_schema_version", "storage_stamp", "version"] and isinstance(d["storage_stamp"], int)'
check 'd["internal_schema_version"] == d["storage_stamp"]'
STAMP=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["storage_stamp"])' <"$DIR/out")
python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["storage_stamp"] != int(sys.argv[2]))' \
  "$G/_omnigraph.json" "$STAMP" || fail "version's stamp is not the one init writes"
expect_rc 0 "$BIN" --version
grep -qE '^omnigraph [0-9]+\.[0-9]+\.[0-9]+$' "$DIR/out" || fail "--version: $(cat "$DIR/out")"
# -v is version, with the internal schema version line (OmniGraph's `version` / `-v`).
expect_rc 0 "$BIN" -v
grep -qE '^omnigraph [0-9]+\.[0-9]+\.[0-9]+$' "$DIR/out" || fail "-v: $(cat "$DIR/out")"
grep -qx "internal schema version $STAMP" "$DIR/out" || fail "-v schema line: $(cat "$DIR/out")"

# repair: a sound graph reports nothing and writes nothing.
printf '{"type":"Policy","data":{"slug":"a"}}\n' >"$DIR/p.jsonl"
expect_rc 0 "$BIN" load --data "$DIR/p.jsonl" --mode merge "$G"
(cd "$G" && find . -type f | sort | xargs md5sum) >"$DIR/before"
expect_rc 0 "$BIN" repair "$G"
has 'no defects'
expect_rc 0 "$BIN" repair --json "$G"
check 'd == {"confirmed": False, "defects": []}'
expect_rc 0 "$BIN" repair --confirm "$G"
(cd "$G" && find . -type f | sort | xargs md5sum) >"$DIR/after"
cmp -s "$DIR/before" "$DIR/after" || fail "repair of a sound graph wrote: $(diff "$DIR/before" "$DIR/after")"
# A missing hint: reported (fixable), left alone without --confirm, rewritten with it.
rm "$G/_graph/main/latest.json"
expect_rc 0 "$BIN" repair --json "$G"
check 'len(d["defects"]) == 1 and d["defects"][0]["kind"] == "hint_missing" and d["defects"][0]["fixable"] and not d["defects"][0]["fixed"]'
[ -e "$G/_graph/main/latest.json" ] && fail "repair without --confirm wrote the hint"
expect_rc 0 "$BIN" repair "$G"
has 'hint_missing  _graph/main/latest.json  seq 1  fixable'
has '1 defect; add --confirm'
expect_rc 0 "$BIN" repair --confirm --json "$G"
check 'd["confirmed"] and d["defects"][0]["fixed"]'
[ "$(cat "$DIR/err")" = "omnigraph repair → $G (direct, local)" ] || fail "repair echo: $(cat "$DIR/err")"
[ -e "$G/_graph/main/latest.json" ] || fail "repair --confirm did not rewrite the hint"
expect_rc 0 "$BIN" repair --json "$G"
check 'd["defects"] == []'
expect_rc 1 "$BIN" repair "$DIR/nothing"

# optimize: a graph of several loads (one fragment each) is compacted in one commit with no entity
# change; a second optimize finds nothing to do and publishes nothing.
O="$DIR/opt"
expect_rc 0 "$BIN" init --schema "$DIR/p.pg" "$O"
for i in 1 2 3; do
  printf '{"type":"Policy","data":{"slug":"p%s","name":"n%s"}}\n' "$i" "$i" >"$DIR/o$i.jsonl"
  expect_rc 0 "$BIN" load --data "$DIR/o$i.jsonl" --mode append "$O"
done
expect_rc 0 "$BIN" optimize --json "$O"
check 'd["branch"] == "main" and d["commit"]["summary"] == "optimize: no entity changes"'
check 'd["tables"] == [{"type_key": "node:Policy", "fragments_removed": 3, "fragments_added": 1, "committed": True, "skipped": False, "published_dataset_version": d["tables"][0]["published_dataset_version"], "indexes_built": [], "pending_indexes": []}]'
[ "$(cat "$DIR/err")" = "omnigraph optimize → $O (direct, local)" ] || fail "optimize echo: $(cat "$DIR/err")"
expect_rc 0 "$BIN" optimize "$O"
has 'nothing to compact: no commit'
[ -s "$DIR/err" ] && fail "optimize without a commit echoed: $(cat "$DIR/err")"
expect_rc 0 "$BIN" optimize --json --branch main "$O"
check 'd["commit"] is None and d["tables"][0]["skipped"] and not d["tables"][0]["committed"]'
expect_rc 0 "$BIN" query -e 'query l() { match { $p: Policy } return { $p.name } }' --json "$O"
check 'sorted(r["p.name"] for r in d["rows"]) == ["n1", "n2", "n3"]'
expect_rc 1 "$BIN" optimize --branch nope "$O"

# The deprecated names (read, change, ingest) run their successors after a one-line warning;
# schema get is schema show; --query-string is -e.
expect_rc 0 "$BIN" read -e 'query n() { match { $p: Policy } return { $p.slug } }' --json "$G"
[ "$(cat "$DIR/err")" = 'warning: `omnigraph read` is deprecated; use `omnigraph query` instead' ] ||
  fail "read warning: $(cat "$DIR/err")"
check '[r["p.slug"] for r in d["rows"]] == ["a"]'
printf '{"type":"Policy","data":{"slug":"z"}}\n' >"$DIR/z.jsonl"
expect_rc 0 "$BIN" ingest --data "$DIR/z.jsonl" --json "$G"
[ "$(head -1 "$DIR/err")" = 'warning: `omnigraph ingest` is deprecated; use `omnigraph load --data F --mode M` (strict: the mode is required)' ] ||
  fail "ingest warning: $(cat "$DIR/err")"
grep -q '^omnigraph ingest → ' "$DIR/err" || fail "ingest echo: $(cat "$DIR/err")"
check 'd["mode"] == "merge" and d["branch"] == "main" and d["total_entities"] == 1 and d["commit"] is not None'
expect_rc 0 "$BIN" ingest --data "$DIR/z.jsonl" --branch side --json "$G"
check 'd["branch"] == "side" and d["branch_created"] and d["base_branch"] == "main"'
expect_rc 0 "$BIN" change --query-string 'query rm($s: String) { delete Policy where slug = $s }' \
  --params '{"s":"z"}' --branch side --json "$G"
grep -q '^warning: `omnigraph change` is deprecated; use `omnigraph mutate` instead$' "$DIR/err" ||
  fail "change warning: $(cat "$DIR/err")"
check 'd["affected_nodes"] == 1'
expect_rc 0 "$BIN" query --query-string 'query n() { match { $p: Policy } return { $p.slug } }' \
  --branch side --json "$G"
check '[r["p.slug"] for r in d["rows"]] == ["a"]'
expect_rc 0 "$BIN" branch delete side "$G"
expect_rc 0 "$BIN" schema get "$G"
"$BIN" schema show "$G" | cmp -s - "$DIR/out" || fail "schema get differs from schema show"

# Destructive writes on a target that is not local need --yes (decision 159): refused before the
# store is reached, naming the target; a dry-run cleanup and a merge load need nothing, and with
# --yes the command goes on to the store (which here cannot be reached: another error).
printf '{"type":"Policy","data":{"slug":"y"}}\n' >"$DIR/y.jsonl"
FAR=s3://omnigraph-no-such-bucket/g
# No credentials: past the consent, opening the store fails at once, without the network.
unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY
consent() { # consent VERB ARGS... TARGET: refused without --yes; with it, past the consent
  local what=$1 target=${*: -1}
  shift
  expect_rc 1 "$BIN" "$@"
  grep -qF "$what is destructive and its target is not local: $target (direct, remote); pass --yes to confirm" \
    "$DIR/err" || fail "$what without --yes: $(cat "$DIR/err")"
  [ "$target" = "$FAR" ] || return 0
  expect_rc 1 "$BIN" --yes "$@"
  grep -q 'S3 credentials are missing' "$DIR/err" || fail "$what with --yes: $(cat "$DIR/err")"
}
consent "cleanup" cleanup --keep 1 --confirm "$FAR"
consent "load --mode overwrite" load --data "$DIR/y.jsonl" --mode overwrite "$FAR"
consent "ingest --mode overwrite" ingest --data "$DIR/y.jsonl" --mode overwrite "$FAR"
consent "branch delete" branch delete dev "$FAR"
consent "branch delete" branch delete dev --json az://acct/container/g
for args in "cleanup --keep 1" "load --data $DIR/y.jsonl --mode merge"; do
  # shellcheck disable=SC2086
  expect_rc 1 "$BIN" $args "$FAR"
  grep -q 'S3 credentials are missing' "$DIR/err" || fail "'$args' asked for consent: $(cat "$DIR/err")"
done
# A local graph needs none.
expect_rc 0 "$BIN" load --data "$DIR/y.jsonl" --mode overwrite "$G"
echo "cli verbs: ok"
