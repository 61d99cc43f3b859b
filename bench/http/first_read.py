#!/usr/bin/env python3
"""The first read of a new table version through omnigraph-server (issue [36]; docs/benchmarks.md
"The first read of a new version").

For each table size: a graph of N Person nodes (name as key) and a release server; then, `--rounds`
times, one single-row insert (into Person, or into Note for the control) followed by two point
reads by key of an existing Person on a keep-alive connection. The first read is the first of the
new version (it refreshes the table's indexes); the second is warm. Prints one JSON row per size
and kind with the medians and p90 of each read in ms; every answer is checked (one row).

Usage: first_read.py --server BIN --cli BIN [--sizes 1000,10000,50000] [--rounds 40] [--out FILE]
"""
import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import time

TOKEN = "bench-token"
POINT = "query one($n: String) { match { $p: Person { name: $n } } return { $p.name } }"
INSERTS = {"Person": "query add($n: String) { insert Person { name: $n } }",
           "Note": "query add($n: String) { insert Note { name: $n } }"}


def post(conn, body, path="/query"):
    conn.request("POST", path, json.dumps(body),
                 {"Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
    r = conn.getresponse()
    return r.status, r.read()


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def run_size(args, tmp, n):
    schema = os.path.join(tmp, "s.pg")
    with open(schema, "w") as f:
        f.write("node Person { name: String @key }\nnode Note { name: String @key }\n")
    data = os.path.join(tmp, "people-%d.jsonl" % n)
    with open(data, "w") as f:
        for i in range(n):
            f.write(json.dumps({"type": "Person", "data": {"name": "p%d" % i}}) + "\n")
    graph = os.path.join(tmp, "g-%d" % n)
    subprocess.run([args.cli, "init", "--schema", schema, graph], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([args.cli, "load", "--data", data, "--mode", "append", graph], check=True,
                   stdout=subprocess.DEVNULL)
    env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=json.dumps({"bench": TOKEN}))
    proc = subprocess.Popen([args.server, graph, "--bind", "127.0.0.1:0", "--allow-writes",
                             "bench"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "listening on http://" not in line:
        proc.kill()
        sys.exit("server did not start: " + line)
    port = int(line.split("listening on http://")[1].split()[0].rsplit(":", 1)[1])
    rows = []
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        serial = 0
        for kind in ("Person", "Note"):
            first, second = [], []
            for i in range(args.rounds + 3):
                serial += 1
                status, body = post(conn, {"query": INSERTS[kind],
                                           "params": {"n": "x-%d" % serial}}, "/mutate")
                if status != 200:
                    sys.exit("insert failed: %d %s" % (status, body))
                name = "p%d" % ((i * 7919) % n)
                for out in (first, second):
                    t = time.perf_counter()
                    status, body = post(conn, {"query": POINT, "params": {"n": name}})
                    ms = (time.perf_counter() - t) * 1000
                    if status != 200 or json.loads(body)["row_count"] != 1:
                        sys.exit("read failed: %d %s" % (status, body))
                    if i >= 3:  # The first rounds warm the server.
                        out.append(ms)
            row = {"rows": n, "insert_into": kind, "rounds": args.rounds,
                   "first_read_p50_ms": round(percentile(first, 50), 3),
                   "first_read_p90_ms": round(percentile(first, 90), 3),
                   "second_read_p50_ms": round(percentile(second, 50), 3),
                   "second_read_p90_ms": round(percentile(second, 90), 3),
                   "load_avg_1m": round(os.getloadavg()[0], 2)}
            print(json.dumps(row), flush=True)
            rows.append(row)
    finally:
        proc.terminate()
        proc.wait()
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--out")
    ap.add_argument("--label", default="")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(s) for s in args.sizes.split(",")]:
            rows += run_size(args, tmp, n)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        with open(args.out, "w") as f:
            json.dump({"bench": "first_read", "date": time.strftime("%Y-%m-%d"),
                       "commit": commit, "label": args.label, "server": args.server,
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
