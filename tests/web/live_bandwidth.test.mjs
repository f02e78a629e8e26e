// The Live page's "Bus bandwidth" panel against real `meshscope-probe` runs (gloo, 8 CPU ranks on loopback) and
// a real `meshscope serve`: the panel follows a probe job while it runs (at most one request a second), then
// shows every dim's groups with the collector's numbers; an injected slow ep group is marked slow; hostile dim
// names are text; a job without probe reports has no panel; Tab reaches the panel; axe-core finds nothing
// serious. BANDWIDTH_SCREENSHOT=FILE also saves the page with the slow group in view
// (docs/images/web-bandwidth.png).
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {axeSource, eventually, getJson, launchBrowser, postEvents, startServe, tempDir} from './harness.mjs';

const probeBin = process.env.MESHSCOPE_PROBE_BIN || 'meshscope-probe';
let dir;
let serve;
let browser;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db')});
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

function probe(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(probeBin, args, {stdio: ['ignore', 'pipe', 'pipe']});
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(out)
      : reject(new Error(`meshscope-probe ${args.join(' ')} exited ${code}: ${out}`))));
  });
}

// (dp, cp, ep) = (4, 2, 2) on 8 ranks (docs/domain.md, sections 1-2): the model mesh (mp_replicate 1,
// mp_shard 8): 8 + 1 groups; the data mesh (4, 2): dp 2, cp 4; the expert mesh (edp 1, efsdp 2, ep 2, cp 2):
// edp 8, efsdp 4, ep 4, expert_cp 4. 35 groups. Measured: cp (all_to_all, all_reduce), dp and efsdp
// (all_gather, reduce_scatter), ep (all_to_all), expert_cp (all_reduce): 8 summaries.
const groupsOf = {mp_replicate: 8, mp_shard: 1, dp: 2, cp: 4, edp: 8, efsdp: 4, ep: 4, expert_cp: 4};
const allGroups = Object.values(groupsOf).reduce((a, b) => a + b, 0);
// ep groups of (4, 2, 2), worked by hand: ranks (efsdp, ep, cp) row-major, ep varies over the middle index.
const epLabels = ['ep group 0 [0, 2]', 'ep group 1 [1, 3]', 'ep group 2 [4, 6]', 'ep group 3 [5, 7]'];

// The desktop's number format (ui/live/communicators_model.cpp, bandwidth_text), restated.
const gbps = (v) => `${v.toFixed(v >= 10 ? 1 : v >= 0.1 ? 2 : 3)} GB/s`;

async function communicators(job) {
  return (await getJson(serve.url, `/api/v1/jobs/${encodeURIComponent(job)}/communicators`)).body;
}

async function complete(job) {
  const body = await communicators(job);
  return body.groups.length === allGroups && body.groups.every((g) => g.reported === g.members.length);
}

// What the panel shows: summaries and groups, with their data attributes and texts.
function panelRows(page) {
  return page.evaluate(() => {
    const text = (node) => node?.textContent ?? '';
    const section = document.querySelector('.bandwidth-panel');
    return {
      hidden: section.hidden,
      heading: text(section.querySelector('h2')),
      dims: [...section.querySelectorAll('tr.bw-dim')].map((tr) => ({dim: tr.dataset.dim,
        collective: tr.dataset.collective, median: Number(tr.dataset.median), min: Number(tr.dataset.min),
        max: Number(tr.dataset.max), label: text(tr.querySelector('.bw-name')), value: text(tr.cells[1]),
        detail: [...tr.querySelectorAll('.bw-line')].map(text)})),
      groups: [...section.querySelectorAll('tr.bw-group')].map((tr) => ({dim: tr.dataset.dim,
        index: Number(tr.dataset.index), state: tr.dataset.state, slow: tr.dataset.slow === 'true',
        busbw: tr.dataset.busbw === undefined ? null : Number(tr.dataset.busbw), bad: tr.classList.contains('bad'),
        label: text(tr.querySelector('.bw-name')), value: text(tr.cells[1]),
        detail: [...tr.querySelectorAll('.bw-line')].map(text).join(' | ')})),
    };
  });
}

