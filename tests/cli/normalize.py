#!/usr/bin/env python3
"""Makes the omnigraph command's output from two runs comparable (tests/cli/remote.sh, differential.sh).

Two runs of the same commands differ where the graph chose at random or by the clock: commit ids
(and their short forms) are numbered in order of first appearance, as are edge ULIDs, page tokens
and change cursors (they carry a commit id under a MAC), and times
and staged version numbers are blanked. Each caller first applies its own literal replacements
(one graph's path for another's, a server's echo for the direct one).

As a program:  normalize.py FILE [--replace OLD NEW]...   rewrites FILE in place; the
replacements apply in order, before the rest.
"""
import re
import sys

_CROCKFORD = "[0-9A-HJKMNP-TV-Z]"
_COMMIT_ID = re.compile(r"\b([A-Za-z0-9_-]+\.[0-9]+\.)?(" + _CROCKFORD + r"{10})\b")
_ULID = re.compile(r"\b" + _CROCKFORD + r"{26}\b")
# A page token or change cursor: a version, the hex of its JSON (which names a commit), a MAC.
_TOKEN = re.compile(r"\b([pc][0-9]+)\.[A-Za-z0-9_=-]+\.[0-9a-f]{16}\b")
# One an error message cut short ("page token 'p1.7b22...' is of commit ...").
_CUT_TOKEN = re.compile(r"\b([pc][0-9]+)\.[A-Za-z0-9_=-]+\.\.\.")


class Normalizer:
    """Numbers ids across every text it is given, so one transcript keeps one numbering."""

    def __init__(self):
        self.ids = {}
        self.ulids = {}
        self.tokens = {}

    def __call__(self, text, replacements=()):
        for old, new in replacements:
            text = text.replace(old, new)
        text = _TOKEN.sub(lambda m: "<%s token %d>" % (
            m.group(1), self.tokens.setdefault(m.group(0), len(self.tokens))), text)
        text = _CUT_TOKEN.sub(r"<\1 token, cut>", text)
        text = _COMMIT_ID.sub(
            lambda m: "<commit %d>" % self.ids.setdefault(m.group(2), len(self.ids)), text)
        text = _ULID.sub(
            lambda m: "<ulid %d>" % self.ulids.setdefault(m.group(0), len(self.ulids)), text)
        text = re.sub(r'"(created_at|authored_at)": ?[0-9]+', r'"\1": 0', text)
        text = re.sub(r"/versions/d[0-9]+\.json", "/versions/d<staged>.json", text)
        text = re.sub(r"[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}", "<time>", text)
        return text


def main(argv):
    path, rest = argv[0], argv[1:]
    replacements = []
    while rest:
        if rest[0] != "--replace" or len(rest) < 3:
            sys.exit("usage: normalize.py FILE [--replace OLD NEW]...")
        replacements.append((rest[1], rest[2]))
        rest = rest[3:]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(Normalizer()(text, replacements))


if __name__ == "__main__":
    main(sys.argv[1:])
