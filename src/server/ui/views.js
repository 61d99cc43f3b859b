// Rendering: DOM nodes built with textContent only (no markup from data), so whatever a graph
// holds is shown as text.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

// "3 min ago", "2 h ago", "5 d ago" from Unix microseconds.
export function age(micros) {
  const s = Math.max(0, Math.round(Date.now() / 1000 - micros / 1e6));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export function value(v) {
  if (v === undefined || v === null) return '–';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

const OPS = { insert: ['+', 'added'], update: ['~', 'changed'], delete: ['−', 'removed'] };

// One change of a diff as a card: a node's properties (before and after side by side for an
// update, the changed ones marked), an edge as "A —Type→ B".
export function card(change) {
  const [sign, word] = OPS[change.op];
  const typeName = change.type.name;
  const image = change.after || change.before;
  const title = change.kind === 'edge' && image.endpoints
    ? `${image.endpoints.from} —${typeName}→ ${image.endpoints.to}`
    : `${typeName} ${change.id}`;
  const li = el('li', {
    class: `card op-${change.op}`,
    'data-kind': change.kind, 'data-type': typeName, 'data-entity-id': change.id,
    'data-op': change.op,
  });
  li.append(el('h4', {},
    el('span', { class: 'sign', 'aria-hidden': 'true', text: sign }),
    el('span', { class: 'visually-hidden', text: `${word}: ` }),
    el('span', { class: 'kind', text: change.kind }), ' ', title));
  const before = (change.before && change.before.properties) || {};
  const after = (change.after && change.after.properties) || {};
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  if (names.length === 0) return li;
  const table = el('table', { class: 'props' });
  const head = el('tr', {}, el('th', { scope: 'col', text: 'property' }));
  if (change.before) head.append(el('th', { scope: 'col', text: 'before' }));
  if (change.after) head.append(el('th', { scope: 'col', text: 'after' }));
  table.append(el('thead', {}, head));
  const body = el('tbody');
  for (const name of names) {
    const changed = change.op === 'update' && JSON.stringify(before[name]) !== JSON.stringify(after[name]);
    const row = el('tr', { class: changed ? 'changed' : null, 'data-property': name },
      el('th', { scope: 'row' }, name, changed ? el('span', { class: 'visually-hidden', text: ' (changed)' }) : null));
    if (change.before) row.append(el('td', { class: 'before', text: value(before[name]) }));
    if (change.after) row.append(el('td', { class: 'after', text: value(after[name]) }));
    body.append(row);
  }
  table.append(body);
  li.append(table);
  return li;
}

// What each conflict kind means, for a person deciding what to do about it.
const EXPLAIN = {
  divergent_insert: 'Both branches added this entity with different values. Make them agree on one side, then merge again.',
  divergent_update: 'Both branches changed this entity, differently. Decide which values win and write them on one side.',
  delete_vs_update: 'One branch deleted this entity while the other changed it. Restore it or drop the change.',
  orphan_edge: 'An edge would point at a node the other branch deleted.',
  unique_violation: 'Both branches took the same unique value.',
  cardinality_violation: 'Together the branches add more edges than the schema allows.',
  value_constraint_violation: 'The merged values break a constraint of the schema.',
};

export function conflictItem(c) {
  return el('li', { class: 'conflict', 'data-conflict-kind': c.kind, 'data-entity-id': c.entity_id || '' },
    el('strong', { text: c.kind.replace(/_/g, ' ') }), ': ', c.message,
    el('p', { class: 'explain', text: EXPLAIN[c.kind] || '' }));
}

export function commitItem(c) {
  const merged = c.merged_parent_commit_id;
  return el('li', { class: merged ? 'commit merge' : 'commit', 'data-commit-id': c.graph_commit_id },
    el('span', { class: 'dot', 'aria-hidden': 'true' }),
    el('span', { class: 'what', text: c.summary || (c.parent_commit_id ? 'commit' : 'init') }),
    el('span', { class: 'meta', text: ` ${c.actor_id || '–'} · ${age(c.created_at)}` }),
    merged ? el('span', { class: 'lineage', text: ` ⇐ merged ${merged}` }) : null);
}

export function resultTable(table, result) {
  clear(table);
  const columns = result.columns || [];
  table.append(el('caption', { text: `${result.row_count} row(s)` }));
  table.append(el('thead', {}, el('tr', {}, ...columns.map((c) => el('th', { scope: 'col', text: c })))));
  const body = el('tbody');
  for (const row of result.rows || []) {
    body.append(el('tr', {}, ...columns.map((c) => el('td', { text: value(row[c]) }))));
  }
  table.append(body);
}
