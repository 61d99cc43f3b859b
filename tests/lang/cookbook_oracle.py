#!/usr/bin/env python3
"""Writes tests/lang/cookbook_<name>.qtest: golden results for cookbook read queries, computed by
an independent evaluator over seed.jsonl (not by the C++ executor), each case citing the seed
lines that justify its rows.

The evaluator understands the simple shape most cookbook reads have: one or two bindings
(`$v: Type` with `{prop: $param | "literal"}` equality/membership filters), at most one
single-hop traversal `$a edge $b` (set semantics), a return of `$v.prop` columns, an optional
one-key order and a limit. Queries of any other shape are skipped. Parameters: for each query,
the first seed entity (in seed order) whose key value yields a non-empty result.

Usage: python3 tests/lang/cookbook_oracle.py [cookbooks-dir]   (rewrites the .qtest files)
"""
import datetime
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(cookbook_dir):
    nodes, edges = {}, []  # nodes: id -> (line, type, data)
    with open(os.path.join(cookbook_dir, "seed.jsonl")) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            o = json.loads(line)
            if "type" in o:
                data = o.get("data", {})
                nodes[data["id"]] = (n, o["type"], data)
            else:
                edges.append((n, o["edge"].lower(), o["from"], o["to"]))
    return nodes, edges


def prop_types(schema_text):
    """type name -> {prop: scalar kind} (only what formatting needs)."""
    out, current = {}, None
    for line in schema_text.splitlines():
        m = re.match(r"\s*(node|edge)\s+(\w+)", line)
        if m:
            current = m.group(2)
            out[current] = {}
            continue
        m = re.match(r"\s*(\w+)\s*:\s*(\[?)(\w+)", line)
        if m and current:
            out[current][m.group(1)] = ("list:" if m.group(2) else "") + m.group(3)
    return out


