// The teaching mode's pages in real Chromium against a real `meshscope serve`: every anchor docs/tours.md
// lists exists on its page, axe-core finds no serious or critical violation on the Tours, sandbox and peers
// pages nor on a tour step, the sandbox shows core's outcomes (FSDPTurbo's exact RuntimeError), the peers view
// shows each framework's ep groups with a chosen rank's group in all three, and hostile text in a tour or an
// answer reaches the page as text only. TOURS_SCREENSHOTS=DIR saves a tour step, the sandbox and the peers
// page as PNGs there.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {readFileSync} from 'node:fs';
import {join} from 'node:path';
import {axeSource, eventually, launchBrowser, startServe, tempDir} from './harness.mjs';
import {documentedAnchors, sandboxCall, waitStep} from './tours_support.mjs';

const token = 'tours-token';
let dir;
let serve;
let browser;
let page;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db'), args: ['--token', token]});
  browser = await launchBrowser();
  page = browser.page;
  // The token as the dialog would keep it (this tab only), before the page's first request.
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

async function open(hash) {
  await page.goto('about:blank');
  await page.goto(`${serve.url}/${hash}`);
  await page.evaluate(() => window.meshscope.routed());
}

async function axe(what) {
  const session = await browser.context.newCDPSession(page);
  await session.send('Runtime.evaluate', {expression: axeSource()});
  const answer = await session.send('Runtime.evaluate', {awaitPromise: true, returnByValue: true,
    expression: 'axe.run(document).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, ' +
      'nodes: v.nodes.map(n => n.target.join(" "))})))'});
  const bad = answer.result.value.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad, [], `serious or critical violations on ${what}`);
}

const screenshots = process.env.TOURS_SCREENSHOTS;
async function shoot(name) {
  if (screenshots) await page.screenshot({path: join(screenshots, name), fullPage: false});
}

test('every anchor of docs/tours.md exists on its page', async () => {
  const anchors = documentedAnchors(readFileSync(new URL('../../docs/tours.md', import.meta.url), 'utf8'));
  assert.equal(anchors.length, 12, `anchors read from the table: ${anchors.join(', ')}`);
  const pages = {planner: '#/plan?dp=8&cp=2&ep=2', live: '#/live', sandbox: '#/sandbox',
    peers: '#/peers?world=16&cp=2&ep=2&gpus_per_node=8'};
  for (const [prefix, hash] of Object.entries(pages)) {
    await open(hash);
    for (const anchor of anchors.filter((a) => a.startsWith(`${prefix}.`))) {
      await page.waitForSelector(`[data-anchor="${anchor}"]`, {state: 'attached'});
    }
  }
  assert.deepEqual(browser.errors, []);
});

test('the sandbox runs on core: the singleton refuses a second topology, reset lets it go', async () => {
  await open('#/sandbox');
  await page.click('.sandbox-clear');
  await eventually(async () => (await page.locator('.sandbox-entry').count()) === 0);
  await sandboxCall(page, {op: 'initialize', dp: 16, cp: 1, ep: 2});
  assert.equal(await page.textContent('.sandbox-state'),
    'State: initialized: (dp, cp, ep) = (16, 1, 2) · efsdp 8 · edp 1');
  await sandboxCall(page, {op: 'initialize', dp: 16, cp: 1, ep: 4});
  // domain.md: the exact RuntimeError, both topologies as Python tuples.
  assert.equal(await page.textContent('.sandbox-last'), 'Last call: initialize(dp=16, cp=1, ep=4) → RuntimeError: ' +
    'FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4).');
  await shoot('sandbox.png');
  await sandboxCall(page, {op: 'reset'});
  await sandboxCall(page, {op: 'initialize', dp: 16, cp: 1, ep: 4});
  assert.equal(await page.textContent('.sandbox-state'),
    'State: initialized: (dp, cp, ep) = (16, 1, 4) · efsdp 4 · edp 1');
  // The history outlives a reload (this tab's process), and core replays it.
  await page.reload();
  await eventually(async () => (await page.locator('.sandbox-entry').count()) === 4);
  assert.deepEqual(await page.locator('.sandbox-entry-outcome').allTextContents(), ['initialized',
    'RuntimeError: FSDPTurbo parallel state is already initialized with (16, 1, 2), got (16, 1, 4).', 'reset',
    'initialized']);
  // A value core cannot take: its message, and the call is not kept.
  await page.fill('#sandbox-dp', 'sixteen');
  await page.click('.sandbox-initialize');
  await eventually(async () => !(await page.locator('.sandbox-error').isHidden()));
  assert.equal(await page.textContent('.sandbox-error'), 'calls[4].dp: expected an integer');
  assert.equal(await page.locator('.sandbox-entry').count(), 4);
  await axe('the sandbox page');
  // The refused call's 400 is logged by the browser as a failed resource: expected here, and only here.
  browser.errors.splice(0, browser.errors.length, ...browser.errors.filter((e) => !e.includes('status of 400')));
});

