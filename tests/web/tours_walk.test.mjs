// Chromium walks two tours of the web dashboard to their end by doing their tasks on
// the real pages (expert-mesh on the Planner, singleton-pitfall in the sandbox), against a real
// `meshscope serve`; a wrong answer shows core's message and the step's hint; progress survives a reload and
// "Resume at step K" goes back to the step reached; the live tour starts its job inside the collector.
// The answers are worked by hand from docs/domain.md (dp 8, cp 2, ep 2: rank 5 sits at (0, 1, 0, 1), its ep
// group is [5, 7], its efsdp group [1, 5, 9, 13]; FSDPTurbo's singleton and its three fixes).
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, getJson, launchBrowser, startServe, tempDir} from './harness.mjs';
import {doTask, waitStep, waitVerdict} from './tours_support.mjs';

const token = 'walk-token';
let dir;
let serve;
let browser;
let page;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db'), args: ['--token', token]});
  browser = await launchBrowser();
  page = browser.page;
  // (about:blank has no storage of its own.)
  await page.addInitScript((t) => {
    if (location.protocol === 'http:') sessionStorage.setItem('meshscope.token', t);
  }, token);
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

async function tourFile(name) {
  const {status, body} = await getJson(serve.url, `/api/v1/tours/${name}`, token);
  assert.equal(status, 200);
  return body;
}

async function startFromList(name, label) {
  await page.goto('about:blank');
  await page.goto(`${serve.url}/#/tours`);
  const button = page.locator(`.tour-item[data-tour="${name}"] .tour-start`);
  await eventually(async () => (await button.textContent().catch(() => '')) === label,
    {describe: async () => `${name}'s button reads ${await button.textContent().catch(() => '(none)')}`});
  await button.click();
}

// Steps' answers, worked by hand; the page each is given on comes from the step's own view.
const expertMesh = {
  2: {choice: 1},                                           // rank 13 = 3 × 4 + 0 × 2 + 1: (0, 3, 0, 1)
  3: {rank: 7},                                             // ep group [5, 7]
  4: {rank: 9},                                             // efsdp group [1, 5, 9, 13]
  5: {number: 4},                                           // 16 ranks / efsdp 4
  6: {number: 2},                                           // ep 8 with cp 2: [0, 2, .., 14], [1, 3, .., 15], both on 2 nodes
  7: {layout: {dp: 16, cp: 1, ep: 8, gpus_per_node: 8}},    // cp 1: ep groups [0..7], [8..15]
};
const init = (ep) => ({op: 'initialize', dp: 16, cp: 1, ep});
const singletonPitfall = {
  2: {sandbox: [init(2)]},
  3: {sandbox: [init(4)]},                                  // RuntimeError: (16, 1, 2) then (16, 1, 4)
  4: {sandbox: [init(3)]},                                  // ValueError: 16 % 3 != 0
  5: {sandbox: [init(2), init(4), {op: 'relaunch'}, init(4)]},
  6: {sandbox: [init(2), init(4), {op: 'reset'}, init(4)]},
  7: {sandbox: [init(2), init(2)]},                         // unchanged
};

async function walk(name, answers, {from = 1} = {}) {
  const tour = await tourFile(name);
  for (let k = from; k <= tour.steps.length; ++k) {
    const step = tour.steps[k - 1];
    await waitStep(page, k, step.title);
    if (step.anchor) {
      await eventually(async () => (await page.locator('[data-tour-highlight="true"]').getAttribute('data-anchor')
        .catch(() => null)) === step.anchor, {describe: () => `step ${k}: highlight on ${step.anchor}`});
    }
    if (step.task) {
      assert.ok(await page.locator('.tour-next').isDisabled(), `step ${k}: Next waits for a right answer`);
      assert.ok(answers[k], `step ${k} of ${name} has an answer in the table`);
      const where = step.view.page === 'live' ? 'live' : step.view.page;
      await doTask(page, answers[k], where === 'planner' || where === 'peers' || where === 'live' ? where : 'panel');
      const verdict = await eventually(async () => {
        const how = await page.locator('#tour-verdict').getAttribute('data-verdict');
        return how === 'right' ? page.locator('#tour-verdict').textContent() : null;
      }, {describe: async () => `step ${k}: ${await page.locator('#tour-verdict').textContent()}`});
      assert.ok(verdict.startsWith('Right: '), `step ${k}: ${verdict}`);
      assert.ok(await page.locator('.tour-next').isEnabled());
    }
    await page.click('.tour-next');
  }
  // Finished: back on the list, which says so.
  await eventually(async () => page.url().endsWith('#/tours'));
  await eventually(async () => (await page.locator(`.tour-item[data-tour="${name}"] .tour-meta`).textContent()
    .catch(() => '')).endsWith('finished'));
  assert.equal(await page.locator('#tour-panel').isHidden(), true);
}

