// The hang map on the Live page: real Flight Recorder dumps of 16-rank torch jobs with one injected fault each
// (tests/records/fixtures/fr-verdict/*/facts.json), imported with the plan dp 16 / ep 4, are drawn on that plan's
// expert mesh; each rank's cell takes the colour of where the collector says it stands (core's standing_colour rule,
// written out below from docs/records.md, read from the palette's CSS variables), the injected fault's rank is the
// one ringed / in the no-record / outside-collectives colour; the start-up words give way to the collector's
// sentence and places; a rank opened by mouse or keyboard shows its position and last collectives as the rank JSON
// has them; axe-core finds no serious or critical violation; hostile words in a position stay text.
// LIVE_HANG_SCREENSHOT=PREFIX also saves PREFIX-skip.png, PREFIX-die.png and PREFIX-host.png.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {axeSource, eventually, getJson, launchBrowser, meshscope, spawnSync, startServe, tempDir} from './harness.mjs';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'records', 'fixtures');
const verdicts = path.join(fixtures, 'fr-verdict');
const jobs = ['skip', 'die', 'host'];
const facts = Object.fromEntries(jobs.map((job) =>
  [job, JSON.parse(readFileSync(path.join(verdicts, job, 'facts.json'), 'utf8'))]));
let dir;
let serve;
let browser;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db')});
  for (const job of jobs) importJob(job, job);
  browser = await launchBrowser();
});

// `meshscope import fr-verdict/DUMPS --dp 16 --ep 4` from the fixtures' folder (the findings name the dumps so).
function importJob(dumps, job) {
  const run = spawnSync(meshscope, ['import', `fr-verdict/${dumps}`, '--dp', '16', '--ep', '4', '--target', serve.url,
    '--job', job], {cwd: fixtures, encoding: 'utf8'});
  assert.equal(run.status, 0, run.stderr);
}

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

// The palette variable of a standing (docs/records.md, "The hang map"): waiting takes its dim's colour (ep, dp, cp
// and expert_cp, efsdp, edp; any other dim, the default group's "world" included, dim-other), dead the failed
// state's, no record and outside collectives their own.
function expectedVariable({standing, dim}) {
  const dims = {ep: 'dim-ep', dp: 'dim-dp', cp: 'dim-cp', expert_cp: 'dim-cp', efsdp: 'dim-efsdp', edp: 'dim-edp'};
  if (standing === 'waiting') return `--ms-${Object.hasOwn(dims, dim) ? dims[dim] : 'dim-other'}`;
  return {dead: '--ms-state-failed', no_record: '--ms-standing-no-record',
    outside_collectives: '--ms-standing-outside-collectives'}[standing];
}