// The panel against the collector's answer: every summary and every group, numbers equal.
function assertPanelIs(shown, body) {
  assert.equal(shown.hidden, false);
  assert.equal(shown.heading, `Bus bandwidth (${body.dims.length} dims, ${body.groups.length} groups)`);
  const dims = [...shown.dims].sort((a, b) => (a.dim + a.collective < b.dim + b.collective ? -1 : 1));
  const expectedDims = [...body.dims].sort((a, b) => (a.dim + a.collective < b.dim + b.collective ? -1 : 1));
  assert.deepEqual(dims.map((d) => [d.dim, d.collective, d.median, d.min, d.max]),
    expectedDims.map((d) => [d.dim, d.collective, d.median_busbw, d.min_busbw, d.max_busbw]));
  for (const d of dims) {
    const api = body.dims.find((x) => x.dim === d.dim && x.collective === d.collective);
    assert.equal(d.label, `${d.dim} · ${d.collective}`);
    assert.equal(d.value, gbps(api.median_busbw));
    assert.deepEqual(d.detail, [`${api.groups} groups · ${api.bytes / 1024 ** 2 >= 1 ? `${api.bytes / 1024 ** 2} MiB`
      : `${api.bytes / 1024} KiB`}`, `slowest ${gbps(api.min_busbw)} · fastest ${gbps(api.max_busbw)}`]);
  }
  const key = (g) => `${g.dim}/${String(g.index).padStart(3, '0')}`;
  const groups = [...shown.groups].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  const expected = [...body.groups].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  assert.equal(groups.length, expected.length);
  for (let i = 0; i < groups.length; ++i) {
    const g = groups[i];
    const api = expected[i];
    assert.equal(key(g), key(api));
    assert.equal(g.state, api.state);
    assert.equal(g.slow, api.slow);
    assert.equal(g.label, `${api.dim} group ${api.index} [${api.members.join(', ')}]`);
    if (api.results.length === 0) {
      assert.equal(g.busbw, null);
      assert.equal(g.value, 'not measured');
      assert.equal(g.detail, `${api.reported}/${api.members.length} members`);
      continue;
    }
    // The group's figure: its lowest busbw at its largest size (what the desktop shows).
    const largest = Math.max(...api.results.map((r) => r.bytes));
    const figure = Math.min(...api.results.filter((r) => r.bytes === largest).map((r) => r.busbw));
    assert.equal(g.busbw, figure, key(g));
    assert.equal(g.value, gbps(figure) + (api.slow ? ' slow' : ''));
    assert.match(g.detail, new RegExp(`^${api.reported}/${api.members.length} members · \\d+ [KM]iB$`));
  }
}

test('the panel follows a running probe job, then shows every group with the collector\'s numbers', async () => {
  const {page} = browser;
  const requests = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/v1/jobs/healthy/communicators')) requests.push(performance.now());
  });
  await page.goto(`${serve.url}/#/live/healthy`);
  await page.waitForSelector('.bandwidth-panel', {state: 'attached'});
  assert.equal(await page.$eval('.bandwidth-panel', (s) => s.hidden), true, 'no job yet: no panel');
  await probe(['--local', '8', '--dp', '4', '--cp', '2', '--ep', '2', '--sizes', '1K:64K', '--iters', '3',
    '--collector', serve.url, '--job', 'healthy']);
  await eventually(() => complete('healthy'), {timeout: 30000});
  const body = await communicators('healthy');
  // The counts, worked by hand (above), before the panel is compared with the collector's answer.
  assert.equal(body.dims.length, 8);
  for (const [dim, count] of Object.entries(groupsOf)) {
    assert.equal(body.groups.filter((g) => g.dim === dim).length, count, dim);
  }
  await eventually(async () => {
    assertPanelIs(await panelRows(page), await communicators('healthy'));
    return true;
  }, {timeout: 30000});
  const shown = await panelRows(page);
  assert.deepEqual(shown.groups.filter((g) => g.dim === 'ep').map((g) => g.label), epLabels);
  assert.equal(shown.heading, `Bus bandwidth (8 dims, ${allGroups} groups)`);
  // Refreshed on the stream's changes, never twice within a second (a little slack for the timestamps).
  assert.ok(requests.length >= 2, `asked ${requests.length} times`);
  for (let i = 1; i < requests.length; ++i) {
    assert.ok(requests[i] - requests[i - 1] >= 950, `requests ${i - 1} and ${i} ${requests[i] - requests[i - 1]} ms apart`);
  }
  assert.deepEqual(browser.errors, []);
});

