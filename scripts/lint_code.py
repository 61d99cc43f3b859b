#!/usr/bin/env python3
"""Structural lint for the C++ sources (run by scripts/lint.sh).

Three checks, each reported as `path:line: message`:

1. Layering. Every `#include "dir/..."` of a file under src/<layer>/ or include/omnigraph/ must name
   a layer that layer may use (docs/design/overview.md "Layers"): dependencies point only downward,
   the front ends (cli, server) see only the public API, and the public headers see nothing but
   themselves. Tests beside their code may also include the layer's test support. The one
   exception, LAYER_INCLUDE_EXCEPTIONS: base includes omnigraph/status_codes.h (the status code
   list), which must itself include nothing.
2. Function length. A function definition outside tests longer than FUNCTION_LINES_MAX lines
   (signature through closing brace) must be listed in scripts/long-functions.txt with its length.
   That list only shrinks: a listed function that grew past its recorded length is an error, one
   that shrank must have its number lowered, and an entry whose function is gone or now short
   enough is an error too, so the list is kept exact.
3. Banned calls. Time, randomness, threads and sleeping come from the Runtime (STYLE.md
   "Determinism"): direct calls are rejected in library code outside src/base and src/testing, and
   constructors of entropy and clocks also outside the storage backends (which take a Clock but
   fall back to the system's).
4. Seams (issue [30]). The front ends (src/cli, src/server) include only the public headers
   (include/omnigraph/) and their own folder: a relative include ("../"), a project folder in
   angle brackets, or a bare name that is not a file of their own folder is refused too (beyond
   check 1, which reads only "dir/..." includes). src/commit never includes table/ (check 1's
   table). And a record is published only through the write path: calls of the publish entry
   points (commit::RunPublishLoop, Stream::Publish, Stream::TryPublish, Stream::CreateRecord,
   commit::CreateMainStream) are refused outside the files PUBLISHERS lists, each with its reason;
   a listed file that calls none of them is an error too, so the list is kept exact.

Usage: scripts/lint_code.py [--fix] FILE... (paths relative to the repository root). --fix lowers
the allowlist's numbers to the lengths measured and removes its stale entries (it never raises a
number or adds an entry), then reports what is left.
"""
import os
import re
import sys

FUNCTION_LINES_MAX = 80
ALLOWLIST = os.environ.get(
    "OMNIGRAPH_LINT_ALLOWLIST",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "long-functions.txt"))

# What each layer may include (its own folder is always allowed). The table is the transitive
# closure of the "may use" column of docs/design/overview.md "Layers".
LAYERS = {
    "base": set(),
    "storage": {"base"},
    "commit": {"base", "storage"},
    "table": {"base", "storage"},
    "schema": {"base"},
    "query": {"base", "storage", "table", "schema"},
    "policy": {"base"},
    "engine": {"base", "storage", "commit", "table", "schema", "query", "policy", "omnigraph"},
    "cluster": {"base", "storage", "commit", "table", "schema", "query", "policy", "engine",
                "omnigraph"},
    "cli": {"omnigraph"},
    "server": {"omnigraph"},
    "testing": {"base", "storage", "commit", "table", "schema", "query", "policy", "engine"},
    "omnigraph": set(),  # include/omnigraph/: the public API stands alone
}
KNOWN_DIRS = set(LAYERS) | {"bench", "tests"}
# Public headers a layer below the API may include, each with its reason. The header must itself
# include nothing (checked), so the exception lets no other public header, and nothing of a
# higher layer, in behind it.
LAYER_INCLUDE_EXCEPTIONS = {
    # The one list of failure kinds and codes (decision 200): the engine's Status in base and the
    # public Status are both generated from it. Macros only, no includes.
    ("base", "omnigraph/status_codes.h"): "the status code list, shared by both Status types",
}

# Direct time/randomness/thread/sleep calls: banned outside src/base and src/testing.
BANNED_CALLS = re.compile(
    r"system_clock::now|steady_clock::now|high_resolution_clock::now|random_device"
    r"|(^|[^A-Za-z0-9_])s?rand\(|std::thread|std::jthread|std::async|sleep_for|sleep_until"
    r"|usleep\(|nanosleep\(")
# Entropy and clock sources: banned outside src/base, src/storage and src/testing.
BANNED_SOURCES = re.compile(
    r"SystemClock|std::mt19937|default_random_engine|minstd_rand|ranlux|gettimeofday"
    r"|clock_gettime|getrandom\(|/dev/u?random|(^|[^A-Za-z0-9_:.>])time\((nullptr|NULL|0)\)"
    r"|std::chrono::(system|steady|high_resolution)_clock")

# The publish entry points: each call creates (or drives the creation of) a commit record.
PUBLISH_CALL = re.compile(
    r"\b(RunPublishLoop|TryPublish|CreateRecord|CreateMainStream)\s*\("
    r"|(\.|->|::)\s*Publish\s*\(")
