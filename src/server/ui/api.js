// The server's API as the page uses it: every call under the viewer's bearer token, on this
// server's origin, for the graph the page's address names (#graph=ID: /graphs/ID/...) or the
// server's one graph. An error answer becomes an ApiError carrying the server's envelope.

const TOKEN_KEY = 'omnigraph.review.token';

export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.error) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function graphPrefix() {
  const m = /(?:^#|&)graph=([^&]+)/.exec(location.hash);
  return m ? `/graphs/${encodeURIComponent(decodeURIComponent(m[1]))}` : '';
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

async function call(method, path, { params, body } = {}) {
  const headers = { Authorization: `Bearer ${token()}` };
  const init = { method, headers };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(graphPrefix() + path + query(params), init);
  let parsed = null;
  try { parsed = await response.json(); } catch { parsed = null; }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

export const api = {
  branches: () => call('GET', '/branches'),
  commit: (id) => call('GET', `/commits/${encodeURIComponent(id)}`),
  commits: (branch, limit) => call('GET', '/commits', { params: { branch, limit } }),
  preview: (source, target = 'main') =>
    call('GET', '/branches/merge/preview', { params: { source, target } }),
  diff: (params) => call('GET', '/diff', { params }),
  access: (branch, target = 'main') => call('GET', '/access', { params: { branch, target } }),
  merge: (source, target = 'main') => call('POST', '/branches/merge', { body: { source, target } }),
  deleteBranch: (name) => call('DELETE', `/branches/${name.split('/').map(encodeURIComponent).join('/')}`),
  query: (source, branch) => call('POST', '/query', { body: { query: source, branch } }),
  storedQueries: () => call('GET', '/queries'),
  invoke: (name, branch) => call('POST', `/queries/${encodeURIComponent(name)}`, { body: { branch } }),
};

// Every page of a diff (the review shows a branch whole; pages keep each answer bounded).
export async function wholeDiff(params) {
  const out = { changes: [], types: [] };
  let page_token;
  for (;;) {
    const page = await api.diff({ ...params, page_token });
    out.from = page.from;
    out.to = page.to;
    out.types = page.types;
    out.changes.push(...page.changes);
    if (!page.next_page_token) return out;
    page_token = page.next_page_token;
  }
}
