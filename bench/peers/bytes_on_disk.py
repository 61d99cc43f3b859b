#!/usr/bin/env python3
# Bytes on disk of a graph in a file store, grouped by object kind (per table: fragments, each
# derived kind, manifests; the graph's commit records and schema), and the fragments' bytes split
# by column and buffer, read from each fragment's footer (docs/format/fragment.md §2.2, §3).
# docs/benchmarks.md "Bytes on disk" was made with it.
#
#   bench/peers/bytes_on_disk.py GRAPH_DIR     (the directory of a file:// graph URI)
#
# Prints two Markdown tables. Sizes are file sizes (what `du --apparent-size` adds up).
import json, os, struct, sys, collections
root = sys.argv[1]
groups = collections.Counter(); cols = collections.Counter(); raw = collections.Counter()
names = {}
for d in os.listdir(os.path.join(root, 'tables')):
    vdir = os.path.join(root, 'tables', d, 'versions')
    for f in os.listdir(vdir):
        try:
            j = json.load(open(os.path.join(vdir, f)))
            for k in ('table_key',):
                if isinstance(j.get(k), str): names[d] = j[k]
        except Exception: pass
KIND = {0: 'validity', 1: 'offsets', 2: 'values', 3: 'child offsets', 4: 'child values'}
for dirpath, _, files in os.walk(root):
    for f in files:
        p = os.path.join(dirpath, f); size = os.path.getsize(p)
        rel = os.path.relpath(p, root).split(os.sep)
        if rel[0] == 'tables':
            t = names.get(rel[1], rel[1])
            if rel[2] == 'data':
                groups[(t, 'fragments')] += size
                b = open(p, 'rb').read()
                F = struct.unpack_from('<Q', b, len(b) - 24)[0]
                at = len(b) - 24 - F
                rows, ncol = struct.unpack_from('<QI', b, at); at += 12
                over = 8 + 24 + F
                for _ in range(ncol):
                    fid, nl = struct.unpack_from('<IH', b, at); at += 6
                    name = b[at:at + nl].decode(); at += nl
                    tid, et, dim, nullable, nulls, flags = struct.unpack_from('<BBIBQB', b, at); at += 16
                    for bit in (1, 2):
                        if flags & bit:
                            if tid in (10, 11):
                                l = struct.unpack_from('<H', b, at)[0]; at += 2 + l
                            else:
                                at += {1: 1, 2: 4, 3: 8, 4: 4, 5: 8, 6: 4, 7: 8, 8: 4, 9: 8}[tid]
                    nb = b[at]; at += 1
                    for _ in range(nb):
                        kind, codec, off, stored, unc, h = struct.unpack_from('<BBQQQQ', b, at); at += 34
                        cols[(t, name, KIND[kind], {0: 'plain', 1: 'zstd', 2: 'delta zstd'}.get(codec, str(codec)))] += stored
                        raw[(t, name, KIND[kind], {0: 'plain', 1: 'zstd', 2: 'delta zstd'}.get(codec, str(codec)))] += unc
                cols[(t, '(headers, footers)', '', '')] += over
            elif rel[2] == 'derived':
                groups[(t, 'derived ' + f.split('.', 1)[1])] += size
            else:
                groups[(t, rel[2])] += size
        else:
            groups[('graph', rel[0])] += size
total = sum(groups.values())
MiB = 1 << 20
print('| table | objects | MiB | share |\n|---|---|---:|---:|')
for (t, k), v in sorted(groups.items(), key=lambda kv: -kv[1]):
    print(f'| {t} | {k} | {v / MiB:.2f} | {100 * v / total:.1f}% |')
print(f'| all | | {total / MiB:.2f} | 100% |\n')
print('| table | column | buffer | stored as | MiB stored | MiB raw |\n|---|---|---|---|---:|---:|')
for k, v in sorted(cols.items(), key=lambda kv: -kv[1]):
    print(f'| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {v / MiB:.2f} | {raw.get(k, v) / MiB:.2f} |')
