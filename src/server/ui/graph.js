// A small node-link drawing of what a diff touched: the changed nodes and the endpoints of the
// changed edges on a circle, the edges as lines between them, coloured by the change. Plain SVG;
// the drawing is decoration (aria-hidden), the cards below carry the same facts as text.

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  return n;
}

export function drawNeighbourhood(figure, changes, maxNodes = 24) {
  while (figure.firstChild) figure.removeChild(figure.firstChild);
  const nodes = new Map();  // id -> op (of a changed node) or 'context'
  const edges = [];
  for (const c of changes) {
    if (c.kind === 'node') nodes.set(c.id, c.op);
  }
  for (const c of changes) {
    if (c.kind !== 'edge') continue;
    const e = (c.after || c.before).endpoints;
    if (!e) continue;
    for (const id of [e.from, e.to]) if (!nodes.has(id)) nodes.set(id, 'context');
    edges.push({ from: e.from, to: e.to, op: c.op, type: c.type.name });
  }
  if (nodes.size === 0) return;
  const ids = [...nodes.keys()].slice(0, maxNodes);
  // One or two entities need a strip, not a square.
  const size = 320, height = ids.length <= 2 ? 70 : size;
  const r = ids.length === 1 ? 0 : ids.length === 2 ? 0 : 120, cx = size / 2, cy = height / 2;
  const at = new Map(ids.map((id, i) => {
    if (ids.length === 2) return [id, [cx + (i === 0 ? -90 : 90), cy + 6]];
    const a = (2 * Math.PI * i) / ids.length - Math.PI / 2;
    return [id, [cx + r * Math.cos(a), cy + 6 + r * Math.sin(a)]];
  }));
  const root = svg('svg', { viewBox: `0 0 ${size} ${height}`, 'aria-hidden': 'true', class: 'graph' });
  for (const e of edges) {
    if (!at.has(e.from) || !at.has(e.to)) continue;
    const [x1, y1] = at.get(e.from), [x2, y2] = at.get(e.to);
    root.append(svg('line', { x1, y1, x2, y2, class: `edge op-${e.op}` }));
  }
  for (const id of ids) {
    const [x, y] = at.get(id);
    root.append(svg('circle', { cx: x, cy: y, r: 9, class: `node op-${nodes.get(id)}` }));
    const label = svg('text', { x, y: y - 13, 'text-anchor': 'middle' });
    label.textContent = id.length > 14 ? `${id.slice(0, 13)}…` : id;
    root.append(label);
  }
  figure.append(root);
  const caption = document.createElement('figcaption');
  caption.textContent = `${ids.length} entities touched` + (nodes.size > ids.length ? ` (first ${ids.length} drawn)` : '');
  figure.append(caption);
}
