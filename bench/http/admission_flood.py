#!/usr/bin/env python3
"""One actor's write flood beside another actor's reads, through omnigraph-server (issue [33]
item 5; docs/design/server.md "Per-actor admission control"; results in docs/benchmarks.md).

The data: one graph of 10,000 Person nodes (name as key). Bob (a second actor) runs point reads by
key, one at a time on a keep-alive connection; his latency is measured alone and then while alice
floods the server from many connections at once: with single-insert mutations (retrying at once
on a 429, the worst client), with single-insert mutations under a per-actor rate where she waits
out each 429's Retry-After (a well-behaved client), and with point reads. Each scenario starts
its own server with the limits it names; bob and alice run in separate processes (no shared
interpreter lock), and every answer is checked (bob's reads must find their row).

Usage: admission_flood.py --server BIN --cli BIN [--reads N] [--flooders N] [--out FILE]
"""
import argparse
import http.client
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time

TOKENS = {"alice": "alice-bench-token", "bob": "bob-bench-token"}
POINT = ("query one($n: String) { match { $p: Person { name: $n } } return { $p.name } }")
INSERT = "query add($n: String) { insert Person { name: $n } }"
INSERT_NOTE = "query add($n: String) { insert Note { name: $n } }"


def start_server(server, graph, extra):
    env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=json.dumps(
        {actor: token for actor, token in TOKENS.items()}))
    proc = subprocess.Popen([server, graph, "--bind", "127.0.0.1:0", "--allow-writes",
                             "alice,bob"] + extra, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "listening on http://" not in line:
        proc.kill()
        sys.exit("server did not start: " + line)
    port = int(line.split("listening on http://")[1].split()[0].rsplit(":", 1)[1])
    return proc, port


def post(conn, token, path, body, headers=None):
    conn.request("POST", path, json.dumps(body), {"Authorization": "Bearer " + token,
                                                  "Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if headers is not None:
        headers.update({k.lower(): v for k, v in r.getheaders()})
    return r.status, data


def bob_reads(port, count, out, pace_per_s):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    lat = []
    for i in range(count):
        if pace_per_s:
            time.sleep(1.0 / pace_per_s)
        name = "p%d" % ((i * 7919) % 10000)
        t0 = time.perf_counter()
        status, data = post(conn, TOKENS["bob"], "/query", {"query": POINT, "params": {"n": name}})
        lat.append((time.perf_counter() - t0) * 1000.0)
        if status != 200 or json.loads(data)["row_count"] != 1:
            out.put(("error", status, data[:200].decode(errors="replace")))
            return
    out.put(("ok", lat))


def alice_thread(port, stop, counts, index, kind, honour_retry_after):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    n = 0
    while not stop.is_set():
        n += 1
        headers = {}
        try:
            if kind == "read":
                status, _ = post(conn, TOKENS["alice"], "/query",
                                 {"query": POINT, "params": {"n": "p%d" % (n % 10000)}}, headers)
            else:
                query = INSERT_NOTE if kind == "insert-note" else INSERT
                status, _ = post(conn, TOKENS["alice"], "/mutate",
                                 {"query": query, "params": {"n": "a-%d-%d" % (index, n)}},
                                 headers)
        except (http.client.HTTPException, OSError):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            status = -1
        counts[status] = counts.get(status, 0) + 1
        if status == 429 and honour_retry_after:
            stop.wait(float(headers.get("retry-after", "1")))


def alice_flood(port, flooders, stop, out, kind, honour_retry_after):
    import threading
    counts = [dict() for _ in range(flooders)]
    threads = [threading.Thread(target=alice_thread,
                                args=(port, stop, counts[i], i, kind, honour_retry_after))
               for i in range(flooders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = {}
    for c in counts:
        for k, v in c.items():
            total[str(k)] = total.get(str(k), 0) + v
    out.put(total)


RATE = ["--per-actor-rate", "100", "--per-actor-burst", "20"]
# (name, server flags, flood?, flood kind, honour Retry-After?, bob's pace in reads/s; 0 = flat out).
# The rate bounds every actor, so bob keeps under it in the rate rows: 80 reads a second.
PLANS = [
    ("bob alone", [], False, "insert", False, 0),
    ("bob beside alice's flood, admission default (16 in flight)", [], True, "insert", False, 0),
    ("bob beside alice's flood, in-flight bound 4", ["--per-actor-inflight-max", "4"], True,
     "insert", False, 0),
    ("bob beside alice's flood, admission off", ["--per-actor-inflight-max", "0"], True, "insert",
     False, 0),
    ("bob beside alice's read flood, admission default", [], True, "read", False, 0),
    ("bob (80 reads/s) alone, rate 100/s", RATE, False, "insert", False, 80),
    ("bob (80 reads/s) beside alice's flood at a 100/s rate, honouring Retry-After", RATE, True,
     "insert", True, 80),
    ("bob (80 reads/s) beside alice's flood at a 100/s rate, retrying at once", RATE, True,
     "insert", False, 80),
    ("bob (80 reads/s) alone", [], False, "insert", False, 80),
    ("bob (80 reads/s) beside alice's flood, admission default", [], True, "insert", False, 80),
    ("bob (80 reads/s) beside alice's flood of Note inserts, admission default", [], True,
     "insert-note", False, 80),
]


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def scenario(args, graph, name, extra, flood, kind="insert", honour_retry_after=False,
             bob_pace_per_s=0):
    proc, port = start_server(args.server, graph, extra)
    try:
        out = mp.Queue()
        stop = mp.Event()
        flooder = None
        if flood:
            flooder = mp.Process(target=alice_flood, args=(port, args.flooders, stop, out, kind,
                                                            honour_retry_after))
            flooder.start()
            time.sleep(1.0)  # Let the flood fill the queue first.
        started = time.perf_counter()
        reads = args.reads if not bob_pace_per_s else min(args.reads, bob_pace_per_s * 10)
        reader = mp.Process(target=bob_reads, args=(port, reads, out, bob_pace_per_s))
        reader.start()
        reader.join()
        elapsed = time.perf_counter() - started
        bob = out.get()
        alice = None
        if flooder:
            stop.set()
            flooder.join()
            alice = out.get()
        if bob[0] != "ok":
            sys.exit("bob's read failed in %s: %s" % (name, bob))
        lat = bob[1]
        row = {"scenario": name, "server_flags": extra, "bob_paced_per_s": bob_pace_per_s,
               "flood": (kind + (" honouring Retry-After" if honour_retry_after else ""))
               if flood else None,
               "bob_reads": len(lat), "bob_p50_ms": round(percentile(lat, 50), 3),
               "bob_p99_ms": round(percentile(lat, 99), 3), "bob_max_ms": round(max(lat), 3),
               "seconds": round(elapsed, 2)}
        if alice is not None:
            row["alice_answers"] = alice
            row["alice_answered_200_per_s"] = round(alice.get("200", 0) / elapsed, 1)
        print(json.dumps(row), flush=True)
        return row
    finally:
        proc.terminate()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--reads", type=int, default=2000)
    ap.add_argument("--flooders", type=int, default=64)
    ap.add_argument("--out")
    ap.add_argument("--only", help="run only the scenarios whose name contains this")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        schema = os.path.join(tmp, "s.pg")
        with open(schema, "w") as f:
            f.write("node Person { name: String @key }\nnode Note { name: String @key }\n")
        data = os.path.join(tmp, "people.jsonl")
        with open(data, "w") as f:
            for i in range(10000):
                f.write(json.dumps({"type": "Person", "data": {"name": "p%d" % i}}) + "\n")
        graph = os.path.join(tmp, "g")
        subprocess.run([args.cli, "init", "--schema", schema, graph], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run([args.cli, "load", "--data", data, "--mode", "append", graph], check=True,
                       stdout=subprocess.DEVNULL)
        rows = [scenario(args, graph, *plan) for plan in PLANS
                if not args.only or args.only in plan[0]]
    # Each row against bob alone at the same pace (the paced rows under the rate limit).
    def base(r):
        return (r["bob_paced_per_s"], "--per-actor-rate" in r["server_flags"])
    alone = {base(r): r for r in rows if r["flood"] is None}
    for r in rows:
        if base(r) in alone:
            a = alone[base(r)]
            r["bob_p50_vs_alone"] = round(r["bob_p50_ms"] / a["bob_p50_ms"], 2)
            r["bob_p99_vs_alone"] = round(r["bob_p99_ms"] / a["bob_p99_ms"], 2)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip()
        with open(args.out, "w") as f:
            json.dump({"bench": "admission_flood", "date": time.strftime("%Y-%m-%d"),
                       "commit": commit, "reads": args.reads, "flooders": args.flooders,
                       "graph": "10,000 Person nodes, point reads by key", "rows": rows}, f,
                      indent=1)


if __name__ == "__main__":
    main()
