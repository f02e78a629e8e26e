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

// The healthy job the later tests open (the first run that exited 0).
let healthy = '';

test('the panel follows a running probe job, then shows every group with the collector\'s numbers', async (t) => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/healthy-1`);
  await page.waitForSelector('.bandwidth-panel', {state: 'attached'});
  assert.equal(await page.$eval('.bandwidth-panel', (s) => s.hidden), true, 'no job yet: no panel');
  // Up to three runs: at load average 15-38 here, 1 run in 4 had rank 7 fail to connect the first
  // multi-member group (mp_shard, gloo: "Connection closed by peer") and the others time out; that is gloo
  // on a crowded loopback, not what this test is about, and it is reported as a diagnostic.
  for (let attempt = 1; attempt <= 3 && !healthy; ++attempt) {
    const job = `healthy-${attempt}`;
    const run = probe(['--local', '8', '--dp', '4', '--cp', '2', '--ep', '2', '--sizes', '1K:64K', '--iters', '3',
      '--timeout', '30', '--collector', serve.url, '--job', job]);
    run.catch(() => {});
    // Opened while it runs (the first run: already open before it started).
    await eventually(async () => (await getJson(serve.url, '/api/v1/jobs')).body.jobs.some((j) => j.job === job));
    await page.goto(`${serve.url}/#/live/${job}`);
    try {
      await run;
      healthy = job;
    } catch (e) {
      t.diagnostic(`${job}: ${e.message.split('\n').slice(0, 2).join(' / ')}`);
    }
  }
  assert.ok(healthy, 'three probe runs failed');
  await eventually(() => complete(healthy), {timeout: 30000});
  const body = await communicators(healthy);
  // The counts, worked by hand (above), before the panel is compared with the collector's answer.
  assert.equal(body.dims.length, 8);
  for (const [dim, count] of Object.entries(groupsOf)) {
    assert.equal(body.groups.filter((g) => g.dim === dim).length, count, dim);
  }
  await eventually(async () => {
    assertPanelIs(await panelRows(page), await communicators(healthy));
    return true;
  }, {timeout: 30000});
  const shown = await panelRows(page);
  assert.deepEqual(shown.groups.filter((g) => g.dim === 'ep').map((g) => g.label), epLabels);
  assert.equal(shown.heading, `Bus bandwidth (8 dims, ${allGroups} groups)`);
  // Refreshed on the stream's changes, never twice within a second: the page's own clock at each request (the
  // browser's request events reach this process late and unevenly on a loaded machine).
  const asked = await page.evaluate(() => window.meshscopeLive.bandwidth.asked);
  assert.ok(asked.length >= 2, `asked ${asked.length} times`);
  for (let i = 1; i < asked.length; ++i) {
    assert.ok(asked[i] - asked[i - 1] >= 1000, `requests ${i - 1} and ${i} ${asked[i] - asked[i - 1]} ms apart`);
  }
  assert.deepEqual(browser.errors, []);
});

// Ep group 1 is slow in what the panel shows exactly when the collector says so; the other ep groups are not.
async function assertEpMarks(page, job, slowIndex) {
  await eventually(async () => {
    assertPanelIs(await panelRows(page), await communicators(job));
    return true;
  }, {timeout: 30000});
  const ep = (await panelRows(page)).groups.filter((g) => g.dim === 'ep');
  assert.deepEqual(ep.map((g) => [g.label, g.slow, g.bad]),
    epLabels.map((label, i) => [label, i === slowIndex, i === slowIndex]));
  assert.match(ep[slowIndex].value, / GB\/s slow$/);
  // The finding the mark stands for is listed too (other dims are not asserted: on a loaded machine a healthy
  // group of another dim may be judged slow, and the panel then shows what the collector says, as above).
  await eventually(() => page.$$eval('.finding[data-kind="slow_group"] .finding-message',
    (m, prefix) => m.some((x) => x.textContent.startsWith(prefix)), `${epLabels[slowIndex]} reaches `));
}