test('expert-mesh: a wrong rank gets core\'s reason and the hint; then the tour is walked to its end', async () => {
  await startFromList('expert-mesh', 'Start');
  const tour = await tourFile('expert-mesh');
  // Step 1 routes to the Planner with the step's view: dp 8, cp 2, ep 2, rank 5.
  await waitStep(page, 1, tour.steps[0].title);
  await eventually(async () => (await page.locator('#planner-inspector-heading').textContent()) === 'Rank 5');
  assert.equal(await page.inputValue('#planner-dp'), '8');
  assert.equal(await page.inputValue('#planner-cp'), '2');
  assert.equal(await page.inputValue('#planner-ep'), '2');
  await page.click('.tour-next');
  await waitStep(page, 2, tour.steps[1].title);
  await doTask(page, expertMesh[2], 'panel');
  await waitVerdict(page);
  await page.click('.tour-next');
  await waitStep(page, 3, tour.steps[2].title);
  // Rank 4 is not in rank 5's ep group: core says whose group the click was, never the answer.
  await doTask(page, {rank: 4}, 'planner');
  const wrong = await waitVerdict(page);
  assert.deepEqual(wrong, {how: 'wrong', text: 'rank 4\'s ep group is [4, 6]; it does not contain rank 5.'});
  assert.equal(await page.locator('.tour-hint').textContent(), `Hint: ${tour.steps[2].task.hint}`);
  assert.ok(await page.locator('.tour-next').isDisabled());
  assert.equal(await page.inputValue('#tour-answer-input'), '4', 'the clicked rank is the answer shown');
  await walk('expert-mesh', expertMesh, {from: 3});
  assert.deepEqual(browser.errors, []);
});

test('progress: a reload comes back to the step, and the list resumes at the step reached', async () => {
  const tour = await tourFile('expert-mesh');
  await startFromList('expert-mesh', 'Start');  // finished before: starts again
  await waitStep(page, 1, tour.steps[0].title);
  await page.click('.tour-next');
  await waitStep(page, 2, tour.steps[1].title);
  await doTask(page, expertMesh[2], 'panel');
  await waitVerdict(page);
  await page.click('.tour-next');
  await waitStep(page, 3, tour.steps[2].title);
  await page.reload();
  await waitStep(page, 3, tour.steps[2].title);
  await page.click('.tour-leave');
  assert.equal(await page.locator('#tour-panel').isHidden(), true);
  // A new tab: nothing of this tab's session, only what the browser keeps (localStorage).
  const other = await browser.context.newPage();
  await other.addInitScript((t) => {
    if (location.protocol === 'http:') sessionStorage.setItem('meshscope.token', t);
  }, token);
  await other.goto(`${serve.url}/#/tours`);
  const button = other.locator('.tour-item[data-tour="expert-mesh"] .tour-start');
  await eventually(async () => (await button.textContent().catch(() => '')) === 'Resume at step 3');
  await button.click();
  await eventually(async () => (await other.locator('#tour-step-title').textContent().catch(() => '')) ===
    tour.steps[2].title);
  // Steps before the one reached count as solved: Back, then Next is open.
  await other.click('.tour-back');
  await eventually(async () => (await other.locator('.tour-count').getAttribute('data-step')) === '2');
  assert.ok(await other.locator('.tour-next').isEnabled());
  await other.click('.tour-leave');
  await other.close();
});

