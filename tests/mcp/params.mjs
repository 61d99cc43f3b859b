// Parameter values for a cookbook's stored queries (tests/mcp/sdk_client.mjs), derived from the
// cookbook's schema, the query's source and the seed the graph was loaded with:
//
// - a read's parameter gets an ordered list of candidates, from how the query uses it:
//     `$x: T { prop: $p }`        the seed's values of T.prop; when prop is T's key, the nodes that
//                                 take part in most seed edges of the types the query traverses
//                                 come first (they are the ones a traversal returns rows for);
//     `f($x.prop, $p)`            (search, fuzzy, bm25, nearest, ...): the words of the seed's
//                                 T.prop texts (an @embed vector: its source text), most common first;
//     `$x.prop OP $p`             the seed's values of T.prop, sorted, the median first, then outward;
//   the caller calls the query with candidate 0, 1, ... until one returns rows (at most `tries`).
//   A parameter the seed gives no candidate for is an error naming the query and the parameter.
// - a mutation's parameter gets one value, from the insert it feeds: `T { key: $p }` a fresh key
//   (`mcp-<query>`), an enum property the seed's first value of it (else the first member), an
//   edge's `from`/`to` the keys of seed nodes of the edge's endpoint types (a pair the seed does not
//   link by that edge yet, within the edge's @card and @unique limits), any other property a value
//   of the parameter's declared kind.

