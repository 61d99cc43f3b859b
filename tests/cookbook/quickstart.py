#!/usr/bin/env python3
"""A cookbook's README quick start, run verbatim, as a new user would.

Copies the cookbook (shared/fixtures/cookbooks/NAME) into a temporary folder, takes the shell
block under its "## Quick Start" heading from README.md as it is written, and feeds it, command
by command, to one bash process whose PATH starts with the build's bin folder. Each command must
exit 0. The only changes to the text, each because a document cannot be run otherwise:

  * `<you>` becomes an actor name and `<tok>` a token (the README asks the reader to fill them);
  * a command that starts `omnigraph-server` ("keep running — separate terminal or background")
    is started in the background and waited for until it listens; it is stopped at the end;
  * a destructive write to a non-local target without `--yes` (an overwrite `load`, `cleanup`,
    `branch delete` on `s3://` or a server) asks for consent at a terminal, as OmniGraph's CLI
    does, and refuses without one; the reader at a terminal is asked and answers, so such a
    command runs at a pseudo-terminal (script(1)) with "yes" typed, and the question must be
    asked;
  * `cp .env.omni.example .env.omni` finds an example file written here, pointing at the S3
    test server (Ceph RGW standing in for RustFS: $AWS_ENDPOINT_URL and keys from
    scripts/start-rgw.sh), and the bucket the README names is created first.

Then the checks the README states in prose: a curl of a stored query answers rows; with
--policy-block, the industry-intel "Serving with policy" block and its verified gates (GET /graphs
admin 200 / reader 403 / anonymous 401; stored reads reader 200; stored mutations reader 403,
analyst 200).

Usage: quickstart.py BIN_DIR COOKBOOKS_DIR NAME [--policy-block]
Exit status 0 when every command and check passed; 77 when the S3 test server is needed and not
configured.
"""
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ACTOR = "quickstart"
TOKENS = {"act-reader": "tok-reader-1", "act-analyst": "tok-analyst-2",
          "act-admin": "tok-admin-3"}


class Failure(Exception):
    pass


def section_blocks(readme, heading):
    """The ```bash blocks of the section that starts at `heading` (up to the next heading of the
    same or a higher level)."""
    lines = readme.splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    out, block, inside = [], None, False
    for line in lines:
        if line.strip() == heading:
            inside = True
            continue
        if inside and block is None and re.match(r"^#{1,%d} " % level, line):
            break
        if not inside:
            continue
        if block is None and line.strip().startswith("```bash"):
            block = []
        elif block is not None and line.strip().startswith("```"):
            out.append(block)
            block = None
        elif block is not None:
            block.append(line)
    return out


def commands(block):
    """Shell commands of a block: continuation lines joined, blank lines and comments dropped."""
    out, current = [], ""
    for line in block:
        if current:
            current += "\n" + line
        else:
            if not line.strip() or line.strip().startswith("#"):
                continue
            current = line
        if not line.rstrip().endswith("\\"):
            out.append(current)
            current = ""
    if current:
        out.append(current)
    return out


def fill(command):
    command = command.replace("<you>", ACTOR)
    if "<tok>" in command:
        for actor, token in TOKENS.items():
            command = command.replace('"%s":"<tok>"' % actor, '"%s":"%s"' % (actor, token))
    return command