# The only files outside tests that may call them (docs/design/publish-loop.md), and why. An
# operation publishes through the write path; a new caller is added here only with its reason.
PUBLISHERS = {
    # The loop itself (RunPublishLoop, Stream::TryPublish, Stream::CreateRecord) and
    # Stream::Publish, the commit layer's writer over it; CreateMainStream writes the genesis.
    "src/commit/publish_loop.h": "declares the loop",
    "src/commit/publish_loop.cc": "the loop: Prepare, TryPublish",
    "src/commit/stream.h": "declares TryPublish, CreateRecord, CreateMainStream",
    "src/commit/publish.cc": "Stream::Publish over the loop; TryPublish's CreateRecord; genesis",
    "src/commit/branches.cc": "a branch delete's retire record, through Stream::Publish",
    # The engine's write path: a single write and a group-commit batch.
    "src/engine/write/write.cc": "the write path: WriteFrom (a single write)",
    "src/engine/write/write_batch.cc": "the write path: PublishMembers (a group-commit batch)",
    # Operations that configure the loop themselves, because what they stage is not rows of a
    # WriteRequest: a merge stages the three-way MergeTables and re-plans after a lost race; a
    # schema apply stages the archive and the rewritten tables (Stream::Publish, the defaults).
    "src/engine/ops/merge.cc": "engine::Merge: the loop's merge configuration",
    "src/engine/ops/schema_apply.cc": "engine::ApplySchema: Stream::Publish of a schema record",
    # Graph::Init creates the main stream (the genesis record: no loop, nothing races it).
    "src/engine/graph/graph.cc": "Graph::Init: CreateMainStream",
    # The simulator is a writer of its own over the commit layer (its scenarios publish and
    # create streams directly, as the commit layer's tests do).
    "src/testing/sim_scenarios.cc": "the simulator's commit-layer scenarios",
}
# A bare include a front end may take from outside its folder, and why.
FRONT_END_BARE_INCLUDES = {
    # server_policy_test shares the policy corpus (pure standard library, no OmniGraph header)
    # with policy_test and api_policy_test; src/policy is on that test's include path alone.
    ("src/server/server_policy_test.cc", "corpus_for_tests.h"),
    # cli_policy_corpus_test runs the same corpus through the omnigraph binary on a store.
    ("src/cli/cli_policy_corpus_test.cc", "corpus_for_tests.h"),
}
ANGLE_INCLUDE = re.compile(r'^\s*#\s*include\s+<([^>]+)>')
EXCEPTED_HEADERS = {header for _, header in LAYER_INCLUDE_EXCEPTIONS}

TEST_FILE = re.compile(r"(_test\.cc|_contract\.(h|cc)|test_util\.(h|cc)|test_streams\.h)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    if parts[0] == "include" and len(parts) > 2 and parts[1] == "omnigraph":
        return "omnigraph"
    return None


def strip_preprocessor(text):
    """Blanks preprocessor directives, with their continuation lines (macro bodies are not
    functions)."""
    lines = text.split("\n")
    in_directive = False
    for i, line in enumerate(lines):
        if in_directive or line.lstrip().startswith("#"):
            in_directive = line.rstrip().endswith("\\")
            lines[i] = ""
    return "\n".join(lines)


def strip_code(text):
    """Blanks comments, string and character literals, keeping newlines (so line numbers hold)."""
    text = strip_preprocessor(text)
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not text[i - 1].isalnum()):
            k = text.find("(", i + 2)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k + 1)
            j = n if j < 0 else j + len(delim)
            out.append('""' + "".join("\n" for ch in text[i:j] if ch == "\n"))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                out.append(c)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


HEAD_SCOPE = re.compile(r"^(template\s*<.*>\s*)?(namespace|extern\s+\"\"|extern)\b", re.S)
HEAD_TYPE = re.compile(r"^(template\s*<.*>\s*)?(class|struct|union|enum)\b", re.S)
NAME_BEFORE_PAREN = re.compile(r"(operator\s*(\(\)|[^\s(]+)|[~A-Za-z_][A-Za-z0-9_:<>~]*)\s*\($")