test('an injected slow ep group is marked slow, the others are not', async (t) => {
  const {page} = browser;
  // The recipe of tests/probe/tst_probe_gloo.cpp (names_an_injected_slow_group), one group at a time at 4 MiB
  // (eight ranks on shared cores: see docs/probe.md), with a longer sleep. slow_group needs a group below
  // median - max(3 x 1.4826 x MAD, log 4) on log bandwidth (5 MADs when these runs were made); with 4 ep groups the MAD is the mean of the middle
  // two deviations, so one healthy group far off the others lifts the bound. At load average 13-21 on the 2
  // shared cores (six engineers building) the healthy ep groups' 4 MiB all_to_all took 2-27 ms (Debug build):
  // 50 ms (2.3x) and 250 ms (24x) went unjudged, and so did 1.5 s once, with healthy groups 10x apart. Hence
  // up to three runs. When none is judged slow the test fails: a probe run that cannot show an eightfold-slow
  // group on this machine is what the panel exists to show, and it must not pass unseen.
  const tries = [];
  for (let attempt = 1; attempt <= 3; ++attempt) {
    const job = `slow-${attempt}`;
    try {
      await probe(['--local', '8', '--dp', '4', '--cp', '2', '--ep', '2', '--sizes', '4M', '--iters', '5',
        '--one-group-at-a-time', '--timeout', '30', '--collector', serve.url, '--job', job,
        '--inject-slow-group', 'ep:1:1500']);
    } catch (e) {
      tries.push(`${job}: ${e.message.split('\n').slice(0, 3).join(' / ')}`);
      continue;
    }
    await eventually(() => complete(job), {timeout: 30000});
    await page.goto(`${serve.url}/#/live/${job}`);
    // Whatever the collector judged, the panel shows it.
    await eventually(async () => {
      assertPanelIs(await panelRows(page), await communicators(job));
      return true;
    }, {timeout: 30000});
    const ep = (await communicators(job)).groups.filter((g) => g.dim === 'ep');
    if (!ep[1].slow) {
      tries.push(`${job}: ep busbw ${ep.map((g) => g.results[0]?.busbw.toFixed(4)).join(', ')} GB/s, not judged slow`);
      continue;
    }
    await assertEpMarks(page, job, 1);
    if (process.env.BANDWIDTH_SCREENSHOT) {
      // The ep summary at the top of the panel, its groups below.
      await page.$eval('tr.bw-dim[data-dim="ep"]', (tr) => tr.scrollIntoView({block: 'start'}));
      await page.screenshot({path: process.env.BANDWIDTH_SCREENSHOT});
    }
    for (const line of tries) t.diagnostic(line);
    assert.deepEqual(browser.errors, []);
    return;
  }
  assert.fail(`no run was judged slow on this machine (load average ${(await import('node:os')).loadavg()
    .map((x) => x.toFixed(1)).join(' ')}): ${tries.join('; ')}`);
});

test('posted figures: the ep group the collector judges slow is marked, the others are not', async () => {
  const {page} = browser;
  // Four ep groups of (4, 2, 2), each member reporting one 4 MiB all_to_all; group 2 at a twentieth of the
  // others: far below the median (log 0.95 GB/s) by more than log 4 and 5 MADs.
  const busbw = [1.0, 1.1, 0.05, 0.9];
  const events = [];
  epLabels.forEach((label, index) => {
    const members = JSON.parse(label.slice(label.indexOf('[')));
    for (const rank of members) {
      events.push({job: 'posted', rank, world_size: 8, phase: 'communicator', status: 'started', ts: 100 + rank,
        communicators: [{dim: 'ep', index, members, state: 'formed', create_seconds: 0.01,
          results: [{collective: 'all_to_all', bytes: 4194304, seconds: 4194304 / 2 / busbw[index] / 1e9,
            algbw: busbw[index] * 2, busbw: busbw[index]}]}]});
    }
  });
  await postEvents(serve.url, events);
  await page.goto(`${serve.url}/#/live/posted`);
  await eventually(async () => (await page.$$('tr.bw-group')).length === 4);
  await assertEpMarks(page, 'posted', 2);
  const shown = await panelRows(page);
  assert.deepEqual(shown.groups.map((g) => g.value), ['1.00 GB/s', '1.10 GB/s', '0.050 GB/s slow', '0.90 GB/s']);
  // The dim's median on the logarithm: the mean of the middle two logs, sqrt(0.9 x 1.0) = 0.9487; worked by hand.
  assert.equal(shown.dims[0].value, '0.95 GB/s');
  assert.deepEqual(shown.dims[0].detail, ['4 groups · 4 MiB', 'slowest 0.050 GB/s · fastest 1.10 GB/s']);
});

test('Tab reaches the panel, and axe-core finds no serious or critical violation with it', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/${healthy}`);
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
  await eventually(() => page.$eval('.bandwidth-panel',
    (s) => s.hidden && s.querySelectorAll('tr.bw-group').length === 0));
  assert.deepEqual(browser.errors, []);
});