test('singleton-pitfall: the error, its finding in core\'s words and the three fixes, walked in the sandbox', async () => {
  await startFromList('singleton-pitfall', 'Start');
  const tour = await tourFile('singleton-pitfall');
  await waitStep(page, 1, tour.steps[0].title);
  await eventually(async () => page.url().endsWith('#/sandbox'));
  // Step 3 answered wrong first: a second initialize with the same ep is unchanged, not the RuntimeError.
  await page.click('.tour-next');
  await waitStep(page, 2, tour.steps[1].title);
  await doTask(page, singletonPitfall[2], 'sandbox');
  await waitVerdict(page);
  await page.click('.tour-next');
  await waitStep(page, 3, tour.steps[2].title);
  await doTask(page, {sandbox: [init(2)]}, 'sandbox');
  const wrong = await waitVerdict(page);
  assert.equal(wrong.how, 'wrong');
  assert.equal(wrong.text, 'the last call\'s outcome is unchanged, not RuntimeError.');
  await doTask(page, singletonPitfall[3], 'sandbox');
  await eventually(async () => (await page.locator('#tour-verdict').getAttribute('data-verdict')) === 'right');
  await page.click('.tour-next');
  await walk('singleton-pitfall', singletonPitfall, {from: 4});
  assert.deepEqual(browser.errors, []);
});

test('the finding a step quotes is core\'s text', async () => {
  const tour = await tourFile('singleton-pitfall');
  const k = tour.steps.findIndex((s) => s.finding_text === 'reinit_mismatch') + 1;
  assert.ok(k > 0);
  await startFromList('singleton-pitfall', 'Start');
  await waitStep(page, 1, tour.steps[0].title);
  await page.evaluate((step) => sessionStorage.setItem('meshscope.tours.active',
    JSON.stringify({name: 'singleton-pitfall', step})), k);
  await page.reload();
  await waitStep(page, k, tour.steps[k - 1].title);
  const {body} = await getJson(serve.url, `/api/v1/tours/singleton-pitfall/steps/${k}`, token);
  assert.equal(body.finding.kind, 'reinit_mismatch');
  assert.equal(await page.locator('.tour-finding-message').textContent(), body.finding.message);
  assert.ok(body.finding.message.includes('(16, 1, 2)') && body.finding.message.includes('(16, 1, 4)'),
    body.finding.message);
  await page.click('.tour-leave');
});

test('the live tour runs its job inside the collector and opens it', async () => {
  await startFromList('live-job', 'Start');
  const tour = await tourFile('live-job');
  await waitStep(page, 1, tour.steps[0].title);
  await eventually(async () => page.url().endsWith('#/live/tour-live-job'));
  // Its ranks report (all but the one the missing_rank fault keeps away).
  const world = tour.steps[0].view.simulate.dp * tour.steps[0].view.simulate.cp;
  await eventually(async () => (await getJson(serve.url, '/api/v1/jobs/tour-live-job', token)).body.ranks_seen === world - 1,
    {timeout: 30000});
  await eventually(async () => (await page.locator('.job[aria-current="true"] .job-name').textContent()
    .catch(() => '')) === 'tour-live-job');
  await page.click('.tour-leave');
  assert.deepEqual(browser.errors, []);
});

// "read-a-hang": real torch jobs' records, imported by the collector for each step's view; the culprits are the
// faults those jobs injected (resources/hang-jobs/*/facts.json): rank 13 skipped an all_to_all, rank 2 died,
// rank 9 hung in host code; the command to run is py-spy on the culprit (option 2).
test('read-a-hang: each job\'s records are imported and its culprit is the injected fault', async () => {
  await startFromList('read-a-hang', 'Start');
  await eventually(async () => page.url().endsWith('#/live/tour-read-a-hang'));
  await eventually(async () => JSON.stringify((await getJson(serve.url, '/api/v1/jobs/tour-read-a-hang', token)).body
    .hang?.root_cause) === '[13]', {timeout: 30000});
  await walk('read-a-hang', {2: {rank: 13}, 3: {choice: 2}, 4: {rank: 2}, 5: {rank: 9}});
  assert.deepEqual(browser.errors, []);
});
