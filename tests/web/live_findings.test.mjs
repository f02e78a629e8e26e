// A simulated job with every fault kind: the Live page lists exactly the findings `meshscope simulate`
// says it injected (kinds and ranks, from the simulator's own output), a finding's click outlines its
// ranks, a rank's click shows its groups and timeline, and a deep link opens that rank.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, getJson, launchBrowser, pageFindings, simulate, sortedInjected, startServe, tempDir}
  from './harness.mjs';

const allKinds = ['topology_mismatch', 'group_disagreement', 'missing_rank', 'duplicate_rank', 'straggler',
  'stale_rank', 'rank_error', 'reinit_mismatch', 'creation_order_mismatch'];
let dir;
let serve;
let browser;
let injected;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db'), args: ['--missing-after', '1', '--stale-after', '2']});
  const summary = await simulate(serve.url, ['--dp', '16', '--cp', '2', '--ep', '8', '--job', 'faults', '--seed', '7',
    '--faults', allKinds.map((k) => `${k}=1`).join(',')]);
  assert.equal(summary.world_size, 32);
  injected = sortedInjected(summary.injected);
  assert.deepEqual(Object.keys(injected), [...allKinds].sort(), 'the simulator injected every kind');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

test('the page lists exactly the injected findings, with the collector\'s texts', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/faults`);
  await eventually(async () => JSON.stringify(await pageFindings(page)) === JSON.stringify(injected), {
    describe: async () => `injected ${JSON.stringify(injected)}, page ${JSON.stringify(await pageFindings(page))}`,
  });
  // Message and fix are the collector's own words (compared with its JSON, not retyped here).
  const {body} = await getJson(serve.url, '/api/v1/jobs/faults/findings');
  const shown = await page.$$eval('.finding', (buttons) => buttons.map((b) => ({
    kind: b.dataset.kind,
    message: b.querySelector('.finding-message').textContent,
    fix: b.querySelector('.finding-fix')?.textContent ?? '',
  })));
  const expected = body.findings.map((f) => ({kind: f.kind, message: f.message, fix: f.fix ? `Fix: ${f.fix}` : ''}));
  const order = (list) => [...list].sort((a, b) => (a.kind + a.message < b.kind + b.message ? -1 : 1));
  assert.deepEqual(order(shown), order(expected));
  // One finding per injected kind: nine kinds, one fault each.
  assert.equal(await page.textContent('#findings-heading'), `Findings (${allKinds.length})`);
  assert.equal(allKinds.length, 9);
  assert.deepEqual(browser.errors, []);
});

test('clicking a finding outlines exactly its ranks; clicking it again clears that', async () => {
  const {page} = browser;
  const rank = injected.straggler[0];
  await page.click('.finding[data-kind="straggler"]');
  await eventually(() => page.$eval('.finding[data-kind="straggler"]', (b) => b.getAttribute('aria-pressed') === 'true'));
  const outlined = await page.evaluate(() => window.meshscopeLive.grid.outlined);
  assert.deepEqual(outlined, [rank]);
  // The outline is drawn: the pixel just outside the cell is the accent colour, a faded neighbour is not.
  const accentSeen = () => page.evaluate((r) => {
    const grid = window.meshscopeLive.grid;
    const ctx = grid.base.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const x = Math.round((grid.origins[2 * r] - 2) * grid.scale * dpr);
    const y = Math.round((grid.origins[2 * r + 1] + 22) * grid.scale * dpr);
    const [red, green, blue] = ctx.getImageData(x, y, 1, 1).data;
    const accent = getComputedStyle(document.documentElement).getPropertyValue('--ms-accent').trim();
    const v = parseInt(accent.slice(1), 16);
    const near = (a, b) => Math.abs(a - b) < 40;
    return near(red, v >> 16) && near(green, (v >> 8) & 255) && near(blue, v & 255);
  }, rank);
  await eventually(accentSeen, {describe: () => 'the selected finding\'s rank is not outlined in the accent colour'});
  await page.click('.finding[data-kind="straggler"]');
  await eventually(() => page.$eval('.finding[data-kind="straggler"]', (b) => b.getAttribute('aria-pressed') === 'false'));
  assert.deepEqual(await page.evaluate(() => window.meshscopeLive.grid.outlined), []);
});

test('clicking a rank in the grid shows its groups and timeline, and the URL names it', async () => {
  const {page} = browser;
  // Hand-worked ep groups of (dp, cp, ep) = (16, 2, 8): rank = (efsdp * 8 + ep) * 2 + expert_cp, so an ep
  // group keeps efsdp and expert_cp: rank 5 -> 1, 3, ..., 15; rank 20 -> 16, 18, ..., 30; 27 -> 17, ..., 31.
  const candidates = {5: '[1, 3, 5, 7, 9, 11, 13, 15]', 20: '[16, 18, 20, 22, 24, 26, 28, 30]',
    27: '[17, 19, 21, 23, 25, 27, 29, 31]'};
  const faulty = new Set(Object.values(injected).flat());
  const rank = Number(Object.keys(candidates).find((r) => !faulty.has(Number(r))));
  const point = await page.evaluate((r) => {
    const grid = window.meshscopeLive.grid;
    const box = grid.base.getBoundingClientRect();
    return {x: box.left + (grid.origins[2 * r] + 22) * grid.scale, y: box.top + (grid.origins[2 * r + 1] + 22) * grid.scale};
  }, rank);
  await page.mouse.click(point.x, point.y);
  await eventually(async () => (await page.textContent('#rank-heading')) === `Rank ${rank}`);
  assert.ok(page.url().endsWith(`#/live/faults?rank=${rank}`), page.url());
  // Groups exactly as the collector answers them for this rank.
  const {body} = await getJson(serve.url, `/api/v1/jobs/faults/ranks/${rank}`);
  await eventually(async () => (await page.$$('.rank-groups dt')).length === Object.keys(body.groups).length);
  const dims = await page.$$eval('.rank-groups dt', (dts) => dts.map((d) => d.textContent));
  assert.deepEqual(dims, Object.keys(body.groups));
  const ep = await page.$$eval('.rank-groups dd', (dds) => dds.map((d) => d.textContent));
  assert.equal(ep[dims.indexOf('ep')], candidates[rank]);
  // One timeline step per phase the rank reported.
  const phases = await page.$$eval('.timeline-phase', (s) => s.map((x) => x.textContent));
  assert.deepEqual([...phases].sort(), Object.keys(body.timings).map((p) => p.replace('_', ' ')).sort());
  const texts = await page.$$eval('.timeline-text', (s) => s.map((x) => x.textContent));
  assert.ok(texts.every((t) => /^\+\d+\.\d\d s, (took \d+\.\d\d s|started|done|failed)$/.test(t)), texts.join(' | '));
});

test('a deep link opens the job and the rank', async () => {
  const {page} = browser;
  const rank = injected.rank_error[0];
  await page.goto(`${serve.url}/#/live/faults?rank=${rank}`);
  await eventually(async () => (await page.textContent('#rank-heading')) === `Rank ${rank}`);
  await eventually(async () => (await page.$$eval('.rank-details dd.error', (d) => d.length)) > 0);
  const selected = await page.evaluate(() => window.meshscopeLive.grid.selected);
  assert.equal(selected, rank);
  assert.deepEqual(browser.errors, []);
});
