#!/usr/bin/env python3
"""Fresh-process and moderately warm reads of one or more OmniGraph builds beside SQLite.

Issue [36] item 3 (docs/benchmarks.md "A fresh lookup after decision 215" and later): a fresh
process's open + first point lookup and 1-hop within 3x SQLite's, and the first 20 distinct 1-hop
starts of a process within 2x. This script runs `omnigraph-cold-bench fresh DIR SHAPE SYSTEM`
children, every build and SQLite alternating run by run so that the machine's load falls on all of
them alike, each child under `chrt -f 20` (a real-time process the other builds on the machine
cannot preempt) when it is allowed, and then `omnigraph-cold-bench warm` a few times each for
`hop1_first20_ms`. It reports medians, each build's ratio to SQLite's median from the same run,
the store calls of a fresh child, and whether every answer equals SQLite's.

  bench/api/fresh_ab.py --data DIR [--data DIR ...] --bin NAME=BINDIR[,GRAPH] [--bin ...]
                        [--runs 15] [--warm-runs 5] [--persons 100000] [--start I] [--out FILE]

DIR is a graph written by `omnigraph-cold-bench setup DIR 100000 2400000 42 [--int-keys]` (the
OmniGraph graph in DIR/graph, SQLite's in DIR/sqlite.db); every build reads the same files, or
with ,GRAPH the OmniGraph graph in folder GRAPH (e.g. the same rows loaded by that build, when the
builds write different bytes; only with one --data). The first --bin is the one whose
omnigraph-cold-bench runs SQLite. --start I makes the fresh children
look up person I instead of 1 (OMNIGRAPH_BENCH_START). A benchmark: not part of ctest; timing is
reported, never asserted.
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys


def child(binary, args, env):
    """Runs one omnigraph-cold-bench child (FIFO when chrt allows) and returns its JSON line."""
    binary, _, graph = binary.partition(",")
    if graph:
        env = dict(env, OMNIGRAPH_BENCH_GRAPH_URI="file://" + os.path.abspath(graph))
    command = [os.path.join(binary, "omnigraph-cold-bench")] + args
    if shutil.which("chrt") and env.get("FRESH_AB_NO_FIFO") != "1":
        command = ["chrt", "-f", "20"] + command
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def uptime():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def fresh(data, bins, runs, env):
    """Alternates every build and SQLite for each shape; medians, ratios and answers."""
    result = {}
    for shape in ("lookup", "hop1"):
        ms = {name: [] for name in list(bins) + ["sqlite"]}
        answers, calls = {}, {}
        for _ in range(runs):
            for name, binary in list(bins.items()) + [("sqlite", next(iter(bins.values())).partition(",")[0])]:
                system = "sqlite" if name == "sqlite" else "omnigraph"
                out = child(binary, ["fresh", data, shape, system], env)
                ms[name].append(out["ms"])
                answers.setdefault(name, set()).add(json.dumps(out["answer"]))
                calls[name] = out["store_calls"]
        sqlite_ms = statistics.median(ms["sqlite"])
        shape_result = {"sqlite_ms": sqlite_ms, "runs": runs}
        for name in bins:
            shape_result[name] = {
                "ms": statistics.median(ms[name]),
                "ratio_to_sqlite": statistics.median(ms[name]) / sqlite_ms,
                "store_calls": calls[name],
                "answers_agree": answers[name] == answers["sqlite"] and len(answers[name]) == 1,
            }
        shape_result["raw_ms"] = ms
        result[shape] = shape_result
    return result


def warm(data, bins, runs, persons, env):
    """`warm` runs alternating; medians of hop1_first20_ms, hop1_ms and lookup_ms, answers
    against SQLite's."""
    first20 = {name: [] for name in list(bins) + ["sqlite"]}
    hop1 = {name: [] for name in first20}
    lookup = {name: [] for name in first20}
    answers = {}
    for _ in range(runs):
        for name, binary in list(bins.items()) + [("sqlite", next(iter(bins.values())).partition(",")[0])]:
            system = "sqlite" if name == "sqlite" else "omnigraph"
            out = child(binary, ["warm", data, str(persons), system], env)
            first20[name].append(out["hop1_first20_ms"])
            hop1[name].append(out["hop1_ms"])
            lookup[name].append(out["lookup_ms"])
            answers[name] = out["answers"]
    sqlite_first20 = statistics.median(first20["sqlite"])
    result = {"runs": runs, "sqlite_hop1_first20_ms": sqlite_first20,
              "sqlite_hop1_ms": statistics.median(hop1["sqlite"]),
              "sqlite_lookup_ms": statistics.median(lookup["sqlite"])}
    for name in bins:
        result[name] = {
            "hop1_first20_ms": statistics.median(first20[name]),
            "ratio_to_sqlite": statistics.median(first20[name]) / sqlite_first20,
            "hop1_ms": statistics.median(hop1[name]),
            "lookup_ms": statistics.median(lookup[name]),
            "answers_agree": all(answers[name][k] == answers["sqlite"][k]
                                 for k in ("lookup", "hop1", "hop2")),
        }
    result["raw_hop1_first20_ms"] = first20
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", action="append", required=True)
    parser.add_argument("--bin", action="append", required=True, help="NAME=BINDIR")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--warm-runs", type=int, default=5)
    parser.add_argument("--persons", type=int, default=100000)
    parser.add_argument("--start", type=int)
    parser.add_argument("--out")
    args = parser.parse_args()
    bins = dict(b.split("=", 1) for b in args.bin)
    env = dict(os.environ)
    if args.start is not None:
        env["OMNIGRAPH_BENCH_START"] = str(args.start)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    commit = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    date = datetime.date.today().isoformat()
    out = args.out or os.path.join(root, "bench", "results", f"fresh-ab-{date}-{commit}.json")
    result = {"name": "fresh-ab", "date": date, "commit": commit, "bins": bins,
              "start": args.start if args.start is not None else 1,
              "method": "fresh: omnigraph-cold-bench fresh DIR lookup|hop1, every build and "
                        "SQLite alternating, each child under chrt -f 20, medians of open + first "
                        "query (ms); warm: omnigraph-cold-bench warm, alternating, FIFO, medians "
                        "of hop1_first20_ms (the first 20 distinct 1-hop starts of a process)",
              "loadavg_before": uptime(), "graphs": {}}
    for data in args.data:
        print(f"fresh_ab: {data}", file=sys.stderr)
        result["graphs"][data] = {"fresh": fresh(data, bins, args.runs, env),
                                  "warm": warm(data, bins, args.warm_runs, args.persons, env)}
    result["loadavg_after"] = uptime()
    with open(out, "w") as f:
        json.dump(result, f, indent=1)
    for data, graph in result["graphs"].items():
        for shape, r in graph["fresh"].items():
            row = ", ".join(f"{n} {r[n]['ms']:.3f} ({r[n]['ratio_to_sqlite']:.2f}x"
                            f"{'' if r[n]['answers_agree'] else ', ANSWERS DIFFER'})" for n in bins)
            print(f"{os.path.basename(data)} fresh {shape}: sqlite {r['sqlite_ms']:.3f}, {row}")
        w = graph["warm"]
        row = ", ".join(f"{n} {w[n]['hop1_first20_ms']:.3f} ({w[n]['ratio_to_sqlite']:.2f}x"
                        f"{'' if w[n]['answers_agree'] else ', ANSWERS DIFFER'})" for n in bins)
        print(f"{os.path.basename(data)} warm hop1_first20: sqlite "
              f"{w['sqlite_hop1_first20_ms']:.3f}, {row}")
        row = ", ".join(f"{n} lookup {w[n]['lookup_ms']:.4f} hop1 {w[n]['hop1_ms']:.4f}"
                        for n in bins)
        print(f"{os.path.basename(data)} warm: sqlite lookup {w['sqlite_lookup_ms']:.4f} "
              f"hop1 {w['sqlite_hop1_ms']:.4f}, {row}")
    print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
