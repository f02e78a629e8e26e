// Every string a rank sends (job, host, device, error type and message) is shown as text: markup, script
// ends, quotes, right-to-left marks and an 8 KB message appear character for character in the jobs list,
// the findings, the rank panel, its timeline, the host filter and the grid's hover text, and nothing runs.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, getJson, launchBrowser, postEvents, simulate, startServe, tempDir} from './harness.mjs';

// Jobs are limited to A-Z a-z 0-9 . _ - : @ + = by the protocol (the collector refuses others): use all the
// punctuation it allows, which the page must still percent-encode in its routes and API paths.
const job = 'h0stile:job+x=y@z.1_2-3';
const hosts = ['<img src=x onerror="window.__pwned=1">', '"quoted" \'single\' & <b>bold</b> \u202Eevil\u202C'];
const device = '</script><script>window.__pwned=2</script>';
const errorType = '<svg onload="window.__pwned=3">Error';
const head = '</script><img src=x onerror=window.__pwned=4> \u202Ereversed\u202C \u200F"\'';
const message = head + 'x'.repeat(8192 - Buffer.byteLength(head));  // the protocol's longest message
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

function event(rank, phase, status, ts, extra = {}) {
  return {job, rank, world_size: 8, phase, status, ts, host: hosts[rank % 2], device, local_rank: rank % 4, ...extra};
}

test('hostile rank strings render as text and execute nothing', async () => {
  assert.equal(Buffer.byteLength(message), 8192);
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db')});
  cleanup.push(() => dir.remove(), () => serve.stop());
  // A real simulated job next to it, so the jobs list has more than the hostile one.
  await simulate(serve.url, ['--dp', '4', '--job', 'plain', '--seed', '2']);
  const events = [];
  for (let rank = 0; rank < 8; ++rank) {
    events.push(event(rank, 'launch', 'started', 100 + rank * 0.01), event(rank, 'launch', 'done', 101));
  }
  events.push(event(3, 'communicator', 'started', 102), event(3, 'communicator', 'failed', 103,
    {error: {type: errorType, message}}));
  await postEvents(serve.url, events);

  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/${encodeURIComponent(job)}?rank=3`);
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 3');
  await eventually(async () => (await page.$$('.finding[data-kind="rank_error"]')).length === 1);
  await eventually(async () => (await page.$$eval('.rank-details dd', (d) => d.length)) >= 6);

  // Jobs list: the name as it is.
  const names = await page.$$eval('.job-name', (n) => n.map((x) => x.textContent));
  assert.deepEqual(names.sort(), [job, 'plain'].sort());
  // Findings: the collector's message (which quotes host and error) character for character.
  const {body} = await getJson(serve.url, `/api/v1/jobs/${encodeURIComponent(job)}/findings`);
  const collectorMessage = body.findings.find((f) => f.kind === 'rank_error').message;
  assert.ok(collectorMessage.includes(hosts[1]) && collectorMessage.includes('<svg'), collectorMessage);
  assert.equal(await page.textContent('.finding[data-kind="rank_error"] .finding-message'), collectorMessage);
  // Rank panel: host, device, error type and the whole 8 KB message.
  const details = await page.$$eval('.rank-details dt', (dts) => Object.fromEntries(dts.map((dt) =>
    [dt.textContent, dt.nextElementSibling.textContent])));
  assert.equal(details.host, hosts[1]);
  assert.equal(details.device, device);
  assert.equal(details['error type'], errorType);
  assert.equal(details.error, message);
  // Timeline: the failed phase with its error.
  assert.equal(await page.textContent('.timeline-error'), `${errorType}: ${message}`);
  // Host filter: both hosts as options.
  const options = await page.$$eval('#host-filter option', (o) => o.map((x) => x.textContent));
  assert.deepEqual(options.slice(1).sort(), [...hosts].sort());
  // Grid hover text and the rank list.
  const point = await page.evaluate(() => {
    const grid = window.meshscopeLive.grid;
    const box = grid.base.getBoundingClientRect();
    return {x: box.left + (grid.origins[0] + 20) * grid.scale, y: box.top + (grid.origins[1] + 20) * grid.scale};
  });
  await page.mouse.move(point.x, point.y);
  await eventually(async () => (await page.textContent('#live-status')).startsWith(`rank 0 · initializing · ${hosts[0]}`));
  const listed = await page.$$eval('.rank-option .rank-host', (d) => d.map((x) => x.textContent));
  assert.ok(listed.includes(hosts[0]), listed.join(' | '));

  // Nothing ran, nothing was parsed as markup.
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.$$eval('#page img, #page svg, #page script, #page b', (n) => n.length), 0);
  assert.deepEqual(browser.errors, []);
});
