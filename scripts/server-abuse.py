#!/usr/bin/env python3
"""omnigraph-server under idle and trickling connections (docs/design/decisions.md 83).

Opens IDLE keep-alive connections (each sends GET /healthz and keeps the connection, not waiting
for the answer) and TRICKLE connections that send a request header a byte a second, then measures
GET /healthz and a point query, each on a new connection, SAMPLES times: the latency of each, or
"none in 5 s". Prints the server's peak RSS (VmHWM) when given its pid. Loopback only.

Usage: scripts/server-abuse.py URL TOKEN [--pid PID] [--idle 1000] [--trickle 256]
                               [--samples 20] [--query-body JSON]
"""
import argparse
import json
import resource
import socket
import threading
import time
import urllib.parse


def request(host, path, token=None, body=None):
    method = "POST" if body is not None else "GET"
    out = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n"
    if token:
        out += f"Authorization: Bearer {token}\r\n"
    if body is not None:
        out += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    return (out + "\r\n" + (body or "")).encode()


def timed(addr, data, timeout=5.0):
    """Seconds until a whole response with status 200 arrives on a new connection, or None."""
    start = time.perf_counter()
    try:
        with socket.create_connection(addr, timeout=timeout) as s:
            s.settimeout(timeout)
            s.sendall(data)
            got = b""
            while b"\r\n\r\n" not in got:
                chunk = s.recv(65536)
                if not chunk:
                    return None
                got += chunk
            head, _, body = got.partition(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk:
                    return None
                body += chunk
            if not head.startswith(b"HTTP/1.1 200"):
                return None
    except OSError:
        return None
    return time.perf_counter() - start


def summary(name, values):
    answered = sorted(v for v in values if v is not None)
    missing = len(values) - len(answered)
    if not answered:
        return f"{name}: no answer within 5 s in {len(values)} tries"
    p50 = answered[len(answered) // 2] * 1e3
    worst = answered[-1] * 1e3
    return (f"{name}: p50 {p50:.2f} ms, max {worst:.2f} ms"
            + (f", {missing} of {len(values)} not answered within 5 s" if missing else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("token")
    ap.add_argument("--pid", type=int)
    ap.add_argument("--idle", type=int, default=1000)
    ap.add_argument("--trickle", type=int, default=256)
    ap.add_argument("--samples", type=int, default=20)
    ap.add_argument("--query-body", default=json.dumps({
        "query": "query one($n: String) { match { $p: Person { name: $n } } return { $p.name } }",
        "params": {"n": "p42"}}))
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    u = urllib.parse.urlparse(args.url)
    addr = (u.hostname, u.port)
    idle, trickle = [], []
    for _ in range(args.idle):
        s = socket.create_connection(addr)
        s.setblocking(False)
        s.send(request(u.hostname, "/healthz"))
        idle.append(s)
    trickle_head = request(u.hostname, "/query", args.token, args.query_body)
    for _ in range(args.trickle):
        s = socket.create_connection(addr)
        s.setblocking(False)
        s.send(trickle_head[:20])
        trickle.append(s)
    stop = threading.Event()

    def trickler():
        i = 20
        while not stop.is_set():
            for s in trickle:
                try:
                    s.send(trickle_head[i % len(trickle_head):][:1] or b"X")
                except OSError:
                    pass
            i += 1
            stop.wait(1.0)

    t = threading.Thread(target=trickler)
    t.start()
    time.sleep(2.0)  # The connections are accepted and the trickle has begun.
    health = [timed(addr, request(u.hostname, "/healthz")) for _ in range(args.samples)]
    query = [timed(addr, request(u.hostname, "/query", args.token, args.query_body))
             for _ in range(args.samples)]
    stop.set()
    t.join()
    print(f"{args.idle} idle keep-alive + {args.trickle} trickling connections")
    print(summary("healthz", health))
    print(summary("point query", query))
    if args.pid:
        with open(f"/proc/{args.pid}/status") as f:
            for line in f:
                if line.startswith(("VmHWM", "VmRSS", "Threads")):
                    print("server " + " ".join(line.split()))
    for s in idle + trickle:
        s.close()


if __name__ == "__main__":
    main()
