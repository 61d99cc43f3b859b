#!/usr/bin/env python3
# The adjacency's revision 3 beside revision 2 (decision 214; docs/benchmarks.md "Bytes on disk"):
# loads the same generated graph with two release builds (BEFORE writes revision 2, AFTER
# revision 3) through the CLI into file stores, and reports per graph the bytes on disk by object
# kind, a fresh process's open + first 1-hop (`omnigraph-cold-bench fresh`, RUNS runs alternating
# between the two, medians) with its store calls and bytes read, and one warm run
# (`omnigraph-cold-bench warm`: lookup, 1-hop, 2-hop, top-3 medians; three runs alternating, the
# median of each). Answers must be equal.
#
#   bench/peers/adjacency_revisions.py DATA BEFORE_BIN AFTER_BIN OUT_JSON [RUNS (default 7)]
#   DATA: a directory `omnigraph-cold-bench gen DATA 100000 2400000 42` wrote.
import json, os, shutil, statistics, subprocess, sys

data, before_bin, after_bin, out = sys.argv[1:5]
runs = int(sys.argv[5]) if len(sys.argv) > 5 else 7
bins = {"before": before_bin, "after": after_bin}


def load(name, bin_dir):
    graph = os.path.join(data, "graph-" + name)
    shutil.rmtree(graph, ignore_errors=True)
    cli = os.path.join(bin_dir, "omnigraph")
    subprocess.run([cli, "init", "--schema", os.path.join(data, "schema.pg"), "file://" + graph],
                   check=True, capture_output=True)
    subprocess.run([cli, "load", "--data", os.path.join(data, "graph.ndjson"), "--mode",
                    "overwrite", "file://" + graph], check=True, capture_output=True)
    return graph


def bytes_by_kind(graph):
    kinds = {}
    for dirpath, _, files in os.walk(graph):
        for f in files:
            rel = os.path.relpath(os.path.join(dirpath, f), graph).split(os.sep)
            size = os.path.getsize(os.path.join(dirpath, f))
            if rel[0] == "tables" and rel[2] == "derived":
                kind = "derived " + f.split(".", 1)[1]
            elif rel[0] == "tables":
                kind = rel[2]
            else:
                kind = "graph"
            key = (rel[1] if rel[0] == "tables" else "") + " " + kind
            kinds[key] = kinds.get(key, 0) + size
    kinds["all"] = sum(kinds.values())
    return kinds


def bench(bin_dir, graph, *args):
    env = dict(os.environ, OMNIGRAPH_BENCH_GRAPH_URI="file://" + graph)
    got = subprocess.run([os.path.join(bin_dir, "omnigraph-cold-bench"), *args], env=env,
                         check=True, capture_output=True, text=True)
    return json.loads(got.stdout.strip().splitlines()[-1])


graphs = {name: load(name, b) for name, b in bins.items()}
result = {"data": "omnigraph-cold-bench gen DATA 100000 2400000 42 (1x peers graph)",
          "uptime": subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(),
          "kuzu_mib": 38.8}
fresh = {name: [] for name in bins}
for _ in range(runs):
    for name, b in bins.items():
        fresh[name].append(bench(b, graphs[name], "fresh", graphs[name], "hop1", "omnigraph"))
warms = {name: [] for name in bins}
for _ in range(3):
    for name, b in bins.items():
        warms[name].append(bench(b, graphs[name], "warm", graphs[name], "100000", "omnigraph"))
for name, b in bins.items():
    warm = dict(warms[name][0])
    for k in warm:
        if k.endswith("_ms"):
            warm[k] = statistics.median(w[k] for w in warms[name])
    result[name] = {
        "bytes_on_disk": bytes_by_kind(graphs[name]),
        "cold_hop1_ms_median": statistics.median(r["ms"] for r in fresh[name]),
        "cold_hop1_store_calls": fresh[name][0]["store_calls"],
        "cold_hop1_answer": fresh[name][0]["answer"],
        "warm": {k: v for k, v in warm.items() if k.endswith("_ms")},
        "warm_answers": warm.get("answers"),
    }
if result["before"]["cold_hop1_answer"] != result["after"]["cold_hop1_answer"] or \
        result["before"]["warm_answers"] != result["after"]["warm_answers"]:
    sys.exit("adjacency_revisions: answers differ")
for name in bins:
    result[name].pop("warm_answers")
b, a = result["before"], result["after"]
result["ratios"] = {
    "bytes_on_disk_all": a["bytes_on_disk"]["all"] / b["bytes_on_disk"]["all"],
    "cold_hop1_ms": a["cold_hop1_ms_median"] / b["cold_hop1_ms_median"],
    "cold_hop1_bytes_read": a["cold_hop1_store_calls"]["bytes_read"] /
    b["cold_hop1_store_calls"]["bytes_read"],
}
result["ratios"].update({"warm_" + k: a["warm"][k] / b["warm"][k] for k in a["warm"] if b["warm"].get(k)})
with open(out, "w") as f:
    json.dump(result, f, indent=1)
print(json.dumps(result, indent=1))