def functions(text):
    """Yields (name, first_line, last_line) of each function definition at namespace or class
    scope. Nested braces (blocks, lambdas, initialisers) belong to the enclosing function."""
    code = strip_code(text)
    stack = []  # kinds: "scope" (namespace / class / top), "function", "other"
    head_start = 0
    for m in re.finditer(r"[{};]", code):
        ch, pos = m.group(), m.start()
        in_function = any(k[0] in ("function", "other") for k in stack)
        if ch == ";":
            if not in_function:
                head_start = pos + 1
            continue
        if ch == "}":
            if not stack:
                continue
            kind = stack.pop()
            if kind[0] == "function" and not any(k[0] in ("function", "other") for k in stack):
                first = code.count("\n", 0, kind[2]) + 1
                last = code.count("\n", 0, pos) + 1
                yield kind[1], first, last
            if not any(k[0] in ("function", "other") for k in stack):
                head_start = pos + 1
            continue
        # "{"
        if in_function:
            stack.append(("other",))
            continue
        head = code[head_start:pos]
        stripped = head.strip()
        offset = head_start + (len(head) - len(head.lstrip()))
        # Drop preprocessor lines and access labels from the head.
        lines = [ln for ln in stripped.split("\n") if not ln.strip().startswith("#")]
        stripped = re.sub(r"^\s*(public|private|protected)\s*:", "", "\n".join(lines)).strip()
        if stripped:
            offset = head_start + head.find(stripped.split("\n")[0])
        if HEAD_SCOPE.match(stripped) or HEAD_TYPE.match(stripped) or "(" not in stripped:
            stack.append(("scope",))
            head_start = pos + 1
            continue
        before_paren = stripped.split("(")[0]
        if "=" in before_paren and "operator" not in before_paren:
            stack.append(("other",))  # an initialiser, e.g. `const auto kX = [](...) {`
            continue
        name = "?"
        depth = 0
        # The function's name is the identifier before the parenthesis that opens its parameters:
        # the first top-level '(' of the head.
        for idx, c in enumerate(stripped):
            if c == "<":
                depth += 1
            elif c == ">":
                depth = max(0, depth - 1)
            elif c == "(" and depth == 0:
                nm = NAME_BEFORE_PAREN.search(stripped[: idx + 1])
                if nm:
                    name = re.sub(r"\s+", "", nm.group(1))
                break
        stack.append(("function", name, offset))
    return