// Every cell's pixels, as #rrggbb: its middle (the fill) and a point 3 units inside its left edge (the ring's).
function cellPixels(page) {
  return page.evaluate(() => {
    const grid = window.meshscopeLive.grid;
    if (!grid.layout || !grid.origins) return null;
    const ctx = grid.base.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const hex = (x, y) => {
      const d = ctx.getImageData(Math.floor(x * grid.scale * dpr), Math.floor(y * grid.scale * dpr), 1, 1).data;
      return `#${[d[0], d[1], d[2]].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    };
    const cells = [];
    for (let r = 0; r < grid.layout.world; ++r) {
      const x = grid.origins[2 * r];
      const y = grid.origins[2 * r + 1];
      cells.push({fill: hex(x + 22, y + 22), edge: hex(x + 3, y + 22)});
    }
    return cells;
  });
}

const cssValues = (page, names) => page.evaluate((list) => Object.fromEntries(list.map((n) =>
  [n, getComputedStyle(document.documentElement).getPropertyValue(n).trim().toLowerCase()])), names);

async function openJob(page, job) {
  await page.goto(`${serve.url}/#/live/${job}`);
  const summary = (await getJson(serve.url, `/api/v1/jobs/${job}`)).body;
  const ranks = (await getJson(serve.url, `/api/v1/jobs/${job}/ranks`)).body.ranks;
  assert.equal(ranks.length, 16);
  assert.ok(ranks.every((r) => r.position), `${job}: every rank has a position`);
  return {summary, ranks};
}

// The fills the page must show: each rank's standing's variable, read from the page's stylesheet.
async function expectedCells(page, ranks) {
  const variables = ranks.map((r) => expectedVariable(r.position));
  const values = await cssValues(page, [...new Set(variables), '--ms-root-cause']);
  return {fills: variables.map((v) => values[v]), ring: values['--ms-root-cause'], values};
}

async function checkGrid(page, job, ranks) {
  const {fills, ring, values} = await expectedCells(page, ranks);
  assert.ok(ring && fills.every(Boolean), JSON.stringify(values));
  const ringed = ranks.filter((r) => r.position.root_cause === true).map((r) => r.rank);
  const want = fills.map((fill, r) => ({fill, edge: ringed.includes(r) ? ring : fill}));
  await eventually(async () => JSON.stringify(await cellPixels(page)) === JSON.stringify(want), {
    describe: async () => `${job}: want ${JSON.stringify(want)}, page ${JSON.stringify(await cellPixels(page))}`,
  });
  return {values, ringed};
}

// The post-mortem in place of the start-up words: the collector's sentence, its places as the legend.
async function checkSummary(page, job, summary) {
  await eventually(async () => (await page.textContent('#hang-headline')) === summary.hang.text, {
    describe: async () => `${job}: headline ${await page.textContent('#hang-headline')} != ${summary.hang.text}`,
  });
  assert.equal(await page.textContent('#progress-heading'), 'Post-mortem');
  assert.equal(await page.textContent('.progress-panel .muted'), 'dp 16 · cp 1 · ep 4 · world 16');
  const legend = () => page.$$eval('.legend .place', (items) => items.map((li) => ({
    text: li.querySelector('.place-text').textContent, ranks: Number(li.querySelector('.place-count').textContent),
    swatch: getComputedStyle(li.querySelector('.swatch')).backgroundColor,
  })));
  const places = summary.hang.places.map((p) => ({text: p.text, ranks: p.ranks}));
  await eventually(async () => JSON.stringify((await legend()).map(({text, ranks}) => ({text, ranks})))
    === JSON.stringify(places), {describe: async () => `${job}: legend ${JSON.stringify(await legend())}`});
  // No start-up words left on the page for this job.
  const visible = await page.evaluate(() => document.querySelector('.live-page').innerText);
  for (const words of [/\d+ \/ \d+ ready/, /\b16 pending\b/, /not seen/, /\d+\/16 ready/]) {
    assert.doesNotMatch(visible, words, `${job}: start-up words on the page`);
  }
  const jobText = await page.textContent(`.job[data-job="${job}"] .job-hang`);
  assert.equal(jobText, summary.hang.text);
  return legend();
}

// Opens a rank by a click on its cell; the panel shows its position and last collectives as the rank JSON says.
async function checkRankPanel(page, job, rank) {
  const point = await page.evaluate((r) => {
    const grid = window.meshscopeLive.grid;
    const box = grid.base.getBoundingClientRect();
    return {x: box.left + (grid.origins[2 * r] + 22) * grid.scale,
      y: box.top + (grid.origins[2 * r + 1] + 22) * grid.scale};
  }, rank);
  await page.mouse.click(point.x, point.y);
  return checkPanelShows(page, job, rank);
}

async function checkPanelShows(page, job, rank) {
  const {position} = (await getJson(serve.url, `/api/v1/jobs/${job}/ranks/${rank}`)).body;
  const want = (position.last || []).map((c) => [c.dim, c.group >= 0 ? String(c.group) : '', String(c.seq), c.op,
    c.completed ? 'completed' : 'not completed']);
  const shown = () => page.$$eval('.rank-last tbody tr', (rows) => rows.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  await eventually(async () => (await page.textContent('#rank-heading')) === `Rank ${rank}`
    && JSON.stringify(await shown()) === JSON.stringify(want), {
    describe: async () => `${job} rank ${rank}: want ${JSON.stringify(want)}, panel ${JSON.stringify(await shown())}`,
  });
  const details = await page.$$eval('.rank-standing dt', (dts) => Object.fromEntries(dts.map((dt) =>
    [dt.textContent, dt.nextElementSibling.textContent])));
  assert.equal(details.standing, position.standing.replaceAll('_', ' '));
  assert.equal(details.group, position.label);
  assert.equal(details.seq, position.seq === undefined ? undefined : String(position.seq));
  assert.equal(details.op, position.op);
  assert.equal(details.verdict, position.root_cause ? 'root cause' : undefined);
  assert.equal((await page.$$('.rank-details dt')).length > 0, true);
  return position;
}

test('skip: drawn on the plan\'s expert mesh; rank 13 ringed; the collector\'s words; rank panel by mouse and keys',
  async () => {
    const {page} = browser;
    await page.setViewportSize({width: 1400, height: 860});
    const {summary, ranks} = await openJob(page, 'skip');
    // The import's plan is the job's topology; the grid is its expert mesh: 4 efsdp blocks of 4 ep columns, 1 row.
    assert.deepEqual(summary.topology, {dp: 16, cp: 1, ep: 4});
    await eventually(async () => (await page.textContent('.filter-bar .axes'))
      === 'blocks efsdp · columns ep · rows expert_cp');
    assert.deepEqual(await page.evaluate(() => {
      const {blocks, columns, rows} = window.meshscopeLive.grid.layout;
      return {blocks, columns, rows};
    }), {blocks: 4, columns: 4, rows: 1});
    const {ringed} = await checkGrid(page, 'skip', ranks);
    assert.deepEqual(ringed, [facts.skip.fault.rank]);  // 13: skipped ep group 3's all_to_all at seq 2
    await checkSummary(page, 'skip', summary);
    assert.ok(summary.hang.text.startsWith('root cause: rank 13;'), summary.hang.text);
    await checkRankPanel(page, 'skip', 13);
    assert.ok(page.url().endsWith('#/live/skip?rank=13'), page.url());
    if (process.env.LIVE_HANG_SCREENSHOT) await page.screenshot({path: `${process.env.LIVE_HANG_SCREENSHOT}-skip.png`});
    // By keyboard alone: the grid's Home selects rank 0, Right moves to rank 1 (its ep neighbour), Enter opens it.
    await page.focus('.grid-canvas');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Enter');
    await checkPanelShows(page, 'skip', 1);
    assert.match(await page.textContent('.grid-canvas [role="status"]'), /^rank 1 · waiting in /);
    // axe-core on the post-mortem (through the DevTools protocol: the page's CSP forbids injected scripts).
    await page.evaluate(axeSource());
    const results = await page.evaluate(() => window.axe.run(document, {resultTypes: ['violations']}));
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), []);
    assert.deepEqual(browser.errors, []);
  });

test('die: rank 2 in the no-record colour', async () => {
  const {page} = browser;
  const {summary, ranks} = await openJob(page, 'die');
  const {values} = await checkGrid(page, 'die', ranks);
  const rank = facts.die.fault.rank;
  assert.equal(ranks[rank].position.standing, 'no_record');
  const cells = await cellPixels(page);
  assert.equal(cells[rank].fill, values['--ms-standing-no-record']);
  assert.equal(cells.filter((c) => c.fill === values['--ms-standing-no-record']).length, 1);
  await checkSummary(page, 'die', summary);
  const position = await checkRankPanel(page, 'die', rank);
  assert.deepEqual(position.last ?? [], []);  // no record: no collectives to show
  assert.equal(await page.isHidden('.rank-last'), true);
  if (process.env.LIVE_HANG_SCREENSHOT) await page.screenshot({path: `${process.env.LIVE_HANG_SCREENSHOT}-die.png`});
  assert.deepEqual(browser.errors, []);
});

test('host: rank 9 outside collectives; its last collectives all completed', async () => {
  const {page} = browser;
  const {summary, ranks} = await openJob(page, 'host');
  const {values} = await checkGrid(page, 'host', ranks);
  const rank = facts.host.fault.rank;
  const cells = await cellPixels(page);
  assert.equal(cells[rank].fill, values['--ms-standing-outside-collectives']);
  await checkSummary(page, 'host', summary);
  const position = await checkRankPanel(page, 'host', rank);
  assert.equal(position.standing, 'outside_collectives');
  assert.ok(position.last.length > 0 && position.last.every((c) => c.completed), JSON.stringify(position.last));
  if (process.env.LIVE_HANG_SCREENSHOT) await page.screenshot({path: `${process.env.LIVE_HANG_SCREENSHOT}-host.png`});
  assert.deepEqual(browser.errors, []);
});

test('records imported again while the page is open: the page follows them', async () => {
  const {page} = browser;
  // First the healthy job's dumps (every rank outside collectives, no root cause), then the skip job's in its place.
  importJob('healthy', 'late');
  await page.goto(`${serve.url}/#/live/late`);
  const healthy = (await getJson(serve.url, '/api/v1/jobs/late')).body.hang;
  assert.deepEqual(healthy.root_cause, []);
  await eventually(async () => (await page.textContent('#hang-headline')) === healthy.text);
  importJob('skip', 'late');
  const summary = (await getJson(serve.url, '/api/v1/jobs/late')).body;
  const ranks = (await getJson(serve.url, '/api/v1/jobs/late/ranks')).body.ranks;
  await eventually(async () => (await page.textContent('#hang-headline')) === summary.hang.text, {
    describe: async () => `headline ${await page.textContent('#hang-headline')}`,
  });
  const {ringed} = await checkGrid(page, 'late', ranks);
  assert.deepEqual(ringed, [facts.skip.fault.rank]);
  assert.deepEqual(browser.errors, []);
});

test('hostile words in positions stay text', async () => {
  const {page} = browser;
  const hostile = '<img src=x onerror="window.pwned=1">';
  const position = {standing: 'waiting', dim: hostile, group: 0, seq: 1, op: hostile, label: hostile,
    root_cause: true, last: [{dim: hostile, group: 0, seq: 1, op: hostile, completed: false}]};
  const doc = {format: 'meshscope.records/1', findings: [], world_size: 2,
    ranks: [{rank: 0, position}, {rank: 1, position: {standing: 'no_record'}}]};
  const response = await fetch(`${serve.url}/api/v1/jobs/hostile/records`, {method: 'POST', body: JSON.stringify(doc),
    headers: {'Content-Type': 'application/json'}});
  assert.equal(response.status, 200);
  const {hang} = (await getJson(serve.url, '/api/v1/jobs/hostile')).body;
  assert.ok(hang.text.includes(hostile), hang.text);
  await page.goto(`${serve.url}/#/live/hostile?rank=0`);
  await eventually(async () => (await page.textContent('#hang-headline')) === hang.text);
  await eventually(async () => (await page.$$('.rank-last tbody tr')).length === 1);
  const details = await page.$$eval('.rank-standing dd', (dds) => dds.map((d) => d.textContent));
  assert.deepEqual(details, ['root cause', 'waiting', hostile, '1', hostile]);
  assert.equal(await page.textContent('.legend .place-text'), hang.places[0].text);
  assert.equal(await page.$$eval('.live-page img', (images) => images.length), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.deepEqual(browser.errors, []);
});
