#!/usr/bin/env python3
"""The differential layer's machinery (tests/cli/differential.sh runs it; see there).

  differential.py shim ARGS...         stands in for the omnigraph command (environment below)
  differential.py compare SUITE KNOWN DIRECT.jsonl REMOTE.jsonl
  differential.py refused STATE REFUSED_FILE   runs each refused verb through a server
  differential.py stop STATE           stops the servers the shim started

The shim runs the real command and appends one record per invocation to STATE/transcript.jsonl:
argv, how it ran, exit status, stdout and stderr. In the direct pass (OG_DIFF_MODE=direct) it
runs the command as given. In the remote pass (OG_DIFF_MODE=remote) an invocation on a local graph
(a path, or file://path, to a folder with _omnigraph.json) runs through an omnigraph-server serving
that folder instead: one server per graph, started on first use on 127.0.0.1:0 with one token per
actor (every actor may write), the graph argument replaced by --server URL --token T --yes
(the consent a served destructive write needs and a local one does not), and --as
ACTOR replaced by ACTOR's token. A write without --as publishes as the actor "-", the name the
command prints for a commit without an actor; the comparison drops its JSON "actor_id" member,
which a direct write without an actor lacks, from what the suite sees too. Verbs listed in the refused file, and invocations with
no graph or with their own --server, run as given. The suite sees the output with the server's
echo "-> URL (served)" turned back into the direct one it asked for, so its own assertions hold
in both passes; the transcript keeps what the command printed.

Environment of the shim: OG_DIFF_MODE, OG_DIFF_STATE (a folder), OG_DIFF_BIN (the real
omnigraph), OG_DIFF_SERVER (omnigraph-server), OG_DIFF_REFUSED (the refused verbs' file),
OG_DIFF_ACTORS (comma-separated actors the suite names with --as).
"""
import difflib
import fcntl
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from normalize import Normalizer  # noqa: E402

# Options of the omnigraph command itself that take a value (src/cli/main.cc).
GLOBAL_VALUED = ("--store", "--as", "--server", "--token", "--graph")
DEFAULT_ACTOR = "-"
ARROW = "\u2192"


def token_of(actor):
    return "tok-" + ("default" if actor == DEFAULT_ACTOR else actor)


def read_refused(path):
    """The refused file's rows: (verb words, check arguments, expected error line start)."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in line.split(" | ")]
            if len(cols) != 3 or not cols[0]:
                sys.exit("%s:%d: want 'verb | arguments | error', got %r" % (path, n, line))
            rows.append((cols[0].split(), shlex.split(cols[1]), cols[2]))
    return rows


def graph_path(arg):
    path = arg[len("file://"):] if arg.startswith("file://") else arg
    return path if path and os.path.isfile(os.path.join(path, "_omnigraph.json")) else None


def verb_words(args):
    """The command's leading words (verb, subverb), global options and their values skipped."""
    words, i = [], 0
    while i < len(args) and len(words) < 2:
        a = args[i]
        if a in GLOBAL_VALUED:
            i += 2
            continue
        if a.startswith("-"):
            if words:
                break
            i += 1
            continue
        if graph_path(a):
            break
        words.append(a)
        i += 1
    return words


def is_refused(args, refused):
    words = verb_words(args)
    return any(words[: len(v)] == v for v, _, _ in refused)


class State:
    def __init__(self, folder):
        self.folder = folder
        os.makedirs(folder, exist_ok=True)
        self.servers_path = os.path.join(folder, "servers.json")

    def lock(self):
        f = open(os.path.join(self.folder, "lock"), "a")
        fcntl.flock(f, fcntl.LOCK_EX)
        return f

    def servers(self):
        if not os.path.exists(self.servers_path):
            return {}
        with open(self.servers_path, encoding="utf-8") as f:
            return json.load(f)

    def save_servers(self, servers):
        with open(self.servers_path, "w", encoding="utf-8") as f:
            json.dump(servers, f)

    def append(self, record):
        with self.lock():
            with open(os.path.join(self.folder, "transcript.jsonl"), "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")


def start_server(state, server_bin, graph, actors):
    """Starts omnigraph-server on graph, returns its URL; raises RuntimeError if it does not start."""
    n = len(os.listdir(state.folder))
    out_path = os.path.join(state.folder, "server%d.out" % n)
    err_path = os.path.join(state.folder, "server%d.err" % n)
    env = dict(os.environ)
    env["OMNIGRAPH_SERVER_BEARER_TOKENS_JSON"] = json.dumps({a: token_of(a) for a in actors})
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen(
            [server_bin, graph, "--bind", "127.0.0.1:0", "--allow-writes", ",".join(actors)],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, start_new_session=True)
    for _ in range(600):
        with open(out_path, encoding="utf-8", errors="replace") as f:
            m = re.search(r"listening on (http://127\.0\.0\.1:[0-9]+)", f.read())
        if m:
            return m.group(1), proc.pid
        if proc.poll() is not None:
            with open(err_path, encoding="utf-8", errors="replace") as f:
                raise RuntimeError("omnigraph-server on %s exited %s: %s" %
                                   (graph, proc.returncode, f.read()))
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("omnigraph-server on %s printed no listening line in 30 s" % graph)


