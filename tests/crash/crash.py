#!/usr/bin/env python3
"""Crash safety across processes: kill -9 at random moments of the newer writers.

Each round builds a graph in a temporary folder, starts a writer as a real process, kills it with
SIGKILL at a random moment (uniform over the time the same work takes uncut), and then checks, as
an operator would after a crash, through the omnigraph command on the graph's folder:

  * every acknowledged write is present, once;
  * nothing unacknowledged is half-visible (a write's nodes and edge are all there or none is);
  * `omnigraph repair --json` reports no defect;
  * the next write succeeds, and a retried keyed write lands exactly once.

Scenarios (docs/design/crash-safety.md):
  group   omnigraph-server with many concurrent keyed mutations over HTTP (group-commit batches),
          the server killed mid-flight; the unanswered writes retried with their keys after a
          restart.
  retry   `omnigraph mutate --idempotency-key K` killed; the same command run again.
  merge   `omnigraph branch merge` of a branch with many changes killed; the merge run again.
  cluster `omnigraph cluster apply` killed while it creates a graph, migrates a schema and
          publishes stored queries; then the lock is found and force-unlocked, apply run again,
          and the applied state, the graphs and their data checked.

Usage: crash.py OMNIGRAPH OMNIGRAPH_SERVER [--rounds N] [--seed S] [--scenario NAME|all]
Exit status 0 when every round held, 1 with the failures listed.
"""
import argparse
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

SCHEMA = """node Item { id: String @key  n: I32 }
node Tag { id: String @key }
edge Tagged: Item -> Tag
"""
QUERIES = """query add($i: String, $t: String) {
  insert Item { id: $i, n: 1 }
  insert Tag { id: $t }
  insert Tagged { from: $i, to: $t }
}
query bump($i: String) {
  update Item set { n: 2 } where id = $i
}
"""


class Failure(Exception):
    pass


class Graph:
    """A graph folder and the omnigraph command on it."""

    def __init__(self, bin_path, folder):
        self.bin = bin_path
        self.folder = folder
        self.uri = os.path.join(folder, "g")
        self.queries = os.path.join(folder, "q.gq")
        with open(os.path.join(folder, "s.pg"), "w") as f:
            f.write(SCHEMA)
        with open(self.queries, "w") as f:
            f.write(QUERIES)
        self.run(["init", "--schema", os.path.join(folder, "s.pg"), self.uri])

    def command(self, args):
        return [self.bin, "--quiet", "--as", "crash"] + args

    def run(self, args, check=True):
        p = subprocess.run(self.command(args), capture_output=True, text=True, timeout=300)
        if check and p.returncode != 0:
            raise Failure("omnigraph %s failed (%d): %s" % (" ".join(args), p.returncode,
                                                             p.stderr.strip()))
        return p

    def add_args(self, i, key=None, branch="main"):
        args = ["mutate", "--query", self.queries, "--params",
                json.dumps({"i": "i%d" % i, "t": "t%d" % i}), "--branch", branch]
        if key:
            args += ["--idempotency-key", key]
        return args + ["add", self.uri]

    def contents(self, branch="main"):
        """{item ids}, {tag ids}, {(from, to)} edges, with a count of each (duplicates show)."""
        p = self.run(["export", "--branch", branch, self.uri])
        items, tags, edges = {}, {}, {}
        for line in p.stdout.splitlines():
            row = json.loads(line)
            if row.get("type") == "Item":
                items[row["id"]] = items.get(row["id"], 0) + 1
            elif row.get("type") == "Tag":
                tags[row["id"]] = tags.get(row["id"], 0) + 1
            elif row.get("edge") == "Tagged":
                key = (row["from"], row["to"])
                edges[key] = edges.get(key, 0) + 1
        return items, tags, edges

    def head_seq(self, branch="main"):
        """The sequence number of the branch's newest commit (ids read BRANCH.SEQ.SUFFIX)."""
        p = self.run(["commit", "list", "--json", "--limit", "1", "--branch", branch, self.uri])
        return int(json.loads(p.stdout)["commits"][0]["graph_commit_id"].split(".")[-2])

    def check_repair(self):
        """Repair finds nothing it could not explain. A hint behind the newest record is the one
        defect a kill may leave (the writer died between a record's create and the hint's put;
        the hint is advisory and readers probe past it): it must be fixable, `repair --confirm`
        must fix it, and repair must then find nothing at all."""
        p = self.run(["repair", "--json", self.uri])
        defects = json.loads(p.stdout).get("defects") or []
        stale = [d for d in defects if d.get("kind") == "hint_behind" and d.get("fixable")]
        if len(stale) != len(defects):
            raise Failure("repair reports defects after the crash: %s" % defects)
        if stale:
            self.run(["repair", "--confirm", "--json", self.uri])
            p = self.run(["repair", "--json", self.uri])
            left = json.loads(p.stdout).get("defects")
            if left:
                raise Failure("repair --confirm left defects after a stale hint: %s" % left)


