// The hang map on the Live page: real Flight Recorder dumps of 16-rank torch jobs with one injected fault each
// (tests/records/fixtures/fr-verdict/*/facts.json), imported with the plan dp 16 / ep 4, are drawn on that plan's
// expert mesh; each rank's cell takes the colour of where the collector says it stands (core's standing_colour rule,
// written out below from docs/records-hang.md, read from the palette's CSS variables), the injected fault's rank is the
// one ringed / in the no-record / outside-collectives colour; the start-up words give way to the collector's
// sentence and places; a rank opened by mouse or keyboard shows its position and last collectives as the rank JSON
// has them; axe-core finds no serious or critical violation; hostile words in a position stay text. The place filter
// (the filter bar's "Place", or a click on a place of the legend) keeps exactly the ranks the injected fault puts
// in that place, and fades the others on the grid.
// LIVE_HANG_SCREENSHOT=PREFIX also saves PREFIX-skip.png, PREFIX-die.png, PREFIX-host.png and PREFIX-skip-place.png.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {axeSource, eventually, getJson, launchBrowser, meshscope, postEvents, spawnSync, startServe, tempDir} from
  './harness.mjs';

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

// The palette variable of a standing (docs/records-hang.md, "The hang map"): waiting takes its dim's colour (ep, dp, cp
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

// The ranks each fault puts in one place, worked out from facts.json, never from the collector: skip: the rest of
// the skipped ep group waits in its collective; die: the rank that died has no record; host: the rank in host code
// stands outside collectives. The place's text (the choice) is the collector's.
function faultPlace(job, summary) {
  const {fault, ep} = facts[job];
  if (job === 'skip') {
    const place = summary.hang.places.find((p) => p.standing === 'waiting' && p.dim === fault.dim
      && p.seq === fault.seq);
    assert.ok(place, `a place waiting in ${fault.dim} seq ${fault.seq}: ${JSON.stringify(summary.hang.places)}`);
    const ranks = [];
    for (let r = ep * fault.group; r < ep * (fault.group + 1); ++r) if (r !== fault.rank) ranks.push(r);
    return {text: place.text, ranks};
  }
  const place = summary.hang.places.find((p) => p.standing === fault.cause);
  assert.ok(place, `a place ${fault.cause}`);
  return {text: place.text, ranks: [fault.rank]};
}

// The ranks the list holds (its model, and the rows drawn), and its heading.
async function listed(page) {
  return page.evaluate(() => ({
    ranks: [...window.meshscopeLive.rankList.ranks],
    shown: [...document.querySelectorAll('.rank-list [role="option"]')].map((o) => Number(o.dataset.rank)),
    heading: document.getElementById('ranks-heading').textContent,
  }));
}

// The list holds exactly `ranks`; the grid keeps their fills (full) and fades every other rank's.
async function checkKept(page, job, ranks, fullFills) {
  const want = {ranks, shown: ranks, heading: `Ranks (${ranks.length} of 16 match)`};
  await eventually(async () => JSON.stringify(await listed(page)) === JSON.stringify(want), {
    describe: async () => `${job}: want ${JSON.stringify(want)}, list ${JSON.stringify(await listed(page))}`,
  });
  await eventually(async () => {
    const cells = await cellPixels(page);
    return cells.every((c, r) => (ranks.includes(r) ? c.fill === fullFills[r] : c.fill !== fullFills[r]));
  }, {describe: async () => `${job}: kept ${ranks}, want ${fullFills}, grid ${JSON.stringify(await cellPixels(page))}`});
}

async function checkAllBack(page, job) {
  await eventually(async () => (await listed(page)).ranks.length === 16, {
    describe: async () => `${job}: list ${JSON.stringify(await listed(page))}`,
  });
  assert.equal(await page.textContent('#ranks-heading'), 'Ranks (16)');
}

for (const job of jobs) {
  test(`${job}: the place filter keeps the ranks the fault put in that place; any place brings all back`, async () => {
    const {page} = browser;
    const {summary, ranks} = await openJob(page, job);
    const {fills} = await expectedCells(page, ranks);
    await checkSummary(page, job, summary);
    const expected = faultPlace(job, summary);
    // The choices: the summary's places, then the root cause when one is named.
    const choices = await page.$$eval('#place-filter option', (options) => options.map((o) => o.value));
    assert.deepEqual(choices, ['', ...summary.hang.places.map((p) => p.text),
      ...(summary.hang.root_cause.length ? ['root cause'] : [])]);
    assert.equal(await page.isVisible('#place-filter'), true);
    await page.selectOption('#place-filter', expected.text);
    await checkKept(page, job, expected.ranks, fills);
    assert.equal(await page.isEnabled('#clear-filters'), true);
    await page.selectOption('#place-filter', '');
    await checkAllBack(page, job);
    assert.deepEqual(browser.errors, []);
  });
}

