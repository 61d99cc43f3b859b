// The review page's controller (docs/design/review-page.md): sign in with a bearer token, list
// the branches with their author, age and how far each is ahead of and behind main, open one to
// see what it changed (the diff from its merge base), whether it merges cleanly (the merge
// preview), and merge or delete it when the token may; main's history; a query box.
import { api, ApiError, setToken, token, wholeDiff } from './api.js';
import { drawNeighbourhood } from './graph.js';
import { age, card, clear, commitItem, conflictItem, el, resultTable } from './views.js';

const $ = (id) => document.getElementById(id);
let current = null;  // the branch under review

function say(text, error = false) {
  const s = $('status');
  s.textContent = text;
  s.classList.toggle('error', error);
}

function failed(e) {
  say(e instanceof ApiError ? `${e.status}: ${e.message}` : String(e), true);
}

async function signIn(value) {
  setToken(value);
  try {
    await api.branches();
  } catch (e) {
    setToken('');
    failed(e);
    return;
  }
  const access = await api.access('', 'main');
  $('who').textContent = access.actor ? `signed in as ${access.actor}` : 'signed in';
  $('sign-in').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = false;
  say('');
  await refresh();
  $('branches-title').focus?.();
}

async function refresh() {
  await Promise.all([loadBranches(), loadHistory()]);
  if (current) await openBranch(current, false);
}

async function loadBranches() {
  // OmniGraph's GET /branches names the branches; their heads ride along as branch_details.
  const { branch_details: branches } = await api.branches();
  const body = $('branch-table').querySelector('tbody');
  clear(body);
  const select = $('query-branch');
  const chosen = select.value;
  clear(select);
  for (const b of branches) select.append(el('option', { value: b.name, text: b.name }));
  if (chosen) select.value = chosen;
  const rows = branches.filter((b) => b.name !== 'main').map(async (b) => {
    const [head, preview] = await Promise.all([
      api.commit(b.head_commit_id),
      api.preview(b.name).catch((e) => ({ outcome: 'unknown', error: e.message })),
    ]);
    const open = el('button', {
      type: 'button', class: 'link', 'data-branch': b.name,
      onclick: () => openBranch(b.name, true), text: b.name,
    });
    return el('tr', { 'data-branch': b.name },
      el('th', { scope: 'row' }, open),
      el('td', { text: head.actor_id || '–' }),
      el('td', { text: age(head.created_at) }),
      el('td', { class: 'num', 'data-ahead': preview.source_ahead ?? '', text: preview.source_ahead ?? '–' }),
      el('td', { class: 'num', 'data-behind': preview.target_ahead ?? '', text: preview.target_ahead ?? '–' }),
      el('td', { class: `outcome ${preview.outcome}`, text: preview.outcome.replace(/_/g, ' ') }));
  });
  for (const row of await Promise.all(rows)) body.append(row);
  if (body.children.length === 0) {
    body.append(el('tr', {}, el('td', { colspan: 6, text: 'No branch but main.' })));
  }
}

async function loadHistory() {
  const { commits } = await api.commits('main', 50);
  const list = $('timeline');
  clear(list);
  for (const c of commits) list.append(commitItem(c));
}

async function openBranch(name, focus) {
  current = name;
  const review = $('review');
  review.hidden = false;
  review.setAttribute('data-branch', name);
  $('review-title').textContent = `Branch ${name}`;
  say(`loading ${name}…`);
  try {
    const [preview, access] = await Promise.all([api.preview(name), api.access(name, 'main')]);
    showPreview(preview);
    $('merge-button').hidden = !(access.allowed.branch_merge && preview.outcome !== 'conflicts' &&
      preview.outcome !== 'already_up_to_date');
    $('delete-button').hidden = !access.allowed.branch_delete;
    // What the branch did: from where it last met main to its head.
    const diff = await wholeDiff({ from_snapshot: preview.base_commit_id, to: name });
    showDiff(diff);
    say('');
  } catch (e) {
    failed(e);
  }
  if (focus) $('review-title').focus?.();
}

function showPreview(p) {
  const box = $('preview');
  clear(box);
  const words = {
    fast_forward: 'Merges cleanly (fast-forward).', merged: 'Merges cleanly.',
    already_up_to_date: 'Nothing to merge: main already has it.',
    conflicts: `Would conflict: ${p.conflicts.length} conflict(s). Nothing can be merged until they are resolved.`,
  };
  box.setAttribute('data-outcome', p.outcome);
  box.append(el('p', { class: `outcome ${p.outcome}`, text: words[p.outcome] || p.outcome }));
  box.append(el('p', { class: 'meta', text: `${p.source_ahead} commit(s) ahead of main, ${p.target_ahead} behind; base ${p.base_commit_id}` }));
  if (p.conflicts.length) {
    box.append(el('ul', { class: 'conflicts', 'aria-label': 'Conflicts' }, ...p.conflicts.map(conflictItem)));
  }
}

function showDiff(d) {
  const counts = d.types.map((t) => `${t.type.name} +${t.inserted} ~${t.updated} −${t.deleted}`);
  $('diff-summary').textContent = d.changes.length
    ? `${d.changes.length} change(s): ${counts.join(', ')}` : 'No entity changes.';
  drawNeighbourhood($('neighbourhood'), d.changes);
  const cards = $('cards');
  clear(cards);
  for (const c of d.changes) cards.append(card(c));
}

async function merge() {
  const name = current;
  if (!name || !confirm(`Merge ${name} into main?`)) return;
  let message = '';
  try {
    const out = await api.merge(name);
    message = `merged ${name}: ${out.outcome.replace(/_/g, ' ')}${out.commit ? ` (${out.commit})` : ''}`;
  } catch (e) {
    failed(e);
  }
  await refresh();
  if (message) say(message);
}

async function remove() {
  const name = current;
  if (!name || !confirm(`Delete branch ${name}? Its commits stay in history.`)) return;
  let message = '';
  try {
    await api.deleteBranch(name);
    message = `deleted ${name}`;
    current = null;
    $('review').hidden = true;
  } catch (e) {
    failed(e);
  }
  await refresh();
  if (message) say(message);
}

async function runQuery(event) {
  event.preventDefault();
  const source = $('query-source').value.trim();
  const branch = $('query-branch').value || 'main';
  try {
    // A bare name runs the stored query of that name; anything else is .gq source.
    const result = /^[A-Za-z_][A-Za-z0-9_]*$/.test(source)
      ? await api.invoke(source, branch) : await api.query(source, branch);
    resultTable($('query-result'), result);
    say(`${result.row_count} row(s)`);
  } catch (e) {
    failed(e);
  }
}

function start() {
  $('sign-in-form').addEventListener('submit', (e) => {
    e.preventDefault();
    signIn($('token').value);
  });
  $('sign-out').addEventListener('click', () => {
    setToken('');
    location.reload();
  });
  $('merge-button').addEventListener('click', merge);
  $('delete-button').addEventListener('click', remove);
  $('query-form').addEventListener('submit', runQuery);
  for (const id of ['branches-title', 'review-title', 'history-title']) $(id).tabIndex = -1;
  if (token()) signIn(token());
}

start();