def server_for(state, graph):
    """The URL of the server serving graph, started on first use."""
    key = os.path.realpath(graph)
    with state.lock():
        servers = state.servers()
        if key in servers:
            return servers[key]["url"]
        actors = [DEFAULT_ACTOR] + [a for a in os.environ.get("OG_DIFF_ACTORS", "").split(",")
                                    if a and a != DEFAULT_ACTOR]
        url, pid = start_server(state, os.environ["OG_DIFF_SERVER"], key, actors)
        servers[key] = {"url": url, "pid": pid}
        state.save_servers(servers)
        return url


def remote_plan(args, refused):
    """How the remote pass runs args: (how, args to run, graph argument or None)."""
    if "--server" in args or any(a.startswith(("http://", "https://")) for a in args):
        return "as given (names a server)", args, None
    for i, a in enumerate(args):
        if graph_path(a) and (i == 0 or args[i - 1] != "--schema"):
            break
    else:
        return "direct (no existing local graph)", args, None
    if is_refused(args, refused):
        return "direct (refused remotely)", args, None
    graph = args[i]
    rest = args[: i - 1] + args[i + 1:] if i > 0 and args[i - 1] == "--store" else \
        args[:i] + args[i + 1:]
    actor, run = DEFAULT_ACTOR, []
    j = 0
    while j < len(rest):
        if rest[j] == "--as" and j + 1 < len(rest) and rest[j + 1]:
            actor = rest[j + 1]
            j += 2
            continue
        run.append(rest[j])
        j += 1
    return "served", run, (graph, actor)


