#!/usr/bin/env bash
# `omnigraph embed` (docs/design/query-execution.md "Embeddings"), OmniGraph's offline pipeline,
# with the deterministic mock provider: a seed without vectors loads (they stay null, no provider
# asked); `embed` fills them from --input/--output/--spec and from a seed manifest, a String
# `nearest` on the loaded output finds the record whose text it is, --select re-embeds, --clean
# removes; a missing key is a configuration error naming the variables; and --server is refused
# as unsupported (omnigraph-server has no embed route).
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
text = open(sys.argv[2]).read()
d = json.loads(text) if text.lstrip().startswith('{') and '\n{' not in text.strip() else \
    [json.loads(l) for l in text.splitlines() if l.strip()]
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)
PY
}
for v in OMNIGRAPH_EMBEDDINGS_MOCK OMNIGRAPH_EMBED_PROVIDER OMNIGRAPH_EMBED_BASE_URL \
  OMNIGRAPH_EMBED_MODEL OPENROUTER_API_KEY OPENAI_API_KEY GEMINI_API_KEY; do unset "$v"; done

cat >"$DIR/s.pg" <<'PG'
node Doc { slug: String @key  text: String  embedding: Vector(16)? @embed("text") @index }
edge Cites: Doc -> Doc
PG
cat >"$DIR/raw.jsonl" <<'JSONL'
{"type":"Doc","data":{"slug":"a","text":"graph databases on object storage"}}
{"type":"Doc","data":{"slug":"b","text":"vector search with cosine distance"}}
{"type":"Doc","data":{"slug":"c","text":"full text ranking by bm25"}}
{"edge":"Cites","from":"a","to":"b"}
JSONL
cat >"$DIR/spec.json" <<'JSON'
{"dimension": 16, "types": {"Doc": {"target": "embedding", "fields": ["text"]}}}
JSON
cat >"$DIR/q.gq" <<'GQ'
query similar($q: String) {
  match { $d: Doc }
  return { $d.slug }
  order { nearest($d.embedding, $q) }
  limit 3
}
GQ
G="$DIR/g"
expect_rc 0 "$BIN" --quiet init --schema "$DIR/s.pg" "$G"

# The raw seed loads with no embedding variable: the vectors stay null, and nearest skips them.
expect_rc 0 "$BIN" --quiet load --data "$DIR/raw.jsonl" --mode overwrite "$G"
OMNIGRAPH_EMBEDDINGS_MOCK=1 expect_rc 0 "$BIN" query similar --query "$DIR/q.gq" \
  --params '{"q":"vector search"}' --format json "$G"
check 'd["rows"] == [] if isinstance(d, dict) else d == []'

# Without a key the default provider (openai-compatible) is not configured: exit 1, typed.
expect_rc 1 "$BIN" embed --input "$DIR/raw.jsonl" --output "$DIR/x.jsonl" --spec "$DIR/spec.json"
grep -q 'error\[configuration\]: OPENROUTER_API_KEY or OPENAI_API_KEY is required' "$DIR/err" ||
  fail "no configuration error: $(cat "$DIR/err")"
[ -e "$DIR/x.jsonl" ] && fail "a failed embed wrote its output"

export OMNIGRAPH_EMBEDDINGS_MOCK=1
expect_rc 0 "$BIN" embed --input "$DIR/raw.jsonl" --output "$DIR/emb/seed.jsonl" \
  --spec "$DIR/spec.json" --json
check 'd["records"] == 4 and d["selected_records"] == 3 and d["embedded_records"] == 3 and
       d["cleaned_records"] == 0 and d["mode"] == "fill_missing" and d["dimension"] == 16'
check 'len(d) == 4 and all(len(r["data"]["embedding"]) == 16 for r in d[:3]) and
       abs(sum(x * x for x in d[0]["data"]["embedding"]) - 1) < 1e-4 and
       d[3] == {"edge": "Cites", "from": "a", "to": "b"}' "$DIR/emb/seed.jsonl"

# The output loads; a String nearest embeds the question with the same provider, so a record's
# own document text ranks it first.
expect_rc 0 "$BIN" --quiet load --data "$DIR/emb/seed.jsonl" --mode overwrite "$G"
expect_rc 0 "$BIN" query similar --query "$DIR/q.gq" \
  --params '{"q":"type: Doc\ntext: vector search with cosine distance"}' --format json "$G"
check '(d["rows"] if isinstance(d, dict) else d)[0]["d.slug"] == "b"'

# Filling again embeds nothing; a selector re-embeds its record; a seed manifest names the files.
expect_rc 0 "$BIN" embed --input "$DIR/emb/seed.jsonl" --output "$DIR/again.jsonl" \
  --spec "$DIR/spec.json" --json
check 'd["embedded_records"] == 0'
cmp -s <(python3 -c 'import json,sys; [print(json.dumps(json.loads(l), sort_keys=True)) for l in open(sys.argv[1])]' "$DIR/emb/seed.jsonl") \
  <(python3 -c 'import json,sys; [print(json.dumps(json.loads(l), sort_keys=True)) for l in open(sys.argv[1])]' "$DIR/again.jsonl") ||
  fail "a fill with nothing missing changed the records"
cat >"$DIR/seed.yaml" <<'YAML'
sources:
  raw_seed: emb/seed.jsonl
artifacts:
  embedded_seed: build/embedded.jsonl
embeddings:
  dimension: 16
  types:
    Doc:
      target: embedding
      fields: [text]
YAML
expect_rc 0 "$BIN" embed --seed "$DIR/seed.yaml" --select 'Doc:slug=c' --json
check 'd["mode"] == "reembed_selected" and d["selected_records"] == 1 and d["embedded_records"] == 1
       and d["output"].endswith("build/embedded.jsonl")'
[ -s "$DIR/build/embedded.jsonl" ] || fail "the manifest's artifact was not written"
expect_rc 0 "$BIN" embed --seed "$DIR/seed.yaml" --clean --type Doc --json
check 'd["mode"] == "clean" and d["cleaned_records"] == 3'
grep -q '"embedding"' "$DIR/build/embedded.jsonl" && fail "--clean left an embedding"
expect_rc 0 "$BIN" embed --seed "$DIR/seed.yaml" --clean
grep -q 'cleaned 3 of 4 records (clean, dimension 16) into ' "$DIR/out" ||
  fail "no human summary: $(cat "$DIR/out")"

# Usage errors: both modes at once; a bad selector.
expect_rc 1 "$BIN" embed --seed "$DIR/seed.yaml" --clean --reembed-all
grep -q 'error\[usage\]: --clean excludes --reembed-all' "$DIR/err" || fail "both modes: $(cat "$DIR/err")"
expect_rc 1 "$BIN" embed --seed "$DIR/seed.yaml" --select 'nofield'
grep -q "error\[invalid_argument\]: selector 'nofield' must be field=value or Type:field=value" \
  "$DIR/err" || fail "bad selector: $(cat "$DIR/err")"

# Through a server: refused before anything is read or sent (no server needs to listen).
expect_rc 1 "$BIN" --server http://127.0.0.1:9 embed --seed "$DIR/seed.yaml"
tail -1 "$DIR/err" | grep -q '^omnigraph: error\[unsupported\]: embed is not served over HTTP' ||
  fail "embed through --server: $(cat "$DIR/err")"
echo "embed: ok"
