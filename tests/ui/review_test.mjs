// The review page in headless Chromium (tests/ui/review.sh seeds the graph and starts the
// server). Each step checks what the page shows against the API's own answers and writes a
// screenshot: sign in, see every branch with its ahead/behind counts, open each branch and
// compare its cards with the API's diff from its merge base, see the conflicting branch's
// preview explained and no merge button, merge the clean branch and see main's history gain the
// merge commit, run a query; at 390 px the page has no sideways scroll; a token without
// branch_merge sees no merge button and its forged merge request is refused (403).
import assert from 'node:assert/strict';
import puppeteer from 'puppeteer-core';

const URL = process.env.OG_URL;
const SHOTS = process.env.OG_SHOTS;
const TIMEOUT_MS = 20000;

async function api(token, method, path, body) {
  const init = { method, headers: { Authorization: `Bearer ${token}` } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(URL + path, init);
  return { status: r.status, body: await r.json() };
}

async function get(token, path) {
  const r = await api(token, 'GET', path);
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

// The API's whole diff of what `branch` did: from its merge base into main, to its head.
async function branchDiff(token, branch) {
  const preview = await get(token, `/branches/merge/preview?source=${branch}`);
  const changes = [];
  let token_ = '';
  for (;;) {
    const page = await get(token, `/diff?from_snapshot=${preview.base_commit_id}&to=${branch}&limit=2` +
      (token_ ? `&page_token=${encodeURIComponent(token_)}` : ''));
    changes.push(...page.changes);
    if (!page.next_page_token) break;
    token_ = page.next_page_token;
  }
  return { preview, changes };
}

let step = 0;
async function shot(page, name) {
  step += 1;
  await page.screenshot({ path: `${SHOTS}/${String(step).padStart(2, '0')}-${name}.png`, fullPage: true });
}

async function signIn(page, token) {
  await page.goto(`${URL}/ui/`, { waitUntil: 'networkidle0' });
  await page.type('#token', token);
  await page.keyboard.press('Enter');
  await page.waitForSelector('#branch-table tbody tr[data-branch]', { timeout: TIMEOUT_MS });
}

async function openBranch(page, name) {
  await page.click(`#branch-table button[data-branch="${name}"]`);
  await page.waitForFunction(
    (n) => document.querySelector('#review')?.getAttribute('data-branch') === n &&
      document.querySelector('#preview')?.getAttribute('data-outcome') &&
      document.querySelector('#status').textContent === '',
    { timeout: TIMEOUT_MS }, name);
}

async function cardsShown(page) {
  return page.$$eval('#cards li.card', (cards) => cards.map((c) =>
    `${c.dataset.op} ${c.dataset.kind} ${c.dataset.type} ${c.dataset.entityId}`).sort());
}

function expected(changes) {
  return changes.map((c) => `${c.op} ${c.kind} ${c.type.name} ${c.id}`).sort();
}

async function visible(page, selector) {
  return page.$eval(selector, (e) => !e.hidden && e.offsetParent !== null);
}

async function main() {
  const ALICE = process.env.OG_ALICE;
  const BOB = process.env.OG_BOB;
  const browser = await puppeteer.launch({
    executablePath: process.env.OG_CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage();
    page.on('dialog', (d) => d.accept());
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.setViewport({ width: 1280, height: 900 });

    // Sign in; every branch but main is listed with the preview's counts.
    await signIn(page, ALICE);
    const { branches } = await get(ALICE, '/branches');  // OmniGraph's names (decision 142)
    const names = branches.filter((n) => n !== 'main').sort();
    assert.deepEqual(names, ['agent-clean', 'agent-conflict', 'agent-more']);
    const listed = await page.$$eval('#branch-table tbody tr[data-branch]', (rows) =>
      rows.map((r) => [r.dataset.branch, r.querySelector('[data-ahead]').dataset.ahead,
        r.querySelector('[data-behind]').dataset.behind]));
    assert.deepEqual(listed.map((r) => r[0]).sort(), names);
    for (const [name, ahead, behind] of listed) {
      const p = await get(ALICE, `/branches/merge/preview?source=${name}`);
      assert.equal(Number(ahead), p.source_ahead, name);
      assert.equal(Number(behind), p.target_ahead, name);
    }
    assert.match(await page.$eval('#who', (e) => e.textContent), /alice/);
    await shot(page, 'branches');

    // Each branch's cards are the API's diff from its merge base.
    const clean = await branchDiff(ALICE, 'agent-clean');
    await openBranch(page, 'agent-clean');
    assert.deepEqual(await cardsShown(page), expected(clean.changes));
    assert.equal(clean.changes.length, 2);
    const edge = await page.$eval('#cards li[data-kind="edge"] h4', (h) => h.textContent);
    assert.match(edge, /Ada —WorksAt→ Acme/);
    assert.equal(await page.$eval('#preview', (e) => e.dataset.outcome), 'merged');
    assert.ok(await visible(page, '#merge-button'), 'alice sees the merge button');
    assert.ok(await visible(page, '#delete-button'), 'alice sees the delete button');
    assert.ok(await page.$('#neighbourhood svg'), 'the neighbourhood is drawn');
    await shot(page, 'clean-diff');

    const conflict = await branchDiff(ALICE, 'agent-conflict');
    await openBranch(page, 'agent-conflict');
    assert.deepEqual(await cardsShown(page), expected(conflict.changes));
    const ada = await page.$eval('#cards li[data-entity-id="Ada"] tr.changed', (r) =>
      [r.dataset.property, r.querySelector('.before').textContent, r.querySelector('.after').textContent]);
    assert.deepEqual(ada, ['age', '36', '40']);
    assert.equal(conflict.preview.outcome, 'conflicts');
    assert.equal(await page.$eval('#preview', (e) => e.dataset.outcome), 'conflicts');
    const shown = await page.$$eval('#preview li.conflict', (cs) =>
      cs.map((c) => [c.dataset.conflictKind, c.dataset.entityId, c.querySelector('.explain').textContent]));
    assert.deepEqual(shown.map((c) => c.slice(0, 2)),
      conflict.preview.conflicts.map((c) => [c.kind, c.entity_id]));
    assert.deepEqual(shown.map((c) => c[0]), ['divergent_update']);
    assert.ok(shown[0][2].length > 0, 'the conflict is explained');
    assert.ok(!(await visible(page, '#merge-button')), 'no merge button for a conflicting branch');
    await shot(page, 'conflict-preview');

    // The query box: a read's rows as a table, as the API answers it.
    const q = 'query names() { match { $p: Person } return { $p.name, $p.age } order { $p.name } }';
    await page.type('#query-source', q);
    await page.click('#query-form button[type="submit"]');
    await page.waitForSelector('#query-result tbody tr', { timeout: TIMEOUT_MS });
    const rows = await page.$$eval('#query-result tbody tr', (rs) => rs.map((r) =>
      [...r.querySelectorAll('td')].map((td) => td.textContent)));
    const answered = await api(ALICE, 'POST', '/query', { query: q, branch: 'main' });
    const cell = (v) => (v === null || v === undefined ? '–' : typeof v === 'string' ? v : JSON.stringify(v));
    assert.equal(answered.body.row_count, 2);
    assert.deepEqual(rows, answered.body.rows.map((r) => answered.body.columns.map((c) => cell(r[c]))));
    await shot(page, 'query');

    // Merge the clean branch: main's history gains the merge commit, first, naming its head.
    const cleanHead = (await get(ALICE, '/branches')).branch_details.find((b) => b.name === 'agent-clean').head_commit_id;
    await openBranch(page, 'agent-clean');
    await page.click('#merge-button');
    await page.waitForFunction(() => /^merged agent-clean/.test(document.querySelector('#status').textContent),
      { timeout: TIMEOUT_MS });
    const history = await get(ALICE, '/commits?branch=main&limit=1');
    const mergeCommit = history.commits[0];
    assert.equal(mergeCommit.merged_parent_commit_id, cleanHead);
    await page.waitForFunction((id) => document.querySelector('#timeline li')?.dataset.commitId === id,
      { timeout: TIMEOUT_MS }, mergeCommit.graph_commit_id);
    assert.ok(await page.$eval('#timeline li', (li) => li.classList.contains('merge')));
    await page.waitForFunction(() => document.querySelector('#preview')?.dataset.outcome === 'already_up_to_date',
      { timeout: TIMEOUT_MS });
    await shot(page, 'merged-history');

    // Keyboard: the branch opens from its focused button with Enter.
    await page.focus('#branch-table button[data-branch="agent-more"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#review').dataset.branch === 'agent-more' &&
      document.querySelector('#status').textContent === '', { timeout: TIMEOUT_MS });
    // Labels: every field has one; every button a name; the page a language.
    const unlabeled = await page.$$eval('input, select, textarea', (fs) =>
      fs.filter((f) => f.labels.length === 0).map((f) => f.id));
    assert.deepEqual(unlabeled, []);
    const nameless = await page.$$eval('button', (bs) => bs.filter((b) => !b.textContent.trim()).length);
    assert.equal(nameless, 0);
    assert.equal(await page.$eval('html', (h) => h.lang), 'en');

    // 390 px wide: one column, nothing wider than the screen.
    await page.setViewport({ width: 390, height: 844 });
    await new Promise((r) => setTimeout(r, 200));
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `the page is ${width} px wide at 390`);
    await shot(page, 'narrow');
    assert.deepEqual(errors, []);

    // bob may read, not merge: no merge or delete button on a branch that merges cleanly, and
    // his forged merge request is 403 and changes nothing.
    const ctx = await browser.createBrowserContext();
    const bobPage = await ctx.newPage();
    await bobPage.setViewport({ width: 1280, height: 900 });
    await signIn(bobPage, BOB);
    await openBranch(bobPage, 'agent-more');
    assert.equal(await bobPage.$eval('#preview', (e) => e.dataset.outcome), 'merged');
    assert.ok(!(await visible(bobPage, '#merge-button')), 'bob sees no merge button');
    assert.ok(!(await visible(bobPage, '#delete-button')), 'bob sees no delete button');
    assert.deepEqual(await cardsShown(bobPage), expected((await branchDiff(BOB, 'agent-more')).changes));
    const access = await get(ALICE, '/access?branch=agent-more');
    assert.equal(access.allowed.branch_merge, true, 'alice may merge it: the button is policy, not data');
    const before = (await get(BOB, '/commits?branch=main&limit=1')).commits[0].graph_commit_id;
    const forged = await bobPage.evaluate(async (token) => {
      const r = await fetch('/branches/merge', {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ source: 'agent-more' }),
      });
      return r.status;
    }, BOB);
    assert.equal(forged, 403);
    assert.equal((await get(BOB, '/commits?branch=main&limit=1')).commits[0].graph_commit_id, before);
    await shot(bobPage, 'reader-no-merge');
    await ctx.close();
  } finally {
    await browser.close();
  }
  console.log(`ok: ${step} screenshots in ${SHOTS}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