def fmt(value, kind):
    if value is None:
        return None
    if kind == "DateTime":
        s = value.replace("Z", "+00:00")
        dt = datetime.datetime.fromisoformat(s).astimezone(datetime.timezone.utc)
        return dt.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (dt.microsecond // 1000)
    return value


QUERY_RE = re.compile(r"^query\s+(\w+)\s*\(([^)]*)\)\s*\{", re.M)


def split_queries(text):
    starts = [m for m in QUERY_RE.finditer(text)]
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        yield m.group(1), m.group(2), text[m.start():end]


def parse(body):
    """The simple shape, or None."""
    m = re.search(r"match\s*\{(.*?)\}\s*return\s*\{(.*?)\}(.*)", body, re.S)
    if not m:
        return None
    match, ret, tail = m.group(1), m.group(2), m.group(3)
    # Drop `{...}` filter bodies from bindings first.
    binds, travs = [], []
    for line in [l.strip() for l in re.split(r"\n", match) if l.strip() and not l.strip().startswith("//")]:
        b = re.fullmatch(r"\$(\w+)\s*:\s*(\w+)(?:\s*\{\s*(\w+)\s*:\s*(\$\w+|\"[^\"]*\")\s*\})?", line)
        t = re.fullmatch(r"\$(\w+)\s+([a-z]\w*)\s+\$(\w+)", line)
        if b:
            binds.append((b.group(1), b.group(2), b.group(3), b.group(4)))
        elif t and t.group(2) != "not":
            travs.append((t.group(1), t.group(2).lower(), t.group(3)))
        else:
            return None
    if len(travs) > 1:
        return None
    cols = [c.strip() for c in ret.split(",") if c.strip()]
    ret_cols = []
    for c in cols:
        cm = re.fullmatch(r"\$(\w+)\.(\w+)", c)
        if not cm:
            return None
        ret_cols.append((cm.group(1), cm.group(2)))
    order = []
    om = re.search(r"order\s*\{(.*?)\}", tail, re.S)
    if om:
        for o in om.group(1).split(","):
            km = re.fullmatch(r"\$(\w+)\.(\w+)(\s+(asc|desc))?", o.strip())
            if not km:
                return None
            order.append((km.group(1), km.group(2), km.group(4) == "desc"))
    if len(order) > 1:
        return None
    lm = re.search(r"limit\s+(\d+)", tail)
    if re.search(r"\b(nearest|bm25|rrf|search|fuzzy|match_text)\s*\(", body):
        return None
    return binds, travs, ret_cols, order, int(lm.group(1)) if lm else None


def evaluate(shape, params, nodes, edges, types):
    binds, travs, ret_cols, order, limit = shape
    var_type = {}
    cond = {}
    for var, typ, prop, val in binds:
        var_type[var] = typ
        if prop:
            v = params[val[1:]] if val.startswith("$") else json.loads(val)
            cond.setdefault(var, []).append((prop, v))

    def ok(var, nid):
        _, typ, data = nodes[nid]
        if typ != var_type.get(var, typ):
            return False
        for prop, v in cond.get(var, []):
            x = data.get(prop)
            if x is None:
                return False
            if isinstance(x, list):
                if v not in x:
                    return False
            elif x != v:
                return False
        return True

    rows = []  # (bindings dict, cited lines)
    if travs:
        a, e, b = travs[0]
        pairs = {}
        for n, edge, src, dst in edges:
            if edge != e or src not in nodes or dst not in nodes:
                continue
            if ok(a, src) and ok(b, dst):
                pairs.setdefault((src, dst), []).append(n)
        for (src, dst), lines in pairs.items():
            rows.append(({a: src, b: dst}, sorted(lines + [nodes[src][0], nodes[dst][0]])))
    else:
        (var, typ, _, _), = binds
        for nid, (n, t, _) in nodes.items():
            if t == typ and ok(var, nid):
                rows.append(({var: nid}, [n]))
    tie_vars = sorted(rows[0][0].keys()) if rows else []

    def tie_key(r):
        return [r[0][v].encode() for v in tie_vars]

    rows.sort(key=tie_key)
    for var, prop, desc in reversed(order):
        present = [r for r in rows if nodes[r[0][var]][2].get(prop) is not None]
        absent = [r for r in rows if nodes[r[0][var]][2].get(prop) is None]
        present.sort(key=lambda r: sort_value(nodes[r[0][var]][2][prop], types, var_type.get(var), prop), reverse=desc)
        if desc:
            # Stable sort reversed would reverse ties; re-sort ties by id ascending.
            present = stable_desc(present, lambda r: sort_value(nodes[r[0][var]][2][prop], types, var_type.get(var), prop), tie_key)
        rows = (absent + present) if not desc else (present + absent)
    if limit is not None:
        rows = rows[:limit]
    out, lines = [], set()
    for binding, cited in rows:
        obj = {}
        for var, prop in ret_cols:
            nid = binding[var]
            typ = nodes[nid][1]
            obj[var + "." + prop] = fmt(nodes[nid][2].get(prop), types.get(typ, {}).get(prop))
        out.append(obj)
        lines.update(cited)
    return out, sorted(lines)


def sort_value(v, types, typ, prop):
    kind = types.get(typ, {}).get(prop)
    if kind == "DateTime":
        return fmt(v, kind)
    if isinstance(v, str):
        return v.encode()
    return v


def stable_desc(rows, key, tie):
    return sorted(rows, key=lambda r: (Neg(key(r)), tie(r)))


class Neg:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v > other.v

    def __eq__(self, other):
        return self.v == other.v


def candidate_params(pdecl, shape, nodes):
    names = [p.split(":")[0].strip().lstrip("$") for p in pdecl.split(",") if p.strip()]
    if not names:
        yield {}
        return
    if len(names) != 1:
        return
    binds = shape[0]
    for var, typ, prop, val in binds:
        if val == "$" + names[0]:
            seen = set()
            for nid, (n, t, data) in sorted(nodes.items(), key=lambda kv: kv[1][0]):
                if t != typ or data.get(prop) is None:
                    continue
                vals = data[prop] if isinstance(data[prop], list) else [data[prop]]
                for v in vals:
                    if v not in seen:
                        seen.add(v)
                        yield {names[0]: v}


def ranges(lines):
    out, start, prev = [], None, None
    for n in lines:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return ", ".join(out)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "..", "shared", "fixtures", "cookbooks")
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        if not os.path.exists(os.path.join(d, "schema.pg")):
            continue
        nodes, edges = load(d)
        types = prop_types(open(os.path.join(d, "schema.pg")).read())
        out = ["# Generated by tests/lang/cookbook_oracle.py from ../shared/fixtures/cookbooks/%s:" % name,
               "# read queries of the simple shape, evaluated independently of the executor over",
               "# seed.jsonl; each case cites the seed lines its rows come from. Do not edit by hand.",
               "=== schema %s cookbook=%s" % (name, name),
               "=== seed %s cookbook=%s" % (name, name), ""]
        count = 0
        for qfile in sorted(os.listdir(os.path.join(d, "queries"))):
            text = open(os.path.join(d, "queries", qfile)).read()
            for qname, pdecl, body in split_queries(text):
                shape = parse(body)
                if shape is None:
                    continue
                for params in candidate_params(pdecl, shape, nodes):
                    rows, lines = evaluate(shape, params, nodes, edges, types)
                    if not rows:
                        continue
                    out.append("=== case %s" % qname)
                    out.append("# seed lines %s" % ranges(lines))
                    out.append("--- query file=%s/queries/%s" % (name, qfile))
                    out.append("--- run %s" % qname)
                    out.append("--- params")
                    out.append(json.dumps(params))
                    out.append("--- rows")
                    out.append(json.dumps(rows, ensure_ascii=False))
                    out.append("")
                    count += 1
                    break
        path = os.path.join(HERE, "cookbook_%s.qtest" % name.replace("-", "_"))
        with open(path, "w") as f:
            f.write("\n".join(out))
        print("%s: %d cases -> %s" % (name, count, os.path.relpath(path)))


if __name__ == "__main__":
    main()