def shim(args):
    state = State(os.environ["OG_DIFF_STATE"])
    real = os.environ["OG_DIFF_BIN"]
    refused = read_refused(os.environ["OG_DIFF_REFUSED"])
    how, run, served = "direct", args, None
    url = None
    if os.environ["OG_DIFF_MODE"] == "remote":
        how, run, served = remote_plan(args, refused)
        if served:
            graph, actor = served
            try:
                url = server_for(state, graph_path(graph))
            except RuntimeError as e:
                sys.stderr.write("differential shim: %s\n" % e)
                state.append({"argv": args, "how": "server failed", "rc": 125,
                              "stdout": "", "stderr": str(e)})
                return 125
            # --yes: the consent a destructive write on a served graph asks for, which the
            # direct run on a local path does not (decision 159).
            run = ["--server", url, "--token", token_of(actor), "--yes"] + run
    p = subprocess.run([real] + run, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    record = {"argv": args, "how": how, "rc": rc, "stdout": out, "stderr": err}
    if url:
        record["url"], record["uri"] = url, served[0]
        err = served_echo_as_direct(err, url, served[0])
        if served[1] == DEFAULT_ACTOR:
            out = drop_default_actor(out)
    state.append(record)
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    return rc


def served_echo_as_direct(text, url, uri):
    return text.replace("%s %s (served)" % (ARROW, url), "%s %s (direct, local)" % (ARROW, uri))


def drop_default_actor(text):
    """Removes the actor "-" (a server's write without --as; direct: absent) from JSON members and
    mutate's human "actor_id:" line."""
    text = re.sub(r'\n[ ]*"actor_id": "-",', "", text)
    text = re.sub(r',\n[ ]*"actor_id": "-"(?=\n)', "", text)
    text = re.sub(r"^actor_id: -\n", "", text, flags=re.M)  # mutate's human form
    text = re.sub(r'"actor_id":"-",', "", text)
    return re.sub(r',"actor_id":"-"(?=[}\]])', "", text)


def render(record, normalize, tmp):
    """One invocation as comparable text: argv, exit status, stdout, stderr."""
    # A pass's scratch directory becomes $DIR before the ids are numbered: mktemp's ten random
    # characters are sometimes all Crockford base-32 and would read as a commit id.
    scratch = re.compile(re.escape(tmp) + r"/tmp\.[A-Za-z0-9]+")
    reps = [(tmp, "<tmp>")]
    err = record["stderr"]
    if "url" in record:
        err = served_echo_as_direct(err, record["url"], record["uri"])
    parts = [normalize(scratch.sub("$DIR", text), reps) for text in (
        " ".join(shlex.quote(a) for a in record["argv"]),
        drop_default_actor(record["stdout"]), drop_default_actor(err))]
    body = "exit %d\n--- stdout\n%s\n--- stderr\n%s" % (record["rc"], parts[1], parts[2])
    return parts[0], body


def load(path):
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def read_known(path, suite):
    """Known differences: 'SUITE | ARGV REGEX | reason' rows of this suite."""
    known = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            cols = [c.strip() for c in line.rstrip("\n").split(" | ")]
            if len(cols) == 3 and cols[0] == suite:
                known.append({"pattern": re.compile(cols[1]), "reason": cols[2], "used": 0})
    return known


def compare(suite, known_path, direct_path, remote_path, direct_tmp, remote_tmp):
    direct, remote = load(direct_path), load(remote_path)
    known = read_known(known_path, suite)
    nd, nr = Normalizer(), Normalizer()
    failures, noted = [], []
    for n in range(max(len(direct), len(remote))):
        if n >= len(direct) or n >= len(remote):
            extra = remote[n] if n >= len(direct) else direct[n]
            failures.append("#%d: only the %s pass ran `omnigraph %s`" % (
                n + 1, "remote" if n >= len(direct) else "direct",
                " ".join(shlex.quote(a) for a in extra["argv"])))
            break
        dargv, dbody = render(direct[n], nd, direct_tmp)
        rargv, rbody = render(remote[n], nr, remote_tmp)
        if dargv != rargv:
            failures.append("#%d: the passes ran different commands (the suite took another path)"
                            "\n  direct: omnigraph %s\n  remote: omnigraph %s" % (n + 1, dargv, rargv))
            break
        if dbody == rbody:
            continue
        diff = "\n".join(difflib.unified_diff(dbody.splitlines(), rbody.splitlines(), "direct",
                                              "remote (%s)" % remote[n]["how"], lineterm=""))
        text = "#%d: omnigraph %s\n%s" % (n + 1, dargv, diff)
        hit = next((k for k in known if k["pattern"].search(dargv)), None)
        if hit:
            hit["used"] += 1
            noted.append(text + "\n  known difference: " + hit["reason"])
        else:
            failures.append(text)
    for k in known:
        if not k["used"]:
            failures.append("known difference %r matched no differing invocation: remove it"
                            % k["pattern"].pattern)
    for text in noted:
        print("%s: %s\n" % (suite, text))
    for text in failures:
        print("FAIL %s: %s\n" % (suite, text))
    print("%s: %d invocations compared, %d known differences, %d failures" % (
        suite, len(direct), len(noted), len(failures)))
    return 1 if failures else 0


def check_refused(folder, refused_path, schema, query):
    """Each refused verb, run through a server, fails with its typed error and nothing else."""
    state = State(folder)
    real = os.environ["OG_DIFF_BIN"]
    graph = os.path.join(folder, "refused-graph")
    p = subprocess.run([real, "--quiet", "init", "--schema", schema, graph],
                       capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: init of the refused verbs' graph: " + p.stderr)
        return 1
    url = server_for(state, graph)
    failures = 0
    for verb, extra, want in read_refused(refused_path):
        extra = [schema if a == "@SCHEMA@" else query if a == "@QUERY@" else a for a in extra]
        argv = ["--server", url, "--token", token_of(DEFAULT_ACTOR)] + verb + extra
        p = subprocess.run([real] + argv, capture_output=True, text=True)
        lines = p.stderr.splitlines()
        errors = [ln for ln in lines if ln.startswith("omnigraph: error")]
        if p.returncode != 1 or len(errors) != 1 or not lines[-1].startswith(want) or p.stdout:
            failures += 1
            print("FAIL refused verb '%s': want exit 1 and the one error '%s...', got exit %d\n"
                  "  stdout: %s\n  stderr: %s" % (" ".join(verb), want, p.returncode,
                                                   p.stdout.strip(), p.stderr.strip()))
    print("refused verbs: %d checked, %d failures" % (len(read_refused(refused_path)), failures))
    return 1 if failures else 0


def alive(pid):
    """Whether pid runs (a zombie, not yet reaped by whoever adopted it, does not)."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def stop(folder):
    state = State(folder)
    for s in state.servers().values():
        try:
            os.kill(s["pid"], signal.SIGTERM)
        except ProcessLookupError:
            pass
    for s in state.servers().values():
        for _ in range(100):
            if not alive(s["pid"]):
                break
            time.sleep(0.05)
        else:
            os.kill(s["pid"], signal.SIGKILL)


def main(argv):
    cmd, rest = argv[0], argv[1:]
    if cmd == "shim":
        return shim(rest)
    if cmd == "compare":
        return compare(*rest)
    if cmd == "refused":
        return check_refused(*rest)
    if cmd == "stop":
        stop(rest[0])
        return 0
    sys.exit("unknown command " + cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
