#!/usr/bin/env python3
"""A warm point lookup through omnigraph-server beside its two peers (issue [36] item 7;
docs/benchmarks.md "A warm point lookup over HTTP").

The data: the graph of scripts/loadtest.sh (PEOPLE Person nodes keyed by name, each knowing three
others) on a local temporary folder, and its point lookup by key (`point`, name = p42, one row).
Three measurements, each ROUNDS times, interleaved so a change in the machine's load falls on all:
  embedded  the same query through the embedded public API in one process, one thread
            (omnigraph-api-bench), warm;
  rtt       the loopback round trip of a trivial HTTP server (bench/http/beast_hello.cc) with the
            same client and the same request bytes;
  server    POST /query with the same query, name and parameters to a release omnigraph-server
            (bearer token), warm.
The client of the last two is bench/http/keepalive_client.cc: ONE keep-alive connection,
sequential requests, every answer checked. The goal: server p50 <= 2 x embedded p50 + rtt p50.
With --before DIR, a fourth: the same request to DIR/omnigraph-server (an older build) on the
same graph, in the same rounds, so a change is measured before and after under the same load.
With --wrk, also wrk runs of scripts/loadtest.sh's point lookup (1 and 8 connections) against
each server. With --pin, every server (the trivial one too) runs on CPU 1 and every client (the
embedded run too) on CPU 0: on a loaded machine this keeps the client and the server on two cores,
as an idle machine places them, so that each request pays the wake-ups it would on an idle machine
(docs/benchmarks.md "After decision 231"). Each server round also records the server's CPU time
per request (all its threads, from /proc/PID/stat) and how often per request its event loop's
thread slept (its voluntary context switches).

Usage: point_lookup.py [--bin build/release/bin] [--people 10000] [--requests 5000]
                       [--rounds 3] [--before DIR] [--wrk] [--pin] [--out FILE]
"""
import argparse
import datetime
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TOKEN = "bench-token"
QUERIES = """query point($name: String) { match { $p: Person { name: $name } } return { $p.name, $p.age } }
"""
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def build_graph(cli, tmp, people):
    schema = os.path.join(tmp, "schema.pg")
    with open(schema, "w") as f:
        f.write("node Person { name: String @key  age: I64? }\nedge Knows: Person -> Person { }\n")
    data = os.path.join(tmp, "data.ndjson")
    import random
    rng = random.Random(7)
    with open(data, "w") as f:
        for i in range(people):
            f.write(json.dumps({"type": "Person", "data": {"name": f"p{i}",
                                                           "age": rng.randrange(18, 90)}}) + "\n")
        for i in range(people):
            for j in rng.sample(range(people), 3):
                f.write(json.dumps({"edge": "Knows", "from": f"p{i}", "to": f"p{j}"}) + "\n")
    graph = os.path.join(tmp, "g")
    subprocess.run([cli, "init", "--schema", schema, graph], check=True,
                   stdout=subprocess.DEVNULL)
    subprocess.run([cli, "load", "--mode", "append", "--data", data, graph], check=True,
                   stdout=subprocess.DEVNULL)
    return graph


def compile_tools(tmp):
    client = os.path.join(tmp, "keepalive_client")
    hello = os.path.join(tmp, "beast_hello")
    subprocess.run(["g++", "-O2", "-std=c++20", os.path.join(HERE, "keepalive_client.cc"), "-o",
                    client], check=True)
    subprocess.run(["g++", "-O2", "-std=c++20", os.path.join(HERE, "beast_hello.cc"), "-o", hello,
                    "-pthread"], check=True)
    return client, hello


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


CLIENT_CPU = []  # taskset prefixes, set by --pin
SERVER_CPU = []