test('skip: a click on a legend place keeps its ranks, a second click all; the root cause keeps rank 13', async () => {
  const {page} = browser;
  await page.setViewportSize({width: 1400, height: 860});
  const {summary, ranks} = await openJob(page, 'skip');
  await page.reload();  // a fresh page: no rank selected by the tests before
  const {fills} = await expectedCells(page, ranks);
  await checkSummary(page, 'skip', summary);
  const expected = faultPlace('skip', summary);
  const button = `.legend button[data-place="${expected.text}"]`;
  assert.equal(await page.getAttribute(button, 'aria-pressed'), 'false');
  await page.click(button);
  await checkKept(page, 'skip', expected.ranks, fills);
  assert.equal(await page.getAttribute(button, 'aria-pressed'), 'true');
  assert.equal(await page.inputValue('#place-filter'), expected.text);
  if (process.env.LIVE_HANG_SCREENSHOT) {
    await page.screenshot({path: `${process.env.LIVE_HANG_SCREENSHOT}-skip-place.png`});
  }
  await page.click(button);
  await checkAllBack(page, 'skip');
  assert.equal(await page.getAttribute(button, 'aria-pressed'), 'false');
  assert.equal(await page.inputValue('#place-filter'), '');
  // The root cause: the rank that skipped its collective; Clear drops the choice.
  await page.click('.legend button[data-place="root cause"]');
  await checkKept(page, 'skip', [facts.skip.fault.rank], fills);
  assert.equal(await page.inputValue('#place-filter'), 'root cause');
  await page.click('#clear-filters');
  await checkAllBack(page, 'skip');
  // By keyboard: the legend's places are buttons.
  await page.focus(button);
  await page.keyboard.press('Enter');
  await checkKept(page, 'skip', expected.ranks, fills);
  await page.keyboard.press('Space');
  await checkAllBack(page, 'skip');
  assert.deepEqual(browser.errors, []);
});

// A link to a job's place (`#/live/JOB?place=TEXT`, what a colleague pastes during an incident) opens the job with
// that place kept; choosing another place, or any, rewrites the link; a place the job does not have is said on the
// status line, and every rank stays listed.
test('skip: a link with a place keeps its ranks; the link follows the choice; an unknown place is said', async () => {
  const {page} = browser;
  const summary = (await getJson(serve.url, '/api/v1/jobs/skip')).body;
  const ranks = (await getJson(serve.url, '/api/v1/jobs/skip/ranks')).body.ranks;
  const expected = faultPlace('skip', summary);
  await page.goto('about:blank');
  await page.goto(`${serve.url}/#/live/skip?place=${encodeURIComponent(expected.text)}`);
  const {fills} = await expectedCells(page, ranks);
  await checkKept(page, 'skip', expected.ranks, fills);
  assert.equal(await page.inputValue('#place-filter'), expected.text);
  // The root cause by the legend: the link names it, and a rank opened keeps it.
  await page.click('.legend button[data-place="root cause"]');
  await checkKept(page, 'skip', [facts.skip.fault.rank], fills);
  const linked = () => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.split('?')[1] ?? '')));
  assert.deepEqual(await linked(), {place: 'root cause'});
  await page.click(`.rank-list [role="option"][data-rank="${facts.skip.fault.rank}"]`);
  await eventually(async () => JSON.stringify(await linked())
    === JSON.stringify({rank: String(facts.skip.fault.rank), place: 'root cause'}), {
    describe: async () => `link ${JSON.stringify(await linked())}`,
  });
  assert.equal(await page.inputValue('#place-filter'), 'root cause');
  // Any place: the link has none.
  await page.selectOption('#place-filter', '');
  await checkAllBack(page, 'skip');
  assert.deepEqual(await linked(), {rank: String(facts.skip.fault.rank)});
  // A place the job's hang does not have: said, with the job's places, and nothing filtered.
  await page.goto('about:blank');
  await page.goto(`${serve.url}/#/live/skip?place=nowhere`);
  const places = [...summary.hang.places.map((p) => p.text), 'root cause'].map((p) => `"${p}"`).join(', ');
  const said = `The link's place "nowhere" is not a place of skip's hang; its places are ${places}`;
  await eventually(async () => (await page.textContent('#live-status')) === said, {
    describe: async () => `status ${await page.textContent('#live-status')}`,
  });
  assert.equal(await page.getAttribute('#live-status', 'title'), said);  // the whole sentence where the line cuts it
  assert.equal(await page.inputValue('#place-filter'), '');
  assert.equal((await listed(page)).ranks.length, 16);
  assert.deepEqual(browser.errors, []);
});

test('a job without records has no place to choose', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/skip`);
  await eventually(async () => (await page.$$('#place-filter option')).length > 1);
  // A job that only reports start-up events: no hang, so no Place filter.
  await postEvents(serve.url, [0, 1].map((rank) => ({job: 'plain', rank, world_size: 2, host: 'node-0', local_rank: rank,
    ts: 1000, phase: 'launch', status: 'started'})));
  await page.goto(`${serve.url}/#/live/plain`);
  await eventually(async () => (await page.textContent('#progress-heading')) === 'Progress'
    && (await page.$$('.rank-list [role="option"]')).length === 2);
  assert.equal(await page.isHidden('#place-filter'), true);
  assert.deepEqual(await page.$$eval('#place-filter option', (o) => o.map((x) => x.value)), ['']);
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
  // Every rank of the healthy job is outside collectives: that place keeps all 16.
  assert.deepEqual(healthy.places.map((p) => [p.standing, p.ranks]), [['outside_collectives', 16]]);
  await page.selectOption('#place-filter', healthy.places[0].text);
  await eventually(async () => (await page.textContent('#ranks-heading')) === 'Ranks (16 of 16 match)');
  importJob('skip', 'late');
  const summary = (await getJson(serve.url, '/api/v1/jobs/late')).body;
  const ranks = (await getJson(serve.url, '/api/v1/jobs/late/ranks')).body.ranks;
  await eventually(async () => (await page.textContent('#hang-headline')) === summary.hang.text, {
    describe: async () => `headline ${await page.textContent('#hang-headline')}`,
  });
  // The skip job has no rank outside collectives: the choice is dropped, every rank listed and drawn in full.
  assert.ok(!summary.hang.places.some((p) => p.standing === 'outside_collectives'));
  await eventually(async () => (await page.inputValue('#place-filter')) === ''
    && (await page.textContent('#ranks-heading')) === 'Ranks (16)');
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