test('an injected slow ep group is marked slow, the others are not', async () => {
  const {page} = browser;
  // The recipe of tests/probe/tst_probe_gloo.cpp (names_an_injected_slow_group): one group at a time, 4 MiB,
  // ep group 1 sleeping 50 ms before every call (eight ranks on shared cores: see docs/probe.md).
  await probe(['--local', '8', '--dp', '4', '--cp', '2', '--ep', '2', '--sizes', '4M', '--iters', '5',
    '--one-group-at-a-time', '--collector', serve.url, '--job', 'slow', '--inject-slow-group', 'ep:1:50']);
  await eventually(() => complete('slow'), {timeout: 30000});
  await page.goto(`${serve.url}/#/live/slow`);
  await eventually(async () => {
    assertPanelIs(await panelRows(page), await communicators('slow'));
    return true;
  }, {timeout: 30000});
  const ep = (await panelRows(page)).groups.filter((g) => g.dim === 'ep');
  assert.deepEqual(ep.map((g) => [g.label, g.slow, g.bad]),
    epLabels.map((label, i) => [label, i === 1, i === 1]));
  assert.match(ep[1].value, / GB\/s slow$/);
  // The finding the mark stands for is listed too.
  await eventually(async () => (await page.$$('.finding[data-kind="slow_group"]')).length === 1);
  if (process.env.BANDWIDTH_SCREENSHOT) {
    await page.$eval('tr.bw-group[data-dim="ep"][data-index="1"]', (tr) => tr.scrollIntoView({block: 'center'}));
    await page.screenshot({path: process.env.BANDWIDTH_SCREENSHOT});
  }
  assert.deepEqual(browser.errors, []);
});

test('Tab reaches the panel, and axe-core finds no serious or critical violation with it', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/slow`);
  await eventually(async () => (await page.$$('tr.bw-group')).length === allGroups);
  let reached = false;
  for (let i = 0; i < 80 && !reached; ++i) {
    await page.keyboard.press('Tab');
    reached = await page.evaluate(() => document.activeElement?.classList.contains('bandwidth-scroll'));
  }
  assert.ok(reached, 'the scrolling table is in the tab order');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('aria-labelledby')), 'bandwidth-heading');
  await page.evaluate(axeSource());
  const results = await page.evaluate(() => window.axe.run(document, {resultTypes: ['violations']}));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), []);
});

test('hostile dim names are text; a group that never formed shows its state; no probe reports, no panel', async () => {
  const {page} = browser;
  const dim = '<img src=x onerror="window.__pwned=1"> \u202Eevil\u202C';
  const result = {collective: 'all_reduce', bytes: 1024, seconds: 0.001, algbw: 1.024, busbw: 1.024};
  const event = (rank, communicators) => ({job: 'hostile', rank, world_size: 2, phase: 'communicator',
    status: 'started', ts: 100 + rank, communicators});
  await postEvents(serve.url, [
    event(0, [{dim, index: 0, members: [0, 1], state: 'formed', results: [result]},
      {dim: 'ep', index: 0, members: [0, 1], state: 'not_formed', missing: [1]}]),
    event(1, [{dim, index: 0, members: [0, 1], state: 'formed', results: [result]}]),
    {job: 'plain', rank: 0, world_size: 1, phase: 'launch', status: 'started', ts: 100},
  ]);
  await page.goto(`${serve.url}/#/live/hostile`);
  await eventually(async () => (await page.$$('tr.bw-group')).length === 2);
  const shown = await panelRows(page);
  assert.deepEqual(shown.dims.map((d) => d.label), [`${dim} · all_reduce`]);
  assert.deepEqual(shown.groups.map((g) => [g.label, g.value, g.detail, g.bad]), [
    [`${dim} group 0 [0, 1]`, '1.02 GB/s', '2/2 members · 1 KiB', false],
    ['ep group 0 [0, 1]', 'not_formed', '1/2 members', true],
  ]);
  assert.equal(await page.$$eval('.bandwidth-panel img', (n) => n.length), 0);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // Another job without probe reports: the panel goes away.
  await page.goto(`${serve.url}/#/live/plain`);
  await eventually(() => page.$eval('.bandwidth-panel', (s) => s.hidden && s.querySelectorAll('tr.bw-group').length === 0));
  assert.deepEqual(browser.errors, []);
});