def process_usage(pid):
    """The process's CPU time (all threads) in µs, and its main thread's voluntary context
    switches: the server's event loop runs on its main thread, and each of those is a sleep."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu_us = (int(fields[11]) + int(fields[12])) * 1e6 / os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/task/{pid}/status") as f:
        sleeps = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", f.read(), re.M).group(1))
    return cpu_us, sleeps


def client_run(client, port, path, body_file, requests, expect, headers, pid=None):
    warmup = max(100, requests // 10)
    before = process_usage(pid) if pid else None
    out = subprocess.run([*CLIENT_CPU, client, str(port), "POST", path, body_file, str(requests),
                          str(warmup), expect, *headers],
                         check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    if pid:
        after = process_usage(pid)
        result["server_cpu_us_per_request"] = round((after[0] - before[0]) /
                                                    (requests + warmup), 1)
        result["loop_sleeps_per_request"] = round((after[1] - before[1]) / (requests + warmup), 3)
    return result


def embedded_run(api_bench, graph, queries, seconds):
    out = subprocess.run([*CLIENT_CPU, api_bench, graph, queries, "point", '{"name":"p42"}', "1",
                          str(seconds)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def start_server(server, graph):
    env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKEN=TOKEN)
    proc = subprocess.Popen([*SERVER_CPU, server, graph, "--bind", "127.0.0.1:0"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
    if not m:
        proc.kill()
        sys.exit("server did not start: " + line)
    return proc, int(m.group(1))


def wrk_run(port, body, connections, seconds, tmp):
    script = os.path.join(tmp, "point.lua")
    with open(script, "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n')
        f.write("wrk.body = " + json.dumps(body) + "\n")
    text = subprocess.run(["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency",
                           "-H", "Authorization: Bearer " + TOKEN, "-s", script,
                           f"http://127.0.0.1:{port}/query"],
                          check=True, capture_output=True, text=True).stdout

    def us(v):
        m = re.match(r"([\d.]+)(us|ms|s)", v)
        return round(float(m.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[m.group(2)], 1)
    out = {"connections": connections,
           "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))}
    for p in ("50", "90", "99"):
        out[f"p{p}_us"] = us(re.search(rf"^\s+{p}%\s+(\S+)", text, re.M).group(1))
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    out["non_2xx"] = int(m.group(1)) if m else 0
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/release/bin"))
    ap.add_argument("--people", type=int, default=10000)
    ap.add_argument("--requests", type=int, default=5000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before")
    ap.add_argument("--wrk", action="store_true")
    ap.add_argument("--pin", action="store_true")
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.pin:
        CLIENT_CPU[:] = ["taskset", "-c", "0"]
        SERVER_CPU[:] = ["taskset", "-c", "1"]
    uptime_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="omnigraph-point-lookup.")
    procs = []
    try:
        graph = build_graph(os.path.join(args.bin, "omnigraph"), tmp, args.people)
        client, hello = compile_tools(tmp)
        queries = os.path.join(tmp, "reads.gq")
        with open(queries, "w") as f:
            f.write(QUERIES)
        body = json.dumps({"query": QUERIES, "name": "point", "params": {"name": "p42"}})
        body_file = os.path.join(tmp, "body.json")
        with open(body_file, "w") as f:
            f.write(body)
        hello_port = free_port()
        hello_proc = subprocess.Popen([*SERVER_CPU, hello, str(hello_port)])
        procs.append(hello_proc)
        server, server_port = start_server(os.path.join(args.bin, "omnigraph-server"), graph)
        procs.append(server)
        servers = {"server": (server_port, server.pid)}
        if args.before:
            old, old_port = start_server(os.path.join(args.before, "omnigraph-server"), graph)
            procs.append(old)
            servers["server_before"] = (old_port, old.pid)
        time.sleep(0.5)
        auth = "Authorization: Bearer " + TOKEN
        runs = {"embedded": [], "rtt": [], **{name: [] for name in servers}}
        for r in range(args.rounds):
            runs["embedded"].append(embedded_run(os.path.join(args.bin, "omnigraph-api-bench"),
                                                 graph, queries, 3))
            runs["rtt"].append(client_run(client, hello_port, "/hello", body_file, args.requests,
                                          "hello", [auth], hello_proc.pid))
            for name, (port, pid) in servers.items():
                runs[name].append(client_run(client, port, "/query", body_file, args.requests,
                                             '"p42"', [auth], pid))
            print(json.dumps({k: v[-1] for k, v in runs.items()}), file=sys.stderr)
        med = {k: {p: statistics.median(x[p] for x in v) for p in ("p50_us", "p90_us", "p99_us")}
               for k, v in runs.items()}
        budget = 2 * med["embedded"]["p50_us"] + med["rtt"]["p50_us"]
        doc = {
            "benchmark": "http-point-lookup",
            "data": f"{args.people} Person nodes keyed by name, {3 * args.people} Knows edges, "
                    "local store (temporary folder); point lookup of p42, one row",
            "cores": os.cpu_count(),
            "requests_per_round": args.requests, "rounds": args.rounds,
            "client": "bench/http/keepalive_client.cc: one keep-alive connection, sequential",
            "pinned": "servers on CPU 1, clients on CPU 0" if args.pin else "no",
            "runs": runs, "median_of_rounds": med,
            "budget_p50_us": round(budget, 1),
            "server_over_budget_p50": round(med["server"]["p50_us"] / budget, 2),
            "server_over_embedded_p50": round(med["server"]["p50_us"] /
                                              med["embedded"]["p50_us"], 2),
        }
        if args.before:
            doc["before_over_budget_p50"] = round(med["server_before"]["p50_us"] / budget, 2)
        if args.wrk and shutil.which("wrk"):
            doc["wrk"] = {name: [wrk_run(port, body, c, 5, tmp) for c in (1, 8)]
                          for name, (port, _) in servers.items()}
        doc["uptime_before"] = uptime_before
        doc["uptime_after"] = subprocess.run(["uptime"], capture_output=True,
                                             text=True).stdout.strip()
    finally:
        for p in procs:
            p.kill()
            p.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    text = json.dumps(doc, indent=2) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
