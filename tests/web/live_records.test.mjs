// `meshscope import` into a collector: the Live page lists the imported findings like the hook's, each with the
// line "From: ..." naming the records it was read from, exactly as the collector's JSON gives it (core's words,
// not retyped here); a hook finding in the same job has no such line; hostile text from a file stays text. A job the
// collector reads from NCCL RAS itself (`meshscope serve --ras`, against tests/cli's fake RAS server) shows its
// diagnosis live, with no hook, and then that its RAS went away.
// LIVE_RECORDS_SCREENSHOT=FILE also saves a screenshot of the page.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {spawn} from 'node:child_process';
import {createInterface} from 'node:readline';
import {eventually, getJson, launchBrowser, meshscope, postEvents, spawnSync, startServe, tempDir}
  from './harness.mjs';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'records', 'fixtures');
let dir;
let serve;
let browser;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db')});
  // Rank 0 reports through the hook that it failed: a hook finding beside the imported ones.
  await postEvents(serve.url, [{schema: 'meshscope.event/1', job: 'records', rank: 0, world_size: 8, phase: 'launch',
    status: 'failed'}]);
  const run = spawnSync(meshscope, ['import', 'fr/skip/json', 'nccl-logs/v2.29-per-rank', '--dp', '8', '--ep', '4',
    '--target', serve.url, '--job', 'records'], {cwd: fixtures, encoding: 'utf8'});
  assert.equal(run.status, 0, run.stderr);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

test('each imported finding shows the collector\'s "From:" line; the hook\'s shows none', async () => {
  const {page} = browser;
  await page.setViewportSize({width: 1400, height: 900});
  await page.goto(`${serve.url}/#/live/records`);
  const {body} = await getJson(serve.url, '/api/v1/jobs/records/findings');
  const expected = body.findings.map((f) => ({kind: f.kind, message: f.message, from: f.from ?? ''}));
  // Five read from the records (the verdict, two communicators not in the plan, two stuck collectives), one from
  // the hook; the verdict first: rank 6 skipped its ep group's all_reduce (tests/records/make_fr_fixtures.py).
  assert.equal(expected.filter((f) => f.from.startsWith('From: ')).length, 5);
  assert.equal(expected.filter((f) => f.from === '').length, 1);
  assert.equal(expected[0].kind, 'verdict');
  assert.ok(expected[0].message.startsWith('rank 6 skipped ep group 1\'s all_reduce at seq 2'), expected[0].message);
  const shown = () => page.$$eval('.finding', (buttons) => buttons.map((b) => ({
    kind: b.dataset.kind,
    message: b.querySelector('.finding-message').textContent,
    from: b.querySelector('.finding-from')?.textContent ?? '',
  })));
  await eventually(async () => JSON.stringify(await shown()) === JSON.stringify(expected), {
    describe: async () => `collector ${JSON.stringify(expected)}, page ${JSON.stringify(await shown())}`,
  });
  // The ep group's stuck collective comes from rank 6's dump, named as the import was given it.
  const stuck = expected.find((f) => f.kind === 'collective_stuck' && f.message.startsWith('the ep group 1'));
  assert.equal(stuck.from, 'From: fr/skip/json/nccl_trace_rank_6.json');
  if (process.env.LIVE_RECORDS_SCREENSHOT) await page.screenshot({path: process.env.LIVE_RECORDS_SCREENSHOT});
  assert.deepEqual(browser.errors, []);
});

test('hostile strings from records stay text', async () => {
  const {page} = browser;
  const hostile = '<img src=x onerror="window.pwned=1">';
  const doc = {format: 'meshscope.records/1', findings: [{kind: 'rank_error', ranks: [1], message: hostile,
    sources: [`${hostile}.log:1`]}]};
  const response = await fetch(`${serve.url}/api/v1/jobs/hostile/records`, {method: 'POST',
    body: JSON.stringify(doc), headers: {'Content-Type': 'application/json'}});
  assert.equal(response.status, 200);
  await page.goto(`${serve.url}/#/live/hostile`);
  await eventually(async () => (await page.$$('.finding-from')).length === 1);
  assert.equal(await page.textContent('.finding-from'), `From: ${hostile}.log:1`);
  assert.equal(await page.textContent('.finding-message'), hostile);
  assert.equal(await page.$$eval('.finding img', (images) => images.length), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
});

test('a job read from NCCL RAS by the collector is live on the page, with no hook', async () => {
  const {page} = browser;
  // The fake RAS server of tests/cli, answering VERBOSE STATUS with the committed status (it prints its port).
  const ras = spawn('python3', [path.join(fixtures, '..', '..', 'cli', 'fake_ras_server.py'), '--json',
    path.join(fixtures, 'ras', 'status.json')], {stdio: ['ignore', 'pipe', 'inherit']});
  const port = Number(await new Promise((resolve) => createInterface({input: ras.stdout}).once('line', resolve)));
  const where = `127.0.0.1:${port}`;
  const polled = await startServe({db: dir.file('ras.db'), args: ['--ras', where, '--ras-job', 'rasjob',
    '--ras-interval', '0.2', '--dp', '8', '--ep', '4']});
  try {
    await page.goto(`${polled.url}/#/live/rasjob`);
    const shown = () => page.$$eval('.finding', (buttons) => buttons.map((b) => ({
      kind: b.dataset.kind,
      message: b.querySelector('.finding-message').textContent,
      from: b.querySelector('.finding-from')?.textContent ?? '',
    })));
    const collector = async () => (await getJson(polled.url, '/api/v1/jobs/rasjob/findings')).body.findings
      .map((f) => ({kind: f.kind, message: f.message, from: f.from ?? ''}));
    // RAS's three faults (tests/records/fixtures/ras/README.md), each from the RAS address, under their verdict:
    // the dead rank 6, on which the others wait.
    await eventually(async () => {
      const expected = await collector();
      return expected.length === 4 && JSON.stringify(await shown()) === JSON.stringify(expected);
    }, {describe: async () => `collector ${JSON.stringify(await collector())}, page ${JSON.stringify(await shown())}`});
    assert.deepEqual((await shown()).map((f) => [f.kind, f.from]), [['verdict', `From: ${where}`],
      ['communicator_not_formed', `From: ${where}`], ['collective_stuck', `From: ${where}`],
      ['peer_unreachable', `From: ${where}`]]);
    assert.ok((await shown())[0].message.startsWith('rank 6 (node1 pid 41006) is dead'), (await shown())[0].message);
    // The job's RAS goes away: the page shows the collector's finding about it in place of the diagnosis.
    const gone = new Promise((resolve) => ras.once('exit', resolve));
    ras.kill();
    await gone;
    const message = `the collector cannot read NCCL RAS at ${where}: cannot connect to ${where}: Connection refused`;
    await eventually(async () => JSON.stringify(await shown()) ===
      JSON.stringify([{kind: 'peer_unreachable', message, from: `From: ${where}`}]),
    {describe: async () => JSON.stringify(await shown())});
    assert.deepEqual(browser.errors, []);
  } finally {
    ras.kill();
    await polled.stop();
  }
});
