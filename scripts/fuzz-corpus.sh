#!/usr/bin/env bash
# Seed corpora for the fuzz harnesses (docs/design/fuzzing.md "Corpora"), from real objects: builds
# two graphs with the CLI — the industry-intel cookbook (../shared) loaded and mutated, and a
# synthetic one large enough for every derived object (id index, adjacency, full-text and vector
# indexes, their deltas), a spilled change set and a deletion vector — plus a cluster applied from
# the cookbook's cluster.yaml, and copies a few objects of each kind into OUT/<harness>/. Text
# parsers get the shared fixtures' files themselves. fuzz/corpus/ holds the committed output
# (regenerate with: scripts/fuzz-corpus.sh fuzz/corpus); scripts/fuzz.sh reads it.
# Usage: scripts/fuzz-corpus.sh [OUT (default build/fuzz-corpus)] [per-harness count (default 4)]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$(realpath -m "${1:-build/fuzz-corpus}")
per=${2:-4}
cli=${OMNIGRAPH:-$root/build/asan/bin/omnigraph}
shared=$(realpath ../shared/fixtures)
cook=$shared/cookbooks/industry-intel
[ -x "$cli" ] || { echo "fuzz-corpus: no CLI at $cli (build the asan preset, or set OMNIGRAPH)"; exit 1; }
export ASAN_OPTIONS=detect_leaks=0

work=$(mktemp -d /tmp/omnigraph-fuzz-corpus.XXXXXX)
trap 'rm -rf "$work"' EXIT
og() { "$cli" --quiet "$@" >/dev/null; }

# 1. The cookbook: overwrite load, an append of a few rows, a branch with a merge load on it.
og init "$work/cook" --schema "$cook/schema.pg"
og load "$work/cook" --data "$cook/seed.jsonl" --mode overwrite
grep -m 3 '"type":"Signal"' "$cook/seed.jsonl" | sed 's/"slug":"/"slug":"x-/; s/"id":"/"id":"x-/' \
  >"$work/more.jsonl"
og load "$work/cook" --data "$work/more.jsonl" --mode append
og load "$work/cook" --data "$work/more.jsonl" --mode merge --branch side --from main

# 2. Synthetic: 4096 documents with a vector and an indexed text, 2000 links; then a small
#    append (deltas over the derived objects) and a delete (a deletion vector).
cat >"$work/doc.pg" <<'PG'
node Doc {
    name: String @key
    body: String @index
    v: Vector(4) @index
}
edge Link: Doc -> Doc
PG
python3 - "$work" <<'PY'
import json, random, sys
w = sys.argv[1]
rnd = random.Random(7)
words = "graph table commit stream fragment index vector text query branch merge".split()
def doc(i):
    return {"type": "Doc", "data": {"name": "doc-%05d" % i,
            "body": " ".join(rnd.choice(words) for _ in range(6)),
            "v": [round(rnd.uniform(-1, 1), 3) for _ in range(4)]}}
with open(w + "/docs.jsonl", "w") as f:
    for i in range(4096):
        f.write(json.dumps(doc(i)) + "\n")
    for i in range(2000):
        f.write(json.dumps({"edge": "Link", "from": "doc-%05d" % i,
                            "to": "doc-%05d" % ((i * 7 + 3) % 4096), "data": {}}) + "\n")
with open(w + "/docs2.jsonl", "w") as f:
    for i in range(4096, 4196):
        f.write(json.dumps(doc(i)) + "\n")
    for i in range(4096, 4146):
        f.write(json.dumps({"edge": "Link", "from": "doc-%05d" % i, "to": "doc-00001",
                            "data": {}}) + "\n")
PY
og init "$work/docs" --schema "$work/doc.pg"
og load "$work/docs" --data "$work/docs.jsonl" --mode overwrite
og load "$work/docs" --data "$work/docs2.jsonl" --mode append
og mutate "$work/docs" -e 'query d() { delete Doc where name = "doc-00007" }'

# 3. A cluster: the cookbook's cluster.yaml applied (the ledger and its catalog).
cp -r "$cook" "$work/cluster"
(cd "$work/cluster" && og cluster import --config . && og cluster apply --config . --as fuzz) ||
  echo "fuzz-corpus: cluster apply failed; the ledger corpus keeps its committed seeds"

python3 - "$work" "$out" "$per" "$shared" <<'PY'
import glob, json, os, struct, sys
work, out, per, shared = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
MAX = 128 << 10
kept = {}

def keep(harness, data, name):
    if len(data) > MAX or len(kept.get(harness, [])) >= per:
        return
    if data in kept.setdefault(harness, []):
        return
    kept[harness].append(data)
    os.makedirs(os.path.join(out, harness), exist_ok=True)
    with open(os.path.join(out, harness, "seed-" + name), "wb") as f:
        f.write(data)