def write_state(contents, i):
    """'all', 'none' or 'partial' for write i (its item, its tag and the edge between them)."""
    items, tags, edges = contents
    name, tag = "i%d" % i, "t%d" % i
    parts = [items.get(name, 0), tags.get(tag, 0), edges.get((name, tag), 0)]
    if any(n > 1 for n in parts):
        raise Failure("write %d is present more than once: %s" % (i, parts))
    if all(n == 1 for n in parts):
        return "all"
    if all(n == 0 for n in parts):
        return "none"
    return "partial"


def check_writes(contents, acked, attempted):
    for i in attempted:
        state = write_state(contents, i)
        if state == "partial":
            raise Failure("write %d is half-visible after the crash" % i)
        if i in acked and state != "all":
            raise Failure("acknowledged write %d is lost" % i)


def kill_at(proc, delay):
    """Kills proc after `delay` seconds (None: lets it finish); returns how long it ran."""
    start = time.monotonic()
    if delay is not None:
        time.sleep(delay)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    return time.monotonic() - start


# --- retry: a keyed CLI mutation killed, then the same command again --------------------------

def round_retry(graph, rng, state):
    i = state["next"]
    state["next"] += 1
    key = "retry-%d" % i
    before = graph.head_seq()
    proc = subprocess.Popen(graph.command(graph.add_args(i, key)), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    kill_at(proc, rng.uniform(0, state["duration"]))
    acked = proc.returncode == 0
    contents = graph.contents()
    check_writes(contents, {i} if acked else set(), [i])
    landed = write_state(contents, i) == "all"
    graph.check_repair()
    # The retry with the same key answers as the first did, or lands the write now: once.
    graph.run(graph.add_args(i, key))
    check_writes(graph.contents(), {i}, [i])
    after = graph.head_seq()
    if after != before + 1:
        raise Failure("keyed write %d: %d commits before, %d after its retry (expected one more)"
                      % (i, before, after))
    if acked:
        return "finished"
    return "killed after it landed" if landed else "killed before it landed"


def measure(command):
    start = time.monotonic()
    subprocess.run(command, capture_output=True, timeout=300)
    return time.monotonic() - start


# --- merge: a merge of a branch with many changes killed, then run again ----------------------

def round_merge(graph, rng, state):
    n = state["merge_batch"]
    branch = "feature-%d" % state["round"]
    graph.run(["branch", "create", branch, "--from", "main", graph.uri])
    first = state["next"]
    for k in range(3):
        rows = []
        for i in range(first + k * n, first + (k + 1) * n):
            rows.append(json.dumps({"type": "Item", "data": {"id": "i%d" % i, "n": 1}}))
            rows.append(json.dumps({"type": "Tag", "data": {"id": "t%d" % i}}))
            rows.append(json.dumps({"edge": "Tagged", "from": "i%d" % i, "to": "t%d" % i}))
        path = os.path.join(graph.folder, "batch.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(rows) + "\n")
        graph.run(["load", "--data", path, "--mode", "append", "--branch", branch, graph.uri])
    ids = list(range(first, first + 3 * n))
    state["next"] += 3 * n
    # A change on main too, so the merge is a real three-way merge, not a fast-forward.
    graph.run(graph.add_args(state["next"]))
    state["next"] += 1
    merge = graph.command(["branch", "merge", branch, "--into", "main", graph.uri])
    proc = subprocess.Popen(merge, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The first round merges uncut and measures how long a merge takes.
    delay = rng.uniform(0, state["duration"]) if "duration" in state else None
    took = kill_at(proc, delay)
    state.setdefault("duration", 1.2 * took)
    acked = proc.returncode == 0
    contents = graph.contents()
    states = {write_state(contents, i) for i in ids}
    if len(states) != 1 or "partial" in states:
        raise Failure("merge of %s is half-visible on main: %s" % (branch, sorted(states)))
    if acked and states != {"all"}:
        raise Failure("acknowledged merge of %s is missing from main" % branch)
    graph.check_repair()
    again = graph.run(["branch", "merge", branch, "--into", "main", graph.uri], check=False)
    if again.returncode != 0:
        raise Failure("merge of %s after the crash failed: %s" % (branch, again.stderr.strip()))
    check_writes(graph.contents(), set(ids), ids)
    graph.run(graph.add_args(state["next"]))
    state["next"] += 1
    if acked:
        return "finished"
    return "killed after it landed" if states == {"all"} else "killed before it landed"


# --- cluster: `cluster apply` killed while it converges a changed config ----------------------

class Cluster:
    """A cluster directory (cluster.yaml, a schema, a query folder, a policy bundle) whose
    config grows each round: one more graph, one more property on graph a, one more query."""

    def __init__(self, graph):
        self.g = graph
        self.dir = os.path.join(graph.folder, "cluster")
        os.makedirs(os.path.join(self.dir, "queries"))
        os.makedirs(os.path.join(self.dir, "policies"))
        with open(os.path.join(self.dir, "policies", "team.policy.yaml"), "w") as f:
            f.write("version: 1\ngroups:\n  team: [crash]\nrules:\n  - id: team-all\n"
                    "    allow:\n      actors: { group: team }\n"
                    "      actions: [read, change]\n      branch_scope: any\n")
        with open(os.path.join(self.dir, "queries", "base.gq"), "w") as f:
            f.write(QUERIES)
        self.props = []
        self.graphs = ["a"]
        self.write_config()

    def write_config(self):
        schema = "node Item { id: String @key  n: I32%s }\nnode Tag { id: String @key }\n" \
                 "edge Tagged: Item -> Tag\n" % "".join("  %s: I32?" % p for p in self.props)
        with open(os.path.join(self.dir, "a.pg"), "w") as f:
            f.write(schema)
        with open(os.path.join(self.dir, "other.pg"), "w") as f:
            f.write(SCHEMA)
        lines = ["version: 1", "metadata:", "  name: crash", "graphs:"]
        for g in self.graphs:
            lines += ["  %s:" % g, "    schema: %s" % ("a.pg" if g == "a" else "other.pg"),
                      "    queries: queries/"]
        lines += ["policies:", "  team:", "    file: policies/team.policy.yaml",
                  "    applies_to: [%s]" % ", ".join(self.graphs)]
        with open(os.path.join(self.dir, "cluster.yaml"), "w") as f:
            f.write("\n".join(lines) + "\n")

    def grow(self, r):
        self.props.append("p%d" % r)
        self.graphs.append("g%d" % r)
        with open(os.path.join(self.dir, "queries", "q%d.gq" % r), "w") as f:
            f.write("query count%d() {\n  match { $i: Item }\n  return { count($i) }\n}\n" % r)
        self.write_config()

    def cli(self, args, check=True):
        return self.g.run(["cluster"] + args + ["--config", self.dir], check=check)

    def root(self, g):
        return os.path.join(self.dir, "graphs", "%s.omni" % g)

    def status(self):
        return json.loads(self.cli(["status", "--json"]).stdout)


def cluster_unlock(cluster):
    """Removes a lock the killed apply left, after checking it names the killed holder."""
    status = cluster.status()
    lock = status.get("lock", {})
    if not lock.get("locked"):
        return False
    if lock.get("lock_operation") != "apply" or not lock.get("lock_holder", "").startswith("crash"):
        raise Failure("the lock left behind does not name the killed apply: %s" % lock)
    cluster.cli(["force-unlock", lock["lock_id"]])
    return True


def check_cluster(cluster, acked):
    """After a converging apply: nothing left to plan, every declared graph applied, open,
    clean under repair and carrying every declared property, and graph a's data intact."""
    plan = json.loads(cluster.cli(["plan", "--json"]).stdout)
    if any(plan["summary"].values()):
        raise Failure("plan after the converging apply is not empty: %s" % plan["changes"])
    listed = json.loads(cluster.g.run(["graphs", "list", "--cluster", cluster.dir,
                                       "--json"]).stdout)
    ids = sorted(g["id"] for g in listed["graphs"])
    if ids != sorted(cluster.graphs):
        raise Failure("graphs list says %s, the config declares %s" % (ids, cluster.graphs))
    for g in cluster.graphs:
        report = json.loads(cluster.g.run(["repair", "--json", cluster.root(g)]).stdout)
        if report.get("defects"):
            raise Failure("repair of graph %s reports %s" % (g, report["defects"]))
    shown = cluster.g.run(["schema", "show", cluster.root("a")]).stdout
    missing = [p for p in cluster.props if p not in shown]
    if missing:
        raise Failure("graph a's schema lacks %s after apply: %s" % (missing, shown))
    saved, cluster.g.uri = cluster.g.uri, cluster.root("a")
    try:
        check_writes(cluster.g.contents(), acked, sorted(acked))
    finally:
        cluster.g.uri = saved


def round_cluster(graph, rng, state):
    cluster = state.get("cluster")
    if cluster is None:
        cluster = state["cluster"] = Cluster(graph)
        cluster.cli(["import"])
        cluster.cli(["apply"])
        state["acked"] = set()
    # Data in graph a before the change: acknowledged, so it must survive whatever apply does.
    saved, graph.uri = graph.uri, cluster.root("a")
    try:
        graph.run(graph.add_args(state["next"]))
    finally:
        graph.uri = saved
    state["acked"].add(state["next"])
    state["next"] += 1
    cluster.grow(state["round"])
    apply = graph.command(["cluster", "apply", "--config", cluster.dir])
    proc = subprocess.Popen(apply, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    delay = rng.uniform(0, state["duration"]) if "duration" in state else None
    took = kill_at(proc, delay)
    state.setdefault("duration", 1.2 * took)
    acked = proc.returncode == 0
    unlocked = cluster_unlock(cluster)
    if acked and unlocked:
        raise Failure("an apply that finished left its lock behind")
    again = json.loads(cluster.cli(["apply", "--json"]).stdout)
    if not again.get("converged"):
        raise Failure("apply after the crash did not converge: %s" % again)
    check_cluster(cluster, state["acked"])
    if acked:
        return "finished"
    return "killed, lock %s" % ("left and force-unlocked" if unlocked else "not yet taken or released")


# --- group: a server with concurrent keyed writes killed --------------------------------------

class Server:
    def __init__(self, server_bin, graph):
        self.out = open(os.path.join(graph.folder, "server.out"), "w+")
        self.proc = subprocess.Popen(
            [server_bin, graph.uri, "--bind", "127.0.0.1:0", "--unauthenticated"],
            stdout=self.out, stderr=subprocess.STDOUT, env=dict(os.environ))
        deadline = time.monotonic() + 60
        self.port = None
        while time.monotonic() < deadline and self.port is None:
            if self.proc.poll() is not None:
                raise Failure("the server exited: %s" % self.log())
            for line in self.log().splitlines():
                if "listening on http://127.0.0.1:" in line:
                    self.port = int(line.split("127.0.0.1:")[1].split()[0].strip("/,"))
            time.sleep(0.05)
        if self.port is None:
            raise Failure("the server did not start: %s" % self.log())

    def log(self):
        self.out.flush()
        with open(self.out.name) as f:
            return f.read()

    def kill(self):
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.out.close()


def post_mutate(port, i, key):
    body = json.dumps({"query": QUERIES, "name": "add",
                       "params": {"i": "i%d" % i, "t": "t%d" % i}})
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/mutate", body=body,
                     headers={"Content-Type": "application/json", "Idempotency-Key": key})
        resp = conn.getresponse()
        resp.read()
        return "acked" if resp.status == 200 else "refused:%d" % resp.status
    except (OSError, http.client.HTTPException):
        return "unknown"
    finally:
        conn.close()


def round_group(graph, rng, state, server_bin):
    writers, per_writer = state["writers"], state["per_writer"]
    first = state["next"]
    state["next"] += writers * per_writer
    outcome = {}
    server = Server(server_bin, graph)

    def writer(w):
        for k in range(per_writer):
            i = first + w * per_writer + k
            outcome[i] = post_mutate(server.port, i, "group-%d" % i)
            if outcome[i] == "unknown":
                return

    commits_before = graph.head_seq()
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    start = time.monotonic()
    for t in threads:
        t.start()
    if "duration" in state:
        time.sleep(rng.uniform(0, state["duration"]))
    else:
        # The first round runs uncut and measures how long the writes take.
        for t in threads:
            t.join()
        state["duration"] = 1.2 * (time.monotonic() - start)
    server.kill()
    for t in threads:
        t.join()
    refused = {i: o for i, o in outcome.items() if o.startswith("refused")}
    if refused:
        raise Failure("writes refused before the crash: %s" % refused)
    acked = {i for i, o in outcome.items() if o == "acked"}
    attempted = sorted(outcome)
    contents = graph.contents()
    check_writes(contents, acked, attempted)
    landed = sum(1 for i in attempted if write_state(contents, i) == "all")
    records = graph.head_seq() - commits_before
    graph.check_repair()
    # After a restart every unanswered write is retried with its key: each lands once.
    server = Server(server_bin, graph)
    try:
        for i in attempted:
            if i not in acked:
                result = post_mutate(server.port, i, "group-%d" % i)
                if result != "acked":
                    raise Failure("retry of keyed write %d after the crash: %s" % (i, result))
    finally:
        server.kill()
    check_writes(graph.contents(), set(attempted), attempted)
    graph.run(graph.add_args(state["next"]))
    state["next"] += 1
    return ("%d of %d writes answered, %d landed in %d records"
            % (len(acked), writers * per_writer, landed, records))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("omnigraph")
    parser.add_argument("server")
    parser.add_argument("--rounds", type=int,
                        default=int(os.environ.get("OMNIGRAPH_CRASH_ROUNDS", 4)))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("OMNIGRAPH_CRASH_SEED", 1)))
    parser.add_argument("--scenario", default="all")
    args = parser.parse_args()
    scenarios = ["retry", "merge", "group", "cluster"] if args.scenario == "all" else [args.scenario]
    failures = []
    for scenario in scenarios:
        rng = random.Random("%s-%d" % (scenario, args.seed))
        folder = tempfile.mkdtemp(prefix="omnigraph-crash-")
        try:
            graph = Graph(args.omnigraph, folder)
            state = {"next": 1, "writers": 16, "per_writer": 6, "merge_batch": 40}
            if scenario == "retry":
                state["duration"] = 1.2 * measure(graph.command(graph.add_args(0, "warm")))
            for r in range(args.rounds):
                state["round"] = r
                try:
                    if scenario == "retry":
                        what = round_retry(graph, rng, state)
                    elif scenario == "merge":
                        what = round_merge(graph, rng, state)
                    elif scenario == "cluster":
                        what = round_cluster(graph, rng, state)
                    else:
                        what = round_group(graph, rng, state, args.server)
                    print("crash %s round %d: %s; every check held" % (scenario, r, what))
                except Failure as e:
                    failures.append("%s round %d (seed %d): %s" % (scenario, r, args.seed, e))
                    print("FAIL: %s" % failures[-1])
                    break
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if failures:
        print("%d scenario(s) failed; replay with --seed %d" % (len(failures), args.seed))
        return 1
    print("crash: %d scenario(s), %d rounds each, every check held (seed %d)"
          % (len(scenarios), args.rounds, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
