#!/usr/bin/env python3
"""OmniGraph's HTTP contract, checked by a JSON Schema validator (docs/design/openapi.md).

Starts omnigraph-server on a seeded graph on loopback and sends every operation of the reference's
openapi.json (28 operations: ../shared/reference/omnigraph/openapi.json) its successes and its
errors. Each response must have the status the case expects, that status must be one the
reference documents for the operation, and the body must validate (Draft 2020-12, the dialect of
OpenAPI 3.1) against the schema the reference gives that status: JSON bodies whole, an NDJSON
stream line by line. A few cases also check a header the reference documents (Deprecation, Link).

A case that fails is a failure unless known.txt lists its operation and case; a listed case that
passes is a failure too (the list must shrink with the fixes). `--table` prints a Markdown table
of the results per operation, for docs/design/openapi.md.

usage: contract.py BIN_DIR REFERENCE_OPENAPI KNOWN_FILE [--table]
"""
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from jsonschema import Draft202012Validator

SCHEMA = """node Person { name: String @key  age: I32?  photo: Blob? }
node Company { name: String @key }
edge WorksAt: Person -> Company
"""
SEED = "\n".join([
    '{"type":"Person","data":{"name":"Ada","age":36,"photo":"base64:aGVsbG8="}}',
    '{"type":"Person","data":{"name":"Bob","age":41}}',
    '{"type":"Company","data":{"name":"Acme"}}',
    '{"edge":"WorksAt","from":"Ada","to":"Acme"}',
]) + "\n"
STORED = """query people() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }
query add_person($name: String) { insert Person { name: $name } }
"""
PEOPLE = "query people() { match { $p: Person } return { $p.name } order { $p.name } }"
ADD = "query add($name: String) { insert Person { name: $name } }"
AGE = "query age($name: String, $age: I32) { update Person set { age: $age } where name = $name }"
TOKENS = {"ana": "tok-ana", "ro": "tok-ro"}
GRAPH = "/graphs/default"