def read_allowlist(problems):
    """{path:function: (line of the entry, recorded length)}; a malformed entry is a problem."""
    entries = {}
    if not os.path.exists(ALLOWLIST):
        return entries
    with open(ALLOWLIST, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 2 or not fields[1].isdigit():
                problems.append(f"{os.path.relpath(ALLOWLIST)}:{lineno}: an entry is "
                                "'path:function LINES' (the function's length when listed)")
                continue
            entries[fields[0]] = (lineno, int(fields[1]))
    return entries


def front_end_includes(path, layer, text):
    """The includes of a front end (cli, server) that check 1 does not read: relative paths,
    project folders in angle brackets, and bare names not in its own folder."""
    problems = []
    folder = os.path.dirname(path)
    own = f"src/{layer}"
    for lineno, line in enumerate(text.split("\n"), 1):
        m = INCLUDE.match(line)
        angle = ANGLE_INCLUDE.match(line)
        if angle and angle.group(1).split("/")[0] in KNOWN_DIRS:
            problems.append(f"{path}:{lineno}: layer '{layer}' includes <{angle.group(1)}>; it "
                            "sees only \"omnigraph/...\" and its own folder, in quotes")
        if not m:
            continue
        name = m.group(1)
        if ".." in name.split("/"):
            resolved = os.path.normpath(os.path.join(folder, name))
            if not (resolved.startswith(own + "/") or resolved.startswith("include/omnigraph/")):
                problems.append(f"{path}:{lineno}: layer '{layer}' includes \"{name}\" "
                                f"(outside {own}/ and include/omnigraph/)")
            continue
        if "/" not in name and (path, name) not in FRONT_END_BARE_INCLUDES:
            if not os.path.exists(os.path.join(folder, name)):
                problems.append(f"{path}:{lineno}: layer '{layer}' includes \"{name}\", which is "
                                f"not a file of {folder}/ (it sees only \"omnigraph/...\" and "
                                "its own folder)")
    return problems


def fix_allowlist(measured, stale):
    """Rewrites the allowlist with each entry lowered to `measured` (path:function -> lines, the
    long functions found) and the `stale` entries (no longer long, or gone) removed. Never raises
    a number or adds an entry. Returns the lines changed, as messages."""
    changes = []
    with open(ALLOWLIST, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    for lineno, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        if len(fields) == 2 and fields[1].isdigit():
            key, recorded = fields[0], int(fields[1])
            if key in measured and measured[key] < recorded:
                out.append(line.replace(f"{key} {recorded}", f"{key} {measured[key]}", 1))
                changes.append(f"{os.path.relpath(ALLOWLIST)}:{lineno}: {key} lowered "
                               f"{recorded} -> {measured[key]}")
                continue
            if key in stale:
                changes.append(f"{os.path.relpath(ALLOWLIST)}:{lineno}: {key} removed (no longer "
                               f"over {FUNCTION_LINES_MAX} lines, or gone)")
                continue
        out.append(line)
    with open(ALLOWLIST, "w", encoding="utf-8") as f:
        f.write("\n".join(out))
    return changes


def main(paths, fix=False):
    problems = []
    allow = read_allowlist(problems)
    long_seen = set()
    measured = {}
    publishers_seen = set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            problems.append(f"{path}:1: cannot read as UTF-8 ({e})")
            continue
        layer = layer_of(path)
        is_test = bool(TEST_FILE.search(path))
        if layer in ("cli", "server"):
            problems += front_end_includes(path, layer, text)
        if path.startswith("include/") and path[len("include/"):] in EXCEPTED_HEADERS:
            for lineno, line in enumerate(text.split("\n"), 1):
                if INCLUDE.match(line) or ANGLE_INCLUDE.match(line):
                    problems.append(f"{path}:{lineno}: includes something, but a layer below the "
                                    "API includes this header (LAYER_INCLUDE_EXCEPTIONS in "
                                    "scripts/lint_code.py), so it must include nothing")
        if layer is not None:
            allowed = LAYERS.get(layer, set()) | {layer}
            for lineno, line in enumerate(text.split("\n"), 1):
                m = INCLUDE.match(line)
                if not m or "/" not in m.group(1):
                    continue
                top = m.group(1).split("/")[0]
                if top not in KNOWN_DIRS or top in allowed:
                    continue
                if is_test and layer not in ("omnigraph", "cli", "server") and top == "testing":
                    continue
                if (layer, m.group(1)) in LAYER_INCLUDE_EXCEPTIONS:
                    continue
                problems.append(f"{path}:{lineno}: layer '{layer}' may not include "
                                f"\"{m.group(1)}\" (it may use: {', '.join(sorted(allowed))})")
        if not path.startswith("src/") or is_test:
            continue
        code = strip_code(text)
        lines = code.split("\n")
        if not re.match(r"src/(base|testing)/", path):
            for lineno, line in enumerate(lines, 1):
                if BANNED_CALLS.search(line):
                    problems.append(f"{path}:{lineno}: direct time/randomness/thread/sleep call "
                                    "(use the Runtime's Clock, Random and Executor)")
        if not re.match(r"src/(base|storage|testing)/", path):
            for lineno, line in enumerate(lines, 1):
                if BANNED_SOURCES.search(line):
                    problems.append(f"{path}:{lineno}: a clock or entropy source outside base, "
                                    "the storage backends and testing (take it from the Runtime)")
        for lineno, line in enumerate(lines, 1):
            m = PUBLISH_CALL.search(line)
            if m and path in PUBLISHERS:
                publishers_seen.add(path)
            elif m:
                problems.append(f"{path}:{lineno}: calls a publish entry point "
                                f"({m.group(0).strip('(').strip()}) outside the write path; "
                                "publish through engine::Write (scripts/lint_code.py "
                                "PUBLISHERS lists the files that may, and why)")
        for name, first, last in functions(text):
            count = last - first + 1
            if count <= FUNCTION_LINES_MAX:
                continue
            key = f"{path}:{name}"
            long_seen.add(key)
            measured[key] = count
            if key not in allow:
                problems.append(f"{path}:{first}: function {name} is {count} lines (over "
                                f"{FUNCTION_LINES_MAX}); split it, or list it in "
                                "scripts/long-functions.txt only if it cannot be split")
                continue
            entry, recorded = allow[key]
            if count > recorded:
                problems.append(f"{path}:{first}: function {name} grew to {count} lines; "
                                f"scripts/long-functions.txt:{entry} allows {recorded} and only "
                                "shrinks (split the function)")
            elif count < recorded:
                problems.append(f"{os.path.relpath(ALLOWLIST)}:{entry}: {key} is {count} lines "
                                f"now, not {recorded}; lower the entry to {count}")
    checked = set(paths)
    stale = set()
    for key, (lineno, _) in sorted(allow.items(), key=lambda kv: kv[1]):
        file = key.rsplit(":", 1)[0]
        if (file in checked or not os.path.exists(file)) and key not in long_seen:
            stale.add(key)
            problems.append(f"{os.path.relpath(ALLOWLIST)}:{lineno}: {key} is no longer over "
                            f"{FUNCTION_LINES_MAX} lines (or is gone); remove the entry")
    for path in sorted(set(PUBLISHERS) & checked - publishers_seen):
        problems.append(f"{path}:1: listed in PUBLISHERS (scripts/lint_code.py) but calls no "
                        "publish entry point; remove the entry")
    if fix and os.path.exists(ALLOWLIST):
        changes = fix_allowlist(measured, stale)
        for c in changes:
            print(c)
        if changes:  # Check again against the rewritten list.
            return main(paths, fix=False)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    fix = "--fix" in args
    sys.exit(main([a for a in args if a != "--fix"], fix=fix))