test('the peers view: three frameworks, groups leaving a node marked, a rank\'s group in all three', async () => {
  await open('#/peers?world=16&cp=2&ep=2&gpus_per_node=8');
  await page.waitForSelector('.peers-column[data-framework="megatron"] .peers-group');
  const titles = await page.locator('.peers-column h2').allTextContents();
  assert.deepEqual(titles, ['FSDPTurbo', 'TorchTitan', 'Megatron-Core']);
  await page.locator('.peers-column[data-framework="fsdpturbo"] button[data-rank="1"]').click();
  // domain.md: W=16, dp=8, cp=2, ep=2 -> LlamaFactory's ep groups [0,2],[1,3],...; TorchTitan's and
  // Megatron's [0,1],[2,3],...: rank 1 is with 3 in FSDPTurbo and with 0 in the other two.
  const chosen = async (framework) => page.locator(`.peers-column[data-framework="${framework}"] ` +
    '.peers-group[data-chosen="true"] .peers-rank').allTextContents();
  assert.deepEqual(await chosen('fsdpturbo'), ['1', '3']);
  assert.deepEqual(await chosen('torchtitan'), ['0', '1']);
  assert.deepEqual(await chosen('megatron'), ['0', '1']);
  assert.ok(page.url().includes('rank=1'), page.url());
  await shoot('peers.png');
  await axe('the peers page');
  // ep across nodes: world 32 on 8 GPUs a node with ep 16 puts every FSDPTurbo ep group across two nodes.
  await open('#/peers?world=32&cp=1&ep=16&gpus_per_node=8');
  await page.waitForSelector('.peers-column[data-framework="fsdpturbo"] .peers-group');
  const leaves = await page.locator('.peers-column[data-framework="fsdpturbo"] .peers-group')
    .evaluateAll((groups) => groups.map((g) => g.dataset.leavesNode));
  assert.deepEqual(leaves, ['true', 'true']);
  assert.deepEqual(browser.errors, []);
});

test('axe-core: the Tours page and a tour step', async () => {
  await open('#/tours');
  await page.waitForSelector('.tour-item .tour-start');
  assert.equal(await page.locator('.tour-item').count(), 7);
  await axe('the Tours page');
  await page.click('.tour-item[data-tour="expert-mesh"] .tour-start');
  await waitStep(page, 1, await page.evaluate(async () => (await (await fetch('/api/v1/tours/expert-mesh', {headers:
    {Authorization: `Bearer ${sessionStorage.getItem('meshscope.token')}`}})).json()).steps[0].title));
  await page.waitForSelector('[data-tour-highlight="true"]', {state: 'attached'}).catch(() => {});
  await shoot('tour-step.png');
  await axe('a tour step over the Planner');
  await page.click('.tour-leave');
  assert.equal(await page.locator('#tour-panel').isHidden(), true);
});

test('hostile text in a tour and in core\'s message is shown as text, never as HTML', async () => {
  const hostile = '<img src=x onerror="window.hacked=1"><script>window.hacked=2</script>\u202E&amp;';
  // The collector's answers for one tour, replaced on the wire: what a tampered file would bring.
  const tour = {schema: 'meshscope.tour/1', name: 'expert-mesh', title: hostile, summary: hostile, steps: [{
    title: hostile, text: `${hostile}\n\n${hostile}`, view: {page: 'planner'}, anchor: 'planner.grid',
    task: {prompt: hostile, hint: hostile, check: {kind: 'choice', options: [hostile, 'b'], correct: 1}}}]};
  await page.route('**/api/v1/tours/expert-mesh', (route) => route.fulfill({status: 200,
    contentType: 'application/json', body: JSON.stringify(tour)}));
  await page.route('**/api/v1/tours/expert-mesh/steps/1/check', (route) => route.fulfill({status: 200,
    contentType: 'application/json', body: JSON.stringify({correct: false, message: hostile})}));
  try {
    await open('#/tours');
    await page.evaluate(() => sessionStorage.removeItem('meshscope.tours.active'));
    await page.click('.tour-item[data-tour="expert-mesh"] .tour-start');
    await eventually(async () => (await page.locator('#tour-step-title').textContent().catch(() => '')) === hostile);
    await page.check('#tour-choice-0');
    await page.click('.tour-check');
    await eventually(async () => (await page.locator('#tour-verdict').textContent()) === hostile);
    assert.equal(await page.locator('.tour-hint').textContent(), `Hint: ${hostile}`);
    assert.equal(await page.evaluate(() => document.querySelectorAll('#tour-panel img, #tour-panel script').length), 0);
    assert.equal(await page.evaluate(() => window.hacked), undefined);
    assert.equal(await page.locator('.tour-text').count(), 2);
    await page.click('.tour-leave');
  } finally {
    await page.unrouteAll();
  }
});