class Server:
    def __init__(self, bin_dir, workdir):
        self.dir = workdir
        omnigraph = os.path.join(bin_dir, "omnigraph")
        graph = os.path.join(workdir, "g.omni")
        for name, text in (("s.pg", SCHEMA), ("seed.jsonl", SEED), ("stored.gq", STORED)):
            with open(os.path.join(workdir, name), "w") as f:
                f.write(text)
        for args in (["init", "--schema", "s.pg", graph],
                     ["load", "--data", "seed.jsonl", "--mode", "merge", graph]):
            subprocess.run([omnigraph, "--quiet"] + args, cwd=workdir, check=True,
                           stdout=subprocess.DEVNULL)
        env = dict(os.environ, OMNIGRAPH_SERVER_BEARER_TOKENS_JSON=json.dumps(TOKENS))
        self.out = open(os.path.join(workdir, "server.out"), "w+")
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "omnigraph-server"), graph, "--bind", "127.0.0.1:0",
             "--allow-writes", "ana", "--queries", os.path.join(workdir, "stored.gq")],
            stdout=self.out, stderr=subprocess.STDOUT, env=env)
        for _ in range(300):
            self.out.seek(0)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.out.read())
            if m:
                self.port = int(m.group(1))
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.out.seek(0)
        raise SystemExit("FAIL: the server did not start: " + self.out.read())

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)

    def send(self, method, path, body=None, token="tok-ana", ctype=None, headers=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = dict(headers or {})
        if token:
            h["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            data = body if isinstance(body, (bytes, str)) else json.dumps(body)
            h["Content-Type"] = ctype or "application/json"
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        raw = r.read()
        conn.close()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, raw


class ClusterServer(Server):
    """A served cluster graph whose cluster.yaml allows one s3 base for external Blobs, with an
    external reference loaded through the server (docs/design/blob.md "External Blob
    references"): the 302 of the blob operations."""

    URI = "s3://assets/docs/a.pdf"

    def __init__(self, bin_dir, workdir):
        self.dir = workdir
        with open(os.path.join(workdir, "s.pg"), "w") as f:
            f.write("node Doc { name: String @key  body: Blob? }\n")
        with open(os.path.join(workdir, "cluster.yaml"), "w") as f:
            f.write("version: 1\nmetadata:\n  name: ext\ngraphs:\n  ext:\n    schema: s.pg\n"
                    "    external_blobs:\n      allow:\n        - base: s3://assets/docs/\n"
                    "          scope: server_safe\n")
        for args in (["import", "--config", "."], ["apply", "--config", ".", "--as", "tester"]):
            subprocess.run([os.path.join(bin_dir, "omnigraph"), "--quiet", "cluster"] + args,
                           cwd=workdir, check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, OMNIGRAPH_UNAUTHENTICATED="1")
        self.out = open(os.path.join(workdir, "server.out"), "w+")
        self.proc = subprocess.Popen(
            [os.path.join(bin_dir, "omnigraph-server"), "--cluster", workdir, "--bind",
             "127.0.0.1:0"], stdout=self.out, stderr=subprocess.STDOUT, env=env)
        for _ in range(300):
            self.out.seek(0)
            m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", self.out.read())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        else:
            m = None
        if not m:
            self.out.seek(0)
            raise SystemExit("FAIL: the cluster server did not start: " + self.out.read())
        line = json.dumps({"type": "Doc", "data": {"name": "a", "body": self.URI}})
        status, _, raw = self.send("POST", "/graphs/ext/load", {"data": line + "\n"}, token=None)
        if status != 200:
            raise SystemExit(f"FAIL: loading an external reference: {status} {raw[:300]!r}")


class Contract:
    def __init__(self, doc):
        self.doc = doc
        self.ops = {}
        for path, item in doc["paths"].items():
            for method, op in item.items():
                if method != "parameters":
                    self.ops[op["operationId"]] = (method.upper(), path, op)
        self.results = {op_id: [] for op_id in self.ops}

    def validator(self, schema):
        root = dict(schema)
        root["components"] = self.doc["components"]
        return Draft202012Validator(root)

    def errors(self, schema, value):
        out = []
        for e in self.validator(schema).iter_errors(value):
            where = "/".join(str(p) for p in e.absolute_path) or "(body)"
            # A oneOf of null and a schema says only "not valid under any": the schema's reasons
            # say why.
            reasons = [sub.message for sub in e.context
                       if not (sub.validator == "type" and sub.validator_value == "null")]
            out.append(f"{where}: " + ("; ".join(reasons) if reasons else e.message)[:300])
        return out

    def check(self, op_id, case, status, headers, raw, want, want_headers):
        """The problems of one response, as strings (none: it keeps the contract)."""
        method, _, op = self.ops[op_id]
        wanted = want if isinstance(want, (set, frozenset)) else {want}
        problems = []
        if status not in wanted:
            problems.append(f"status {status}, want {'/'.join(str(w) for w in sorted(wanted))}")
        response = op["responses"].get(str(status))
        if response is None:
            problems.append(f"status {status} is not documented for {op_id}")
            return problems
        for name, value in (want_headers or {}).items():
            if headers.get(name.lower()) != value:
                problems.append(f"header {name}: {headers.get(name.lower())!r}, want {value!r}")
        content = response.get("content", {})
        if method == "HEAD" or not content:
            return problems
        ctype = headers.get("content-type", "").split(";")[0].strip()
        if ctype not in content:
            problems.append(f"content type {ctype!r}, want one of {sorted(content)}")
            return problems
        schema = content[ctype].get("schema")
        text = raw.decode("utf-8", errors="replace")
        if ctype == "application/x-ndjson":
            lines = [line for line in text.split("\n") if line]
            try:
                values = [json.loads(line) for line in lines]
            except ValueError as e:
                return problems + [f"an NDJSON line is not JSON: {e}"]
            if schema and op_id == "cluster_captureChangeBaseline":
                values = values[-1:]  # The schema is the stream's terminal record.
            if schema:
                for v in values:
                    problems += self.errors(schema, v)
            return problems
        if ctype == "application/json":
            try:
                value = json.loads(text)
            except ValueError as e:
                return problems + [f"body is not JSON: {e}: {text[:200]}"]
            problems += self.errors(schema, value)
        return problems

    def run(self, server, op_id, case, method, path, want, body=None, token="tok-ana",
            ctype=None, headers=None, want_headers=None):
        status, got_headers, raw = server.send(method, path, body, token, ctype, headers)
        problems = self.check(op_id, case, status, got_headers, raw, want, want_headers)
        self.results[op_id].append((case, status, problems))
        return status, got_headers, raw


def json_of(raw):
    return json.loads(raw.decode())


def documented(c, s):
    """Each reference operation must be in our /openapi.json (3.1), deprecated where it is."""
    status, _, raw = s.send("GET", "/openapi.json", token=None)
    ours = json_of(raw) if status == 200 else {}
    for op_id, (method, path, op) in c.ops.items():
        problems = []
        if ours.get("openapi") != "3.1.0":
            problems.append(f"our document is OpenAPI {ours.get('openapi')!r}, want 3.1.0")
        mine = ours.get("paths", {}).get(path, {}).get(method.lower())
        if mine is None:
            problems.append(f"{method} {path} is not in our /openapi.json")
        elif bool(mine.get("deprecated")) != bool(op.get("deprecated")):
            problems.append(f"deprecated: {mine.get('deprecated')!r}, want {op.get('deprecated')!r}")
        c.results[op_id].append(("in /openapi.json", status, problems))


def drive(c, s):
    """Every operation: the cases, in an order that builds the state the next ones need."""
    g = GRAPH
    documented(c, s)
    c.run(s, "health", "ok", "GET", "/healthz", 200, token=None)
    c.run(s, "listGraphs", "single-graph server, no graph_list grant", "GET", "/graphs", 403)
    c.run(s, "listGraphs", "no token", "GET", "/graphs", 401, token=None)

    c.run(s, "cluster_getSchema", "ok", "GET", g + "/schema", 200)
    c.run(s, "cluster_getSchema", "no token", "GET", g + "/schema", 401, token=None)
    c.run(s, "cluster_getSnapshot", "ok", "GET", g + "/snapshot", 200)
    c.run(s, "cluster_getSnapshot", "wrong token", "GET", g + "/snapshot", 401, token="nope")

    wider = SCHEMA + "node Team { name: String @key }\n"
    c.run(s, "cluster_applySchema", "adds a type", "POST", g + "/schema/apply", 200,
          {"schema_source": wider})
    c.run(s, "cluster_applySchema", "read-only token", "POST", g + "/schema/apply", 403,
          {"schema_source": wider}, token="tok-ro")
    c.run(s, "cluster_applySchema", "bad schema", "POST", g + "/schema/apply", 400,
          {"schema_source": "node {"})

    c.run(s, "cluster_query", "ok", "POST", g + "/query", 200, {"query": PEOPLE})
    c.run(s, "cluster_query", "does not parse", "POST", g + "/query", 400, {"query": "query q( {"})
    c.run(s, "cluster_read", "ok", "POST", g + "/read", 200, {"query_source": PEOPLE},
          want_headers={"Deprecation": "true", "Link": '<query>; rel="successor-version"'})
    c.run(s, "cluster_read", "does not parse", "POST", g + "/read", 400,
          {"query_source": "query q( {"})

    c.run(s, "cluster_mutate", "insert", "POST", g + "/mutate", 200,
          {"query": ADD, "params": {"name": "Cy"}})
    # A keyed node insert is an upsert in both (the reference's docs/user/mutations).
    c.run(s, "cluster_mutate", "keyed insert of an existing key", "POST", g + "/mutate", 200,
          {"query": ADD, "params": {"name": "Cy"}})
    c.run(s, "cluster_mutate", "does not parse", "POST", g + "/mutate", 400,
          {"query": "query q( {"})
    c.run(s, "cluster_mutate", "read-only token", "POST", g + "/mutate", 403,
          {"query": ADD, "params": {"name": "Di"}}, token="tok-ro")
    c.run(s, "cluster_change", "insert", "POST", g + "/change", 200,
          {"query": ADD, "params": {"name": "Di"}},
          want_headers={"Deprecation": "true", "Link": '<mutate>; rel="successor-version"'})

    _, _, raw = s.send("GET", g + "/commits")
    head = json_of(raw)["commits"][0]["graph_commit_id"]
    c.run(s, "cluster_mutate_if_graph_commit", "head matches", "POST",
          g + "/mutate/if-graph-commit", 200, {"query": AGE, "params": {"name": "Bob", "age": 42}},
          headers={"Omnigraph-If-Graph-Commit": head})
    c.run(s, "cluster_mutate_if_graph_commit", "stale head", "POST",
          g + "/mutate/if-graph-commit", 412, {"query": AGE, "params": {"name": "Bob", "age": 43}},
          headers={"Omnigraph-If-Graph-Commit": head})
    c.run(s, "cluster_mutate_if_graph_commit", "no header", "POST",
          g + "/mutate/if-graph-commit", 400, {"query": AGE, "params": {"name": "Bob", "age": 43}})

    c.run(s, "cluster_load", "merge", "POST", g + "/load", 200,
          {"data": '{"type":"Person","data":{"name":"Eve"}}\n', "mode": "merge"})
    c.run(s, "cluster_load", "append of an existing key", "POST", g + "/load", 409,
          {"data": '{"type":"Person","data":{"name":"Eve"}}\n', "mode": "append"})
    c.run(s, "cluster_load", "unknown type", "POST", g + "/load", 400,
          {"data": '{"type":"Nope","data":{}}\n'})
    c.run(s, "cluster_ingest", "merge", "POST", g + "/ingest", 200,
          {"data": '{"type":"Person","data":{"name":"Flo"}}\n', "mode": "merge"},
          want_headers={"Deprecation": "true", "Link": '<load>; rel="successor-version"'})
    c.run(s, "cluster_loadNdjson", "merge", "POST", g + "/load/ndjson?mode=merge", 200,
          '{"type":"Person","data":{"name":"Gus"}}\n', ctype="application/x-ndjson")
    c.run(s, "cluster_loadNdjson", "JSON content type", "POST", g + "/load/ndjson", 415,
          '{"type":"Person","data":{"name":"Gus"}}\n')
    c.run(s, "cluster_loadNdjson", "unknown branch", "POST", g + "/load/ndjson?branch=nope", 404,
          '{"type":"Person","data":{"name":"Gus"}}\n', ctype="application/x-ndjson")

    c.run(s, "cluster_export", "everything", "POST", g + "/export", 200, {})
    c.run(s, "cluster_export", "one type", "POST", g + "/export", 200, {"type_names": ["Person"]})
    c.run(s, "cluster_export", "unknown type", "POST", g + "/export", {400, 404},
          {"type_names": ["Nope"]})
    c.run(s, "cluster_export", "unknown branch", "POST", g + "/export", 404, {"branch": "nope"})

    c.run(s, "cluster_list_queries", "ok", "GET", g + "/queries", 200)
    c.run(s, "cluster_invoke_query", "stored read", "POST", g + "/queries/people", 200, {})
    c.run(s, "cluster_invoke_query", "stored mutation", "POST", g + "/queries/add_person", 200,
          {"params": {"name": "Hal"}})
    c.run(s, "cluster_invoke_query", "unknown query", "POST", g + "/queries/nope", 404, {})
    _, _, raw = s.send("GET", g + "/commits")
    head = json_of(raw)["commits"][0]["graph_commit_id"]
    c.run(s, "cluster_invoke_query_if_graph_commit", "head matches", "POST",
          g + "/queries/add_person/if-graph-commit", 200, {"params": {"name": "Ivy"}},
          headers={"Omnigraph-If-Graph-Commit": head})
    c.run(s, "cluster_invoke_query_if_graph_commit", "stale head", "POST",
          g + "/queries/add_person/if-graph-commit", 412, {"params": {"name": "Jo"}},
          headers={"Omnigraph-If-Graph-Commit": head})

    blob = g + "/blob?entity=node&type=Person&id=Ada&property=photo"
    _, got, _ = c.run(s, "cluster_getBlob", "a managed Blob", "GET", blob, 200,
                      want_headers={"Accept-Ranges": "bytes", "Content-Length": "5"})
    etag = got.get("etag", "")
    c.run(s, "cluster_getBlob", "a range", "GET", blob, 206, headers={"Range": "bytes=1-2"},
          want_headers={"Content-Range": "bytes 1-2/5", "Content-Length": "2", "ETag": etag})
    c.run(s, "cluster_getBlob", "an unsatisfiable range", "GET", blob, 416,
          headers={"Range": "bytes=5-"}, want_headers={"Content-Range": "bytes */5"})
    c.run(s, "cluster_getBlob", "If-None-Match", "GET", blob, 304,
          headers={"If-None-Match": etag}, want_headers={"ETag": etag, "Content-Length": "5"})
    c.run(s, "cluster_getBlob", "If-Match stale", "GET", blob, 412,
          headers={"If-Match": '"stale"'}, want_headers={"ETag": etag})
    c.run(s, "cluster_getBlob", "unknown entity", "GET",
          g + "/blob?entity=node&type=Person&id=Nobody&property=photo", 404)
    c.run(s, "cluster_getBlob", "not a Blob", "GET",
          g + "/blob?entity=node&type=Person&id=Ada&property=age", 400)
    c.run(s, "cluster_getBlob", "no token", "GET", blob, 401, token=None)
    c.run(s, "cluster_headBlob", "a managed Blob", "HEAD", blob, 200,
          want_headers={"Content-Length": "5", "ETag": etag})
    c.run(s, "cluster_headBlob", "If-None-Match", "HEAD", blob, 304,
          headers={"If-None-Match": etag})
    c.run(s, "cluster_headBlob", "unknown entity", "HEAD",
          g + "/blob?entity=node&type=Person&id=Nobody&property=photo", 404)

    # An external reference: 302 to the stored URI, on a cluster graph that allows its base.
    ext_dir = tempfile.mkdtemp(prefix="openapi-contract-ext-")
    ext = ClusterServer(c.bin_dir, ext_dir)
    try:
        path = "/graphs/ext/blob?entity=node&type=Doc&id=a&property=body"
        location = {"Location": ClusterServer.URI, "Cache-Control": "no-store"}
        c.run(ext, "cluster_getBlob", "an external reference", "GET", path, 302, token=None,
              want_headers=location)
        c.run(ext, "cluster_headBlob", "an external reference", "HEAD", path, 302, token=None,
              want_headers=location)
    finally:
        ext.stop()
        shutil.rmtree(ext_dir, ignore_errors=True)

    # Commits and the change feed.
    _, _, raw = s.send("GET", g + "/commits")
    commits = json_of(raw)["commits"]
    c.run(s, "cluster_listCommits", "ok", "GET", g + "/commits", 200)
    c.run(s, "cluster_listCommits", "no token", "GET", g + "/commits", 401, token=None)
    c.run(s, "cluster_getCommit", "ok", "GET", g + "/commits/" + commits[0]["graph_commit_id"], 200)
    c.run(s, "cluster_getCommit", "unknown commit", "GET", g + "/commits/main.999.AAAAAAAAAA",
          404)
    # Newest first: the last is genesis, the one before it the seed's load.
    c.run(s, "cluster_getCommitChanges", "a load", "GET",
          g + "/commits/" + commits[-2]["graph_commit_id"] + "/changes", 200)
    c.run(s, "cluster_getCommitChanges", "genesis (parentless)", "GET",
          g + "/commits/" + commits[-1]["graph_commit_id"] + "/changes", 409)
    c.run(s, "cluster_getCommitChanges", "unknown commit", "GET",
          g + "/commits/main.999.AAAAAAAAAA/changes", 404)
    c.run(s, "cluster_pollChanges", "from the beginning", "GET", g + "/changes?start=beginning",
          200)
    c.run(s, "cluster_pollChanges", "a bad cursor", "GET", g + "/changes?cursor=garbage", 400)
    c.run(s, "cluster_pollChanges", "unknown branch", "GET", g + "/changes?branch=nope", 404)
    # The repeatable filters (kind, type, op) and a filter value that is none of them.
    c.run(s, "cluster_pollChanges", "filtered", "GET",
          g + "/changes?start=beginning&kind=node&kind=edge&type=Person&op=insert&op=update", 200)
    c.run(s, "cluster_pollChanges", "a bad kind", "GET", g + "/changes?kind=vertex", 400)
    c.run(s, "cluster_captureChangeBaseline", "filtered", "POST", g + "/changes/baseline", 200,
          {"kind": ["node"], "type": ["Person"], "op": ["insert"]})
    c.run(s, "cluster_captureChangeBaseline", "a bad op", "POST", g + "/changes/baseline", 400,
          {"op": ["upsert"]})
    c.run(s, "cluster_captureChangeBaseline", "main", "POST", g + "/changes/baseline", 200, {})
    c.run(s, "cluster_captureChangeBaseline", "unknown branch", "POST", g + "/changes/baseline",
          404, {"branch": "nope"})

    # Branches; a schema apply is refused while one is open.
    c.run(s, "cluster_createBranch", "ok", "POST", g + "/branches", 200, {"name": "feat"})
    c.run(s, "cluster_createBranch", "exists", "POST", g + "/branches", 409, {"name": "feat"})
    c.run(s, "cluster_createBranch", "no name", "POST", g + "/branches", 400, {})
    c.run(s, "cluster_listBranches", "ok", "GET", g + "/branches", 200)
    c.run(s, "cluster_applySchema", "a branch is open", "POST", g + "/schema/apply", 409,
          {"schema_source": wider + "node Tag { name: String @key }\n"})
    s.send("POST", g + "/mutate", {"query": AGE, "params": {"name": "Ada", "age": 50},
                                    "branch": "feat"})
    c.run(s, "cluster_mergeBranches", "clean", "POST", g + "/branches/merge", 200,
          {"source": "feat"})
    s.send("POST", g + "/branches", {"name": "clash"})
    s.send("POST", g + "/mutate", {"query": AGE, "params": {"name": "Ada", "age": 60},
                                    "branch": "clash"})
    s.send("POST", g + "/mutate", {"query": AGE, "params": {"name": "Ada", "age": 70}})
    c.run(s, "cluster_mergeBranches", "both sides changed a row", "POST", g + "/branches/merge",
          409, {"source": "clash"})
    c.run(s, "cluster_deleteBranch", "ok", "DELETE", g + "/branches/feat", 200)
    c.run(s, "cluster_deleteBranch", "unknown branch", "DELETE", g + "/branches/nope", 404)


def load_known(path):
    known = set()
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                op_id, _, case = line.partition(" ")
                known.add((op_id, case.strip()))
    return known


def table(c):
    print("| operation | case | status | result |")
    print("|---|---|---:|---|")
    for op_id, (method, path, _) in sorted(c.ops.items(), key=lambda kv: (kv[1][1], kv[1][0])):
        for case, status, problems in c.results[op_id]:
            result = "ok" if not problems else "; ".join(p.replace("|", "\\|") for p in problems)
            print(f"| `{method} {path}` | {case} | {status} | {result[:400]} |")


def main():
    bin_dir, reference, known_file = sys.argv[1:4]
    with open(reference) as f:
        c = Contract(json.load(f))
    c.bin_dir = bin_dir
    known = load_known(known_file)
    workdir = tempfile.mkdtemp(prefix="openapi-contract-")
    server = Server(bin_dir, workdir)
    try:
        drive(c, server)
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    if "--table" in sys.argv:
        table(c)
    failures = []
    for op_id, results in c.results.items():
        if not results:
            failures.append(f"{op_id}: no case sends it")
        for case, status, problems in results:
            listed = (op_id, case) in known
            if problems and not listed:
                failures.append(f"{op_id} [{case}] (HTTP {status}): " + "; ".join(problems))
            if not problems and listed:
                failures.append(f"{op_id} [{case}] keeps the contract now: remove it from "
                                f"{os.path.basename(known_file)}")
    for op_id, case in sorted(known):
        if op_id not in c.results or case not in [r[0] for r in c.results[op_id]]:
            failures.append(f"{op_id} [{case}] is listed but no case has that name")
    cases = sum(len(r) for r in c.results.values())
    kept = sum(1 for r in c.results.values() for x in r if not x[2])
    print(f"openapi contract: {cases} cases over {len(c.ops)} operations, {kept} keep the "
          f"contract, {len(known)} known differences")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