export function parseSchema(text) {
  const types = {};
  const re = /^(node|edge)\s+(\w+)(?:\s*:\s*(\w+)\s*->\s*(\w+))?([^{\n]*)(?:\{([^}]*)\})?/gm;
  for (const m of text.replace(/\/\/[^\n]*/g, '').matchAll(re)) {
    const props = {};
    const body = m[6] ?? '';
    for (const line of body.split('\n')) {
      const p = line.match(/^\s*(\w+)\s*:\s*(.+?)\s*$/);
      if (!p) continue;
      const decl = p[2];
      props[p[1]] = {
        base: decl.match(/^\[?(\w+)/)[1],
        key: /@key\b/.test(decl),
        members: decl.match(/enum\(([^)]*)\)/)?.[1].split(',').map((s) => s.trim()),
        embedFrom: decl.match(/@embed\("(\w+)"/)?.[1],
      };
    }
    // An edge's limits per endpoint: `@card(min..max)` bounds a source's edges, `@unique(src)` or
    // `@unique(dst)` allows one per source or destination.
    const card = m[5].match(/@card\(\s*\d*\s*\.\.\s*(\d*)\s*\)/);
    const maxOut = card && card[1] !== '' ? Number(card[1]) : Infinity;
    const unique = (end) => new RegExp(`@unique\\(\\s*${end}\\s*\\)`).test(body);
    types[m[2]] = {
      edge: m[1] === 'edge',
      from: m[3],
      to: m[4],
      props,
      maxOut: unique('src') ? 1 : maxOut,
      maxIn: unique('dst') ? 1 : Infinity,
    };
  }
  return types;
}

// {name: body} for every `query name(...) { body }` of the given .gq texts.
export function parseQueries(texts) {
  const out = {};
  for (const text of texts) {
    const src = text.replace(/\/\/[^\n]*/g, '');
    for (const m of src.matchAll(/\bquery\s+(\w+)\s*\(/g)) {
      let i = src.indexOf('{', m.index);
      const start = i;
      for (let depth = 0; i < src.length; i += 1) {
        if (src[i] === '{') depth += 1;
        if (src[i] === '}' && --depth === 0) break;
      }
      out[m[1]] = src.slice(start + 1, i);
    }
  }
  return out;
}

export class Seed {
  constructor(types, lines) {
    this.types = types;
    this.rows = {}; // type or edge name -> [data]
    this.edges = {}; // edge name -> [{from, to}]
    for (const l of lines) {
      const name = l.type ?? l.edge;
      (this.rows[name] ??= []).push(l.data ?? {});
      if (l.edge) (this.edges[l.edge] ??= []).push({ from: l.from, to: l.to });
    }
  }

  keyOf(type) {
    return Object.entries(this.types[type]?.props ?? {}).find(([, p]) => p.key)?.[0];
  }

  // The distinct non-null values of type.prop in seed order (list members flattened).
  values(type, prop) {
    const seen = new Set();
    const out = [];
    for (const row of this.rows[type] ?? []) {
      for (const v of [row[prop]].flat()) {
        const k = JSON.stringify(v);
        if (v === null || v === undefined || seen.has(k)) continue;
        seen.add(k);
        out.push(v);
      }
    }
    return out;
  }
}

const lowerFirst = (s) => s[0].toLowerCase() + s.slice(1);
const escape = (s) => s.replace(/[$]/g, '\\$');

// Variables bound to a type in a query body, `$x: T` or an end of a traversal: {var: type}.
function bindings(body, types) {
  const out = {};
  const byVerb = Object.fromEntries(Object.keys(types).map((t) => [lowerFirst(t), types[t]]));
  for (const m of body.matchAll(/\$(\w+)\s+(\w+)\s+\$(\w+)/g)) {
    const e = byVerb[m[2]];
    if (e?.edge) [out[m[1]], out[m[3]]] = [e.from, e.to];
  }
  for (const m of body.matchAll(/\$(\w+)\s*:\s*(\w+)/g)) out[m[1]] = m[2];
  return out;
}

// The edge types a query body traverses (`$a edgeName $b`).
function traversed(body, types) {
  const byVerb = Object.fromEntries(Object.keys(types).map((t) => [lowerFirst(t), t]));
  return [...body.matchAll(/\$\w+\s+(\w+)\s+\$\w+/g)].map((m) => byVerb[m[1]]).filter(Boolean);
}

// Whether a seed value can be passed as a parameter of this kind.
export function fits(p, v) {
  switch (p.kind) {
    case 'string':
    case 'date':
    case 'datetime':
    case 'blob':
      return typeof v === 'string';
    case 'bool':
      return typeof v === 'boolean';
    case 'int':
    case 'float':
      return typeof v === 'number';
    case 'bigint':
      return typeof v === 'number' || typeof v === 'string';
    case 'list':
      return Array.isArray(v) && v.every((x) => fits({ kind: p.item_kind }, x));
    default:
      return false;
  }
}

// Candidates for a read's parameter, or null when the query uses it in no way this knows.
export function readCandidates(seed, body, param) {
  const vars = bindings(body, seed.types);
  const p = escape(`$${param}`);
  // `$x: T { ..., prop: $param, ... }`
  for (const m of body.matchAll(/\$(\w+)\s*:\s*(\w+)\s*\{([^}]*)\}/g)) {
    const hit = m[3].match(new RegExp(`(\\w+)\\s*:\\s*${p}\\b`));
    if (!hit) continue;
    const [type, prop] = [m[2], hit[1]];
    const values = seed.values(type, prop);
    if (prop !== seed.keyOf(type)) return values;
    const via = new Set(traversed(body, seed.types));
    const degree = new Map(values.map((v) => [v, 0]));
    for (const e of via) {
      for (const { from, to } of seed.edges[e] ?? []) {
        for (const k of [from, to]) if (degree.has(k)) degree.set(k, degree.get(k) + 1);
      }
    }
    return [...values].sort((a, b) => degree.get(b) - degree.get(a));
  }
  // `f($x.prop, $param)`: the words of the texts searched
  const fn = body.match(new RegExp(`\\w+\\(\\s*\\$(\\w+)\\.(\\w+)\\s*,\\s*${p}\\s*\\)`));
  if (fn) {
    const type = vars[fn[1]];
    const prop = seed.types[type]?.props[fn[2]]?.embedFrom ?? fn[2];
    const count = new Map();
    for (const text of seed.values(type, prop)) {
      for (const w of new Set(String(text).toLowerCase().match(/[a-z][a-z0-9]{3,}/g) ?? [])) {
        count.set(w, (count.get(w) ?? 0) + 1);
      }
    }
    return [...count.keys()].sort((a, b) => count.get(b) - count.get(a));
  }
  // `$x.prop OP $param` or `$param OP $x.prop`
  const cmp =
    body.match(new RegExp(`\\$(\\w+)\\.(\\w+)\\s*(?:>=|<=|!=|=|>|<)\\s*${p}\\b`)) ??
    body.match(new RegExp(`${p}\\s*(?:>=|<=|!=|=|>|<)\\s*\\$(\\w+)\\.(\\w+)`));
  if (cmp) {
    const sorted = seed.values(vars[cmp[1]], cmp[2]).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const mid = Math.floor(sorted.length / 2);
    const out = [];
    for (let d = 0; out.length < sorted.length; d += 1) {
      if (mid - d >= 0) out.push(sorted[mid - d]);
      if (d > 0 && mid + d < sorted.length) out.push(sorted[mid + d]);
    }
    return out;
  }
  return null;
}

// A value of a declared parameter kind, for a property the seed says nothing about.
function valueOfKind(kind, text, p = {}) {
  switch (kind) {
    case 'list':
      return [valueOfKind(p.item_kind, text)];
    case 'vector':
      return new Array(p.vector_dim).fill(0.5);
    case 'string':
    case 'blob':
      return text;
    case 'bool':
      return true;
    case 'int':
      return 7;
    case 'bigint':
      return '7';
    case 'float':
      return 0.5;
    case 'date':
      return '2026-06-01';
    case 'datetime':
      return '2026-06-01T12:00:00Z';
    default:
      return undefined;
  }
}

// One value per parameter of a stored mutation (`q` a catalog entry), or an error string.
export function mutationParams(seed, body, q) {
  const ins = body.match(/\binsert\s+(\w+)\s*\{([^}]*)\}/);
  if (!ins) return `${q.name}: no insert to take its parameters from`;
  const [type, fields] = [ins[1], ins[2]];
  const decl = seed.types[type];
  if (!decl) return `${q.name}: inserts ${type}, which the schema does not declare`;
  const propOf = {};
  for (const m of fields.matchAll(/(\w+)\s*:\s*\$(\w+)/g)) propOf[m[2]] = m[1];
  const params = {};
  if (decl.edge) {
    const existing = seed.edges[type] ?? [];
    const linked = new Set(existing.map((e) => `${e.from}\n${e.to}`));
    const count = (end, k) => existing.filter((e) => e[end] === k).length;
    const froms = seed.values(decl.from, seed.keyOf(decl.from)).filter((k) => count('from', k) < decl.maxOut);
    const tos = seed.values(decl.to, seed.keyOf(decl.to)).filter((k) => count('to', k) < decl.maxIn);
    const pair = froms
      .flatMap((f) => tos.map((t) => [f, t]))
      .find(([f, t]) => f !== t && !linked.has(`${f}\n${t}`));
    if (!pair) return `${q.name}: no pair of seed nodes ${decl.from} -> ${decl.to} to link`;
    for (const [param, prop] of Object.entries(propOf)) {
      if (prop === 'from') params[param] = pair[0];
      if (prop === 'to') params[param] = pair[1];
    }
  }
  for (const p of q.params) {
    if (p.name in params) continue;
    const prop = propOf[p.name];
    const pd = decl.props[prop];
    let v;
    if (pd?.key) v = `mcp-${q.name}`;
    else if (pd?.members) v = seed.values(type, prop)[0] ?? pd.members[0];
    else v = valueOfKind(p.kind, `MCP ${q.name} ${p.name}`, p);
    if (v === undefined) return `${q.name}: no value for parameter ${p.name} (kind ${p.kind})`;
    params[p.name] = v;
  }
  return params;
}