class Shell:
    """One bash process; each command's exit status comes back after a marker line."""

    def __init__(self, cwd, env):
        self.proc = subprocess.Popen(["bash", "--noprofile", "--norc"], cwd=cwd, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.servers = []
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def run(self, command, timeout=300):
        marker = "__quickstart_rc__"
        # A newline first: a command's output need not end with one (curl's does not).
        self.proc.stdin.write(command + "\n__rc=$?; echo; echo %s$__rc\n" % marker)
        self.proc.stdin.flush()
        output = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if line is None:
                raise Failure("the shell exited during: %s" % command)
            if line.startswith(marker):
                return int(line[len(marker):].strip()), "".join(output)
            output.append(line)
        raise Failure("no answer in %d s: %s\n%s" % (timeout, command, "".join(output)))

    def start_server(self, command, log):
        # Backgrounded, as the README says to; the PID is kept to stop it at the end.
        # On lines of their own: a trailing comment on the command ends at its newline.
        rc, out = self.run("(\n%s\n) >%s 2>&1 &\necho $! >%s.pid" % (command, log, log))
        if rc != 0:
            raise Failure("could not start: %s\n%s" % (command, out))
        for _ in range(600):
            text = ""
            if os.path.exists(log):
                with open(log) as f:
                    text = f.read()
            if "listening on http://" in text:
                return
            rc, _ = self.run("kill -0 $(cat %s.pid) 2>/dev/null" % log)
            if rc != 0:
                raise Failure("the server exited: %s\n%s" % (command, text))
            time.sleep(0.1)
        raise Failure("the server did not listen within 60 s: %s" % command)

    def stop_servers(self, folder):
        self.run("for f in %s/*.pid; do [ -f \"$f\" ] && kill $(cat \"$f\") 2>/dev/null; done; "
                 "wait 2>/dev/null; true" % folder)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def http(method, url, token=None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def s3_curl(method, path, query=""):
    endpoint = os.environ["AWS_ENDPOINT_URL"].rstrip("/")
    p = subprocess.run(["curl", "-s", "-X", method,
                        "--aws-sigv4", "aws:amz:%s:s3" % os.environ.get("AWS_REGION", "us-east-1"),
                        "--user", "%s:%s" % (os.environ["AWS_ACCESS_KEY_ID"],
                                             os.environ["AWS_SECRET_ACCESS_KEY"]),
                        "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
                        endpoint + path + query], capture_output=True, text=True, check=False)
    return p.stdout


def clear_s3_prefix(bucket, prefix):
    """Deletes what an earlier run left under s3://bucket/prefix (the README's fixed root)."""
    for _ in range(100):
        listing = s3_curl("GET", "/" + bucket,
                          "?list-type=2&prefix=" + urllib.parse.quote(prefix, safe=""))
        keys = re.findall(r"<Key>([^<]+)</Key>", listing)
        if not keys:
            return
        for key in keys:
            s3_curl("DELETE", "/%s/%s" % (bucket, key))


def prepare_s3(folder, name):
    """The .env.omni.example the README copies, for the S3 test server, and its bucket."""
    endpoint = os.environ.get("AWS_ENDPOINT_URL")
    if not endpoint or not os.environ.get("AWS_ACCESS_KEY_ID"):
        return False
    with open(os.path.join(folder, name, ".env.omni.example"), "w") as f:
        f.write("AWS_ACCESS_KEY_ID=%s\nAWS_SECRET_ACCESS_KEY=%s\nAWS_REGION=%s\n"
                "AWS_ENDPOINT_URL=%s\nAWS_ALLOW_HTTP=true\nAWS_S3_FORCE_PATH_STYLE=true\n"
                % (os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"],
                   os.environ.get("AWS_REGION", "us-east-1"), endpoint))
    s3_curl("PUT", "/omnigraph-local")
    clear_s3_prefix("omnigraph-local", "repos/%s/" % name)
    return True


def asks_consent(words):
    """Whether the CLI asks before it runs this command: a destructive write (an overwrite load,
    cleanup, branch delete) to a target that is not a local path, without --yes."""
    if not words or words[0] != "omnigraph" or "--yes" in words:
        return False
    destructive = ("load" in words and "overwrite" in words) or "cleanup" in words or (
        "branch" in words and "delete" in words)
    return destructive and any("://" in w and not w.startswith("file://") for w in words)


def run_block(shell, block, folder, label):
    for command in commands(block):
        command = fill(command)
        words = command.split()
        if "omnigraph-server" in words[:3] or any(w.endswith("omnigraph-server") for w in words[:3]):
            shell.start_server(command, os.path.join(folder, "%s-server-%d.log"
                                                     % (label, len(shell.servers))))
            shell.servers.append(command)
            print("ok (started): %s" % command.splitlines()[0])
            continue
        if asks_consent(words):
            # The reader is asked at the terminal and answers yes (see the module's comment).
            rc, out = shell.run("printf 'yes\\n' | script -qec %s /dev/null" % shlex.quote(command))
            if rc == 0 and "is destructive and its target is not local" not in out:
                raise Failure("no consent was asked for: %s\n%s" % (command, out))
        else:
            rc, out = shell.run(command)
        if rc != 0:
            raise Failure("exit %d: %s\n%s" % (rc, command, out))
        print("ok: %s" % command.splitlines()[0])
        if words[0] == "curl":
            check_curl_rows(command, out)


def check_curl_rows(command, out):
    try:
        body = json.loads(out)
    except ValueError:
        raise Failure("curl printed no JSON: %s\n%s" % (command, out))
    if not body.get("rows"):
        raise Failure("a stored query answered no rows: %s\n%s" % (command, out))


def policy_checks(base):
    checks = [
        ("GET /graphs as admin", http("GET", base + "/graphs", TOKENS["act-admin"]), 200),
        ("GET /graphs as reader", http("GET", base + "/graphs", TOKENS["act-reader"]), 403),
        ("GET /graphs anonymous", http("GET", base + "/graphs"), 401),
        ("stored read as reader",
         http("POST", base + "/graphs/spike/queries/recent_signals", TOKENS["act-reader"],
              {"params": {}}), 200),
    ]
    mutation = {"params": {"slug": "sig-quickstart", "name": "Quick start", "brief": "b",
                           "stagingTimestamp": "2026-01-01T00:00:00Z",
                           "createdAt": "2026-01-01T00:00:00Z",
                           "updatedAt": "2026-01-01T00:00:00Z"}}
    checks.append(("stored mutation as reader",
                   http("POST", base + "/graphs/spike/queries/add_signal", TOKENS["act-reader"],
                        mutation), 403))
    checks.append(("stored mutation as analyst",
                   http("POST", base + "/graphs/spike/queries/add_signal", TOKENS["act-analyst"],
                        mutation), 200))
    for what, (status, body), expected in checks:
        if status != expected:
            raise Failure("%s: %d, the README says %d: %s" % (what, status, expected, body[:300]))
        print("ok: %s -> %d" % (what, status))


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    bin_dir, cookbooks, name = sys.argv[1], sys.argv[2], sys.argv[3]
    policy = "--policy-block" in sys.argv[4:]
    folder = tempfile.mkdtemp(prefix="omnigraph-quickstart-")
    env = dict(os.environ)
    env["PATH"] = os.path.abspath(bin_dir) + os.pathsep + env.get("PATH", "")
    env.pop("OMNIGRAPH_BEARER_TOKEN", None)
    shell = None
    try:
        shutil.copytree(os.path.join(cookbooks, name), os.path.join(folder, name))
        with open(os.path.join(cookbooks, name, "README.md")) as f:
            readme = f.read()
        blocks = section_blocks(readme, "## Quick Start")
        if not blocks:
            raise Failure("%s/README.md has no shell block under '## Quick Start'" % name)
        if ".env.omni.example" in "\n".join(blocks[0]) and not prepare_s3(folder, name):
            print("skipped: the quick start needs S3 (AWS_ENDPOINT_URL and keys, "
                  "scripts/servers.sh)")
            return 77
        shell = Shell(folder, env)
        run_block(shell, blocks[0], folder, "quickstart")
        if policy:
            shell.stop_servers(folder)
            secured = section_blocks(readme, "### Serving with policy (drop `--unauthenticated`)")
            if not secured:
                raise Failure("no 'Serving with policy' block in %s/README.md" % name)
            run_block(shell, secured[0], folder, "policy")
            policy_checks("http://127.0.0.1:8080")
        print("quickstart %s: every command and check passed" % name)
        return 0
    except Failure as e:
        print("FAIL: %s" % e)
        for log in sorted(os.listdir(folder)):
            if log.endswith(".log"):
                with open(os.path.join(folder, log)) as f:
                    print("--- %s\n%s" % (log, f.read()[-2000:]))
        return 1
    finally:
        if shell:
            shell.stop_servers(folder)
            shell.close()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