def split(head, tail):  # fuzz::Split: a 4-byte length, the first part, the second.
    return struct.pack("<I", len(head)) + head + tail

def read(p):
    with open(p, "rb") as f:
        return f.read()

def envelope(obj):  # (format, payload) of a derived object (docs/format/derived.md).
    fmt = struct.unpack_from("<I", obj, 4)[0]
    kind, uuid = struct.unpack_from("<HH", obj, 32)
    end = 36 + kind + uuid
    if fmt == 2:
        base = struct.unpack_from("<H", obj, end + 12)[0]
        end += 16 + base
    return fmt, obj[(end + 7) // 8 * 8:]

for g in ("docs", "cook"):
    base = os.path.join(work, g)
    for p in sorted(glob.glob(base + "/**/*", recursive=True)):
        if not os.path.isfile(p):
            continue
        rel, name, data = os.path.relpath(p, base), os.path.basename(p), read(p)
        tag = g + "-" + name[-40:]
        if name.endswith(".commit"):
            keep("record", data, tag)
        elif "/checkpoints/" in rel:
            keep("checkpoint", data, tag)
        elif name == "latest.json":
            keep("hint", data, tag)
        elif rel.startswith("_graph/streams/") or name == "_omnigraph.json" or name == "horizon.json":
            keep("stream_metadata", data, tag)
        elif "/changes/" in rel:
            keep("change_set", data, tag)
        elif rel.endswith(".schema"):
            keep("schema_archive", data, tag)
        elif rel.endswith(".ogf") and len(data) <= 64 << 10:
            keep("fragment", data, tag)
        elif "/versions/" in rel:
            keep("manifest", data, tag)
            m = json.loads(data)
            for frag in m.get("fragments", []):
                d = frag.get("deletion")
                if d:
                    dv = read(os.path.join(os.path.dirname(os.path.dirname(p)), d["path"]))
                    keep("deletion_vector", struct.pack("<QQ", frag.get("rows", frag.get("num_rows", 0)), d["count"]) + dv, tag)
        elif "/derived/" in rel:
            version, kind = name[1:].split(".", 1)
            manifest = read(os.path.join(os.path.dirname(os.path.dirname(p)), "versions", "d%s.json" % version))
            fmt, payload = envelope(data)
            if kind in ("ids", "csr.out", "csr.in"):
                keep("derived", split(manifest, data), tag)
            harness = {"ids": "id_index", "csr.out": "adjacency", "csr.in": "adjacency"}.get(kind)
            if kind.startswith("fts."):
                harness = "fulltext"
            if kind.startswith("annl2."):
                harness = "ann"
            if fmt == 2:
                harness = {"fulltext": "fulltext_delta", "id_index": "index_delta",
                           "adjacency": "index_delta", "ann": "ann_delta"}.get(harness)
                if harness:
                    keep(harness, payload, tag)
            elif harness in ("id_index", "adjacency"):
                keep(harness, split(manifest, payload), tag)
            elif harness:
                keep(harness, payload, tag)

ledger = os.path.join(work, "cluster", "__cluster", "state.json")
if os.path.exists(ledger):
    keep("ledger", split(b"", read(ledger)), "state.json")
    keep("ledger", split(b'{"version":1,"lock_id":"01KBV0000000000000000000","operation":"apply","holder":"fuzz","pid":1,"created_at_micros":1}', read(ledger)), "state-locked.json")

# Text parsers: the shared fixtures (small files only; the first lines of a big NDJSON).
for p in sorted(glob.glob(shared + "/**/*.pg", recursive=True)):
    keep("schema", read(p), os.path.basename(p))
    for q in sorted(glob.glob(os.path.join(os.path.dirname(p), "queries", "*.gq")))[:2]:
        keep("query", split(read(p), read(q)), os.path.basename(q))
for p in sorted(glob.glob(shared + "/**/seed.jsonl", recursive=True)):
    keep("ndjson", b"".join(read(p).splitlines(True)[:40]), p.split("/")[-2] + ".jsonl")
for p in sorted(glob.glob(shared + "/**/*.policy.yaml", recursive=True)) + sorted(glob.glob(shared + "/**/*.tests.yaml", recursive=True)):
    keep("policy", read(p), os.path.basename(p))
for p in sorted(glob.glob(shared + "/**/cluster.yaml", recursive=True)):
    keep("cluster_config", read(p), p.split("/")[-2] + ".yaml")

print("fuzz-corpus: " + ", ".join("%s %d" % (h, len(v)) for h, v in sorted(kept.items())))
PY
