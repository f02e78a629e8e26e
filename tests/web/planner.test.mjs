// The Planner in real Chromium (Debian's, driven by playwright-core) against a real `meshscope serve`: core's
// exact message and hint for invalid input and the suggestions that fix it, a deep link that opens exactly
// that selection, the exports equal to `meshscope plan --format ...`'s bytes, keyboard-only use, axe-core with
// zero serious or critical violations, a well-formed SVG export, and a 131,072-rank grid.
// PLANNER_SCREENSHOT=FILE also saves a screenshot of the page (docs/images/web-planner.png).
import {test, before, after} from 'node:test';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import {axeSource, eventually, launchBrowser, meshscope, startServe, tempDir} from './harness.mjs';

let dir;
let serve;
let browser;
let page;
let base;

before(async () => {
  dir = tempDir();
  // No token: the plan routes take it like every /api/ route (tests/server/tst_plan_api.cpp); the shell's token
  // dialog and stream are web-live's and web-server's tests.
  serve = await startServe({db: dir.file('h.db')});
  browser = await launchBrowser();
  page = browser.page;
  base = `${serve.url}/`;
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

function equal(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
function ok(condition, what) {
  if (!condition) throw new Error(what);
}
async function open(hash) {
  await page.goto('about:blank');
  await page.goto(`${base}${hash}`);
}
const text = (selector) => page.locator(selector).first().textContent();
const waitText = (selector, expected) => eventually(async () => (await page.locator(selector).first().textContent()
  .catch(() => null)) === expected, {describe: async () => `${selector}: ${await page.locator(selector).first()
  .textContent().catch(() => '(none)')}, wanted ${expected}`});
const state = () => page.evaluate(async () => {
  const s = (await import('/planner/planner_page.js')).debugState();
  return {selected: s.selected, mesh: s.mesh, world: s.plan && s.plan.topology.world};
});
const binary = meshscope;

test('invalid ep shows the core message, the CLI hint and suggestions that fix it', async () => {
  await open('#/plan?dp=16&ep=3');
  await waitText('.planner-error-message', 'dp_size must be divisible by ep_size, got 16 % 3 != 0.');
  equal(await text('.planner-error-hint'), 'hint: ep must divide dp = 16; valid ep: 1, 2, 4, 8, 16', 'hint');
  equal(await page.locator('#planner-ep').getAttribute('aria-invalid'), 'true', 'ep marked invalid');
  equal((await page.locator('.planner-suggestion').allTextContents()).join(' '), '1 2 4 8 16', 'suggestions');
  await page.getByRole('button', {name: 'Set ep to 4'}).click();
  await page.waitForSelector('.planner-error', {state: 'hidden'});
  await waitText('.planner-summary p', '(dp, cp, ep) = (16, 1, 4) · world 16 = dp 16 × cp 1');
  ok(!(await page.locator('#planner-ep').getAttribute('aria-invalid')), 'ep no longer invalid');
});

test('typing a bad cp shows its message while the last valid plan stays', async () => {
  await open('#/plan?world=16&ep=2');
  await waitText('.planner-summary p', '(dp, cp, ep) = (16, 1, 2) · world 16 = dp 16 × cp 1');
  await page.fill('#planner-cp', '3');
  await waitText('.planner-error-message', 'world_size (16) must be divisible by cp_size (3).');
  equal(await text('.planner-error-hint'), 'hint: cp must divide world = 16; valid cp: 1, 2, 4, 8, 16', 'hint');
  equal(await text('.planner-kept'),
    'The grid still shows the last valid plan, (dp, cp, ep) = (16, 1, 2) · world 16 = dp 16 × cp 1.', 'kept');
  await page.fill('#planner-gpus_per_node', '0');
  await page.fill('#planner-cp', '1');
  await waitText('.planner-error-message', 'gpus_per_node must be positive, got 0.');
  equal(await text('.planner-error-hint'), 'hint: --gpus-per-node is a positive integer (8 on H100/H200 nodes)', 'hint');
});

test('hostile input comes back in the message as text, never as markup', async () => {
  await open('#/plan?world=16&ep=2');
  await waitText('.planner-summary p', '(dp, cp, ep) = (16, 1, 2) · world 16 = dp 16 × cp 1');
  const hostile = '<img src=x onerror="window.hacked=1">\u202E</script>';
  await page.fill('#planner-world', hostile);
  await waitText('.planner-error-message', `world expects an integer, got '${hostile}'.`);
  equal(await page.evaluate(() => document.querySelectorAll('.planner-page img, .planner-page script').length), 0,
    'no element made from the text');
  equal(await page.evaluate(() => window.hacked), undefined, 'nothing ran');
});

test('a deep link opens exactly that plan, mesh and rank', async () => {
  await open('#/plan?dp=8&cp=2&ep=2&world=16&gpus_per_node=8&order=torch29&rank=5');
  await waitText('#planner-inspector-heading', 'Rank 5');
  const s = await state();
  equal(s.selected, 5, 'selected rank');
  equal(s.mesh, 'expert', 'mesh shown');
  equal(s.world, 16, 'world');
  const facts = await page.locator('.planner-facts dd').allTextContents();
  equal(facts.join(' | '), '0 | 5 | (mp_replicate 0, mp_shard 5) | (dp 2, cp 1) | (edp 0, efsdp 1, ep 0, expert_cp 1)', 'rank facts');
  // domain.md: rank 5's ep group is [5, 7], its expert_cp group [4, 5]; efsdp [1, 5, 9, 13] crosses to node 1.
  const group = (dim) => page.locator(`.planner-group[data-dim="${dim}"]`).first();
  equal(await group('ep').locator('.planner-members').textContent(), '[5, 7]', 'ep members');
  equal(await group('expert_cp').locator('.planner-members').textContent(), '[4, 5]', 'expert_cp members');
  equal(await group('efsdp').locator('.planner-members').textContent(), '[1, 5, 9, 13]', 'efsdp members');
  equal(await group('efsdp').locator('[data-leaves-node]').textContent(), 'leaves the node: spans 2 nodes', 'efsdp flag');
  equal(await group('ep').locator('[data-leaves-node]').textContent(), 'within one node', 'ep flag');
  // The ep colour is the palette's dim-ep, the desktop's ep frame (#f57c00).
  equal(await group('ep').evaluate((node) => getComputedStyle(node).borderLeftColor), 'rgb(245, 124, 0)', 'ep colour');
  equal(await page.inputValue('#planner-dp'), '8', 'dp input');
  equal(await page.inputValue('#planner-world'), '16', 'world input');
  ok((await page.evaluate(() => window.location.hash)).endsWith('&rank=5'), 'the address keeps the rank');
});

test('a click on a cell selects its rank', async () => {
  await open('#/plan?dp=8&cp=2&ep=2');
  await page.waitForFunction(() => document.querySelector('.planner-legend-entry'));
  // The cell drawn for rank 6 (block 1, column 1, row 0 of the expert grid), in page pixels.
  const point = await page.evaluate(async () => {
    const {PlanGridLayout} = await import('/planner/grid_layout.js');
    const {plan} = (await import('/planner/planner_page.js')).debugState();
    const layout = new PlanGridLayout(plan, plan.meshes.find((m) => m.name === 'expert'));
    const zoom = parseFloat(document.querySelector('.planner-zoom span').textContent) / 100;
    const cell = layout.cellRect(6);
    const box = document.querySelector('.planner-canvas').getBoundingClientRect();
    return {x: box.left + (cell.x + cell.size / 2) * zoom, y: box.top + (cell.y + cell.size / 2) * zoom,
      position: layout.position(6)};
  });
  equal(JSON.stringify(point.position), '{"block":1,"column":1,"row":0}', 'rank 6 in the grid');
  await page.mouse.click(point.x, point.y);
  await waitText('#planner-inspector-heading', 'Rank 6');
});

test('the legend shows all groups of a dim, numbered as the core orders them', async () => {
  await open('#/plan?dp=8&cp=2&ep=2&order=torch28');
  await page.waitForFunction(() => document.querySelector('.planner-legend-entry'));
  await page.getByRole('button', {name: /^efsdp \(ring\)/}).click();
  equal(await page.getByRole('button', {name: /^efsdp \(ring\)/}).getAttribute('aria-pressed'), 'true', 'pressed');
  // domain.md / plan-format.md: torch28 lists efsdp as [0,4,8,12], [2,6,10,14], [1,5,9,13], [3,7,11,15].
  const indices = await page.evaluate(async () => {
    const {groupIndex} = await import('/planner/grid_scene.js');
    const {plan} = (await import('/planner/planner_page.js')).debugState();
    const expert = plan.meshes.find((m) => m.name === 'expert');
    return [0, 2, 1, 3, 13].map((rank) => groupIndex(expert, 'efsdp', rank));
  });
  equal(JSON.stringify(indices), '[0,1,2,3,2]', 'efsdp group of ranks 0, 2, 1, 3, 13 (torch28)');
  ok((await text('.planner-legend p')).startsWith('Cell colour = efsdp group'), 'legend caption');
  await page.getByRole('button', {name: /^efsdp \(ring\)/}).click();
  equal(await page.getByRole('button', {name: /^efsdp \(ring\)/}).getAttribute('aria-pressed'), 'false', 'hidden again');
});

test('the model mesh: its inputs, its view, its labels and groups, and LlamaFactory\'s message', async () => {
  // world 16 = mp_replicate 2 x mp_shard 8 on nodes of 4 GPUs: rank r sits at (r / 8, r % 8); a block is the
  // largest divisor of mp_shard up to a node's GPUs (4) of one mp_shard group (docs/planner.md).
  await open('#/plan?world=16&ep=1&mp_replicate=2&gpus_per_node=4&rank=13');
  await waitText('#planner-inspector-heading', 'Rank 13');
  equal(await page.inputValue('#planner-mp_replicate'), '2', 'mp_replicate input');
  equal((await page.locator('.planner-summary p').allTextContents())[1], 'Model mesh: mp_replicate 2 × mp_shard 8',
    'summary');
  await page.getByRole('button', {name: 'Model mesh'}).click();
  await eventually(async () => (await state()).mesh === 'model', {describe: async () => JSON.stringify(await state())});
  equal(await page.getByRole('button', {name: 'Model mesh'}).getAttribute('aria-pressed'), 'true', 'pressed');
  equal(await page.getByRole('button', {name: 'Data mesh'}).getAttribute('aria-pressed'), 'false', 'data not pressed');
  equal(await text('.planner-toolbar .planner-muted'), 'columns mp_shard (4 per block) · blocks mp_replicate × mp_shard',
    'axes');
  ok(await page.locator('.planner-toolbar .planner-note').isHidden(), 'no "showing the data mesh" note');
  equal((await page.locator('.planner-legend-entry').allTextContents()).join(' | '),
    'mp_replicate (ring) · 8 × 2 | mp_shard (frame) · 2 × 8', 'legend');
  const facts = await page.locator('.planner-facts dd').allTextContents();
  equal(facts[2], '(mp_replicate 1, mp_shard 5)', 'rank 13\'s model coordinate');
  const group = (dim) => page.locator(`.planner-group[data-dim="${dim}"]`).first();
  equal(await group('mp_replicate').locator('.planner-members').textContent(), '[5, 13]', 'mp_replicate members');
  equal(await group('mp_shard').locator('.planner-members').textContent(), '[8, 9, 10, 11, 12, 13, 14, 15]',
    'mp_shard members');
  // Rank 13 is block 3, column 1 of the model grid; the blocks' labels are the desktop's.
  const drawn = await page.evaluate(async () => {
    const {plan, svg} = (await import('/planner/planner_page.js')).debugState();
    const {PlanGridLayout} = await import('/planner/grid_layout.js');
    const layout = new PlanGridLayout(plan, plan.meshes.find((m) => m.name === 'model'));
    const texts = [...new DOMParser().parseFromString(svg(), 'image/svg+xml').querySelectorAll('text')]
      .map((t) => t.textContent);
    return {position: layout.position(13), labels: texts.filter((t) => t.startsWith('mp_'))};
  });
  equal(JSON.stringify(drawn.position), '{"block":3,"column":1,"row":0}', 'rank 13 in the model grid');
  equal(drawn.labels.join(' | '), 'mp_replicate 0 · mp_shard 0–3 | mp_replicate 0 · mp_shard 4–7 | ' +
    'mp_replicate 1 · mp_shard 0–3 | mp_replicate 1 · mp_shard 4–7', 'block labels');
  ok((await page.evaluate(() => window.location.hash)).includes('mp_replicate=2&mp_shard=8'), 'the address keeps it');
  // LlamaFactory's words for a replica count that does not divide the world, and the values that do.
  await page.fill('#planner-mp_replicate', '3');
  await waitText('.planner-error-message', 'world_size (16) must be divisible by mp_replicate_size (3).');
  equal(await page.locator('#planner-mp_replicate').getAttribute('aria-invalid'), 'true', 'mp_replicate marked');
  equal((await page.locator('.planner-suggestion').allTextContents()).join(' '), '1 2 4 8 16', 'suggestions');
});

test('the exported YAML, torchrun and JSON are the bytes of meshscope plan --format', async () => {
  await open('#/plan?dp=8&cp=2&ep=2');
  await page.waitForFunction(() => document.querySelector('#planner-yaml')?.textContent.startsWith('# LlamaFactory'));
  const cli = (format) => execFileSync(binary, ['plan', '--dp', '8', '--cp', '2', '--ep', '2', '--format', format]).toString();
  equal(await text('#planner-yaml'), cli('yaml'), 'YAML shown');
  equal(await text('#planner-torchrun'), cli('torchrun'), 'torchrun shown');
  for (const [button, format] of [['YAML…', 'yaml'], ['Plan JSON…', 'json'], ['torchrun…', 'torchrun']]) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', {name: button}).click()]);
    equal(fs.readFileSync(await download.path(), 'utf8'), cli(format), `${format} download`);
  }
});

test('keyboard only: Tab to the grid, arrows move the selection, Enter opens the rank', async () => {
  await open('#/plan?dp=8&cp=2&ep=2');
  await page.waitForFunction(() => document.querySelector('.planner-legend-list li'));
  for (let i = 0; i < 40; ++i) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.classList.contains('planner-canvas'))) break;
  }
  ok(await page.evaluate(() => document.activeElement?.classList.contains('planner-canvas')), 'Tab reaches the grid');
  // Expert grid of dp 8, cp 2, ep 2: blocks of 2 columns (ep) x 2 rows (expert_cp), rank = (block*2 + col)*2 + row.
  await page.keyboard.press('ArrowRight');  // first key: rank 0
  await waitText('#planner-inspector-heading', 'Rank 0');
  await page.keyboard.press('ArrowRight');  // column 1: rank 2
  await waitText('#planner-inspector-heading', 'Rank 2');
  await page.keyboard.press('ArrowDown');   // row 1: rank 3
  await waitText('#planner-inspector-heading', 'Rank 3');
  await page.keyboard.press('ArrowLeft');   // column 0: rank 1
  await waitText('#planner-inspector-heading', 'Rank 1');
  // + and - zoom (the 16 cells fit at 100%), 0 fits again.
  await page.keyboard.press('+');
  await waitText('.planner-zoom span', '150%');
  await page.keyboard.press('-');
  await page.keyboard.press('-');
  await waitText('.planner-zoom span', '67%');
  await page.keyboard.press('0');
  await waitText('.planner-zoom span', '100%');
  await page.keyboard.press('End');
  await waitText('#planner-inspector-heading', 'Rank 15');
  await page.keyboard.press('Enter');
  ok(await page.evaluate(() => document.activeElement?.id === 'planner-inspector-heading'), 'Enter opens the inspector');
  equal((await state()).selected, 15, 'selected');
  // The inputs take keys too: Shift+Tab back to the order select and pick torch28 by keyboard.
  await page.focus('#planner-order');
  await page.keyboard.press('ArrowDown');
  await page.waitForFunction(() => window.location.hash.includes('order=torch28'));
});

test('axe-core: no serious or critical violations (valid plan, selection, and the error state)', async () => {
  const axe = axeSource();
  for (const hash of ['#/plan?dp=8&cp=2&ep=2&rank=5', '#/plan?dp=16&ep=3']) {
    await open(hash);
    await page.waitForFunction(() => document.querySelector('.planner-summary p')?.textContent ||
      document.querySelector('.planner-error-message')?.textContent);
    // The page's CSP forbids inline script, so axe runs through the DevTools protocol.
    const session = await browser.context.newCDPSession(page);
    await session.send('Runtime.evaluate', {expression: axe});
    const answer = await session.send('Runtime.evaluate', {awaitPromise: true, returnByValue: true,
      expression: 'axe.run(document).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.length})))'});
    const violations = answer.result.value;
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    equal(JSON.stringify(bad), '[]', `serious/critical violations on ${hash}`);
  }
});

test('the Cost section ranks by step time with the numbers of meshscope advise, and a row shows its layout', async () => {
  await open('#/plan?world=64&ep=8');
  await waitText('.planner-summary p', '(dp, cp, ep) = (64, 1, 8) · world 64 = dp 64 × cp 1');
  await page.selectOption('#planner-cost-hardware', 'h200');
  await page.selectOption('#planner-cost-model', 'qwen3-30b-a3b');
  await page.waitForSelector('.planner-cost-table tbody tr');
  const step = await text('.planner-cost-step');
  ok(step.startsWith('step ') && step.includes(' tokens/s per GPU · MFU ') && step.endsWith('grad-accum 1'), step);
  // The same ranking as the CLI's, first row and order: step times as the page prints them, never falling. The
  // page costs the knobs its form gives (micro-batch 1, selective recompute), so the CLI is asked with them fixed.
  const knobs = ['--micro-batch', '1', '--recompute', 'selective'];
  const cli = JSON.parse(execFileSync(binary, ['advise', '--model', 'qwen3-30b-a3b', '--world', '64', '--hardware',
    'h200', '--format', 'json', '--show', '1000', ...knobs], {encoding: 'utf8'}));
  // Each dim that moves anything: its communication and the part the overlap rules leave exposed, the dims of the
  // plan's own layout as advise lists them.
  const mine = cli.ranked.find((l) => l.dp === 64 && l.cp === 1 && l.ep === 8);
  const moving = mine.communication.dims.filter((d) => d.size > 1 && d.collectives.length > 0);
  const dims = await page.locator('.planner-cost-dims li').evaluateAll((lis) => lis.map((li) => li.textContent));
  equal(dims.length, moving.length, 'dims with communication');
  moving.forEach((d, i) => ok(dims[i].startsWith(`${d.dim} ${d.size} `) && dims[i].includes(' exposed · ') &&
    dims[i].endsWith(d.link === 'inter_node' ? `across ${d.nodes} nodes` : 'inside a node'), dims[i]));
  const rows = await page.locator('.planner-cost-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  equal(rows.length, cli.ranked.length, 'ranked rows');
  const seconds = (t) => (t.endsWith(' ms') ? Number(t.slice(0, -3)) / 1e3 : Number(t.slice(0, -2)));
  const first = cli.ranked[0];
  equal(rows[0].slice(1, 4).join(' '), `${first.dp} ${first.cp} ${first.ep}`, 'first layout');
  equal(seconds(rows[0][4]).toFixed(5), (Math.round(first.step.seconds * 1e5) / 1e5).toFixed(5), 'first step time');
  for (let i = 1; i < rows.length; ++i) ok(seconds(rows[i][4]) >= seconds(rows[i - 1][4]), `row ${i} sorted`);
  ok((await text('.planner-cost-why')).startsWith(`Why: ${cli.why.slice(0, 20)}`), 'why');
  // A click on a row puts its layout on screen.
  await page.locator('.planner-cost-table tbody tr').first().click();
  await waitText('.planner-summary p', `(dp, cp, ep) = (${first.dp}, ${first.cp}, ${first.ep}) · world 64 = dp ${first.dp} × cp ${first.cp}`);
  // The user's own global batch: 96 sequences leave out every dp 64 layout, the plan's included, with core's reason,
  // and the ranking is meshscope advise's at --global-batch 96. A value the collector refuses shows its message;
  // an empty field asks for the default again.
  await open('#/plan?world=64&ep=8');
  await page.selectOption('#planner-cost-hardware', 'h200');
  await page.selectOption('#planner-cost-model', 'qwen3-30b-a3b');
  await page.waitForSelector('.planner-cost-table tbody tr');
  await page.fill('#planner-cost-global', '96');
  await waitText('.planner-cost-step', 'This layout is left out: global batch of 96 sequences is not a multiple of ' +
    'dp x micro-batch (64 x 1 = 64)');
  const cli96 = JSON.parse(execFileSync(binary, ['advise', '--model', 'qwen3-30b-a3b', '--world', '64', '--hardware',
    'h200', '--global-batch', '96', '--format', 'json', '--show', '1000', ...knobs], {encoding: 'utf8'}));
  const rows96 = await page.locator('.planner-cost-table tbody tr').evaluateAll((trs) =>
    trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  equal(rows96.length, cli96.ranked.length, 'ranked rows at 96 sequences');
  const first96 = cli96.ranked[0];
  equal(rows96[0].slice(1, 4).join(' '), `${first96.dp} ${first96.cp} ${first96.ep}`, 'first layout at 96 sequences');
  // Printed as the desktop prints it: milliseconds below a second, seconds with two decimals from one on.
  const s96 = first96.step.seconds;
  equal(rows96[0][4], s96 >= 1 ? `${s96.toFixed(2)} s` : `${(s96 * 1e3).toFixed(2)} ms`, 'first step at 96 sequences');
  await page.fill('#planner-cost-global', 'many');
  await waitText('.planner-cost-error', "global_batch expects an integer, got 'many'.");
  await page.fill('#planner-cost-global', '');
  await waitText('.planner-cost-step', step);
  // A model of none hides the section's numbers.
  await page.selectOption('#planner-cost-model', 'none');
  await page.waitForSelector('.planner-cost-table', {state: 'hidden'});
});

test('the SVG export is well-formed and escapes every string', async () => {
  await open('#/plan?dp=8&cp=2&ep=2&rank=5');
  await waitText('#planner-inspector-heading', 'Rank 5');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', {name: 'Grid SVG…'}).click()]);
  const svg = fs.readFileSync(await download.path(), 'utf8');
  const parsed = await page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    return {error: doc.querySelector('parsererror') !== null, root: doc.documentElement.nodeName,
      rects: doc.querySelectorAll('rect').length, title: doc.querySelector('title')?.textContent,
      texts: [...doc.querySelectorAll('text')].map((t) => t.textContent)};
  }, svg);
  ok(!parsed.error, 'parses as XML');
  equal(parsed.root, 'svg', 'root element');
  ok(parsed.rects >= 16, `a rect per rank (${parsed.rects})`);
  equal(parsed.title, 'MeshScope plan (dp, cp, ep) = (8, 2, 2) · world 16 = dp 8 × cp 2', 'title');
  ok(parsed.texts.includes('efsdp 3') && parsed.texts.includes('13'), 'labels and rank numbers');
  ok(svg.includes('stroke="#f57c00"'), 'the ep frame in the palette\'s dim-ep');
  // Hostile text through the same writer: still one well-formed document, the text kept as text.
  const hostile = '<img src=x onerror="alert(1)"> </svg><script>alert(2)</script> & \u202Eevil\'';
  const escaped = await page.evaluate(async (title) => {
    const {SvgSink} = await import('/planner/grid_sinks.js');
    const sink = new SvgSink();
    sink.text(0, 0, title, '#000', 12, 'start');
    const doc = new DOMParser().parseFromString(sink.document(10, 10, title, title), 'image/svg+xml');
    return {error: doc.querySelector('parsererror') !== null, scripts: doc.querySelectorAll('script, img').length,
      title: doc.querySelector('title').textContent, text: doc.querySelector('text').textContent};
  }, hostile);
  ok(!escaped.error, 'hostile text parses');
  equal(escaped.scripts, 0, 'no element from text');
  equal(escaped.title, hostile, 'title text kept');
  equal(escaped.text, hostile, 'label text kept');
});

test('the PNG export is the grid as drawn', async () => {
  await open('#/plan?dp=8&cp=2&ep=2&rank=5');
  await waitText('#planner-inspector-heading', 'Rank 5');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', {name: 'Grid PNG…'}).click()]);
  const png = fs.readFileSync(await download.path());
  equal(png.subarray(1, 4).toString('latin1'), 'PNG', 'PNG signature');
  const size = await page.evaluate(() => {
    const c = document.querySelector('.planner-canvas');
    return [c.width, c.height];
  });
  equal(JSON.stringify([png.readUInt32BE(16), png.readUInt32BE(20)]), JSON.stringify(size), 'the canvas size');
});

test('a 131,072-rank plan draws from the compact form', async () => {
  await open('#/plan?world=131072&cp=2&ep=8&rank=70000');
  await waitText('#planner-inspector-heading', 'Rank 70000');
  const size = await page.evaluate(() => {
    const c = document.querySelector('.planner-canvas');
    return {width: c.width, height: c.height};
  });
  ok(size.width > 0 && size.height > 0, `canvas ${size.width}x${size.height}`);
  equal(await page.locator('.planner-group[data-dim="ep"] .planner-members').first().textContent(),
    '[70000, 70002, 70004, 70006, 70008, 70010, 70012, 70014]', 'ep group of rank 70000');
  // Seven quick arrows walk the ep columns of rank 70000's block (efsdp 4375): rank (4375 * 8 + 7) * 2 = 70014;
  // the page asks for the rank the keys stop on and shows it, whatever it skipped on the way.
  await page.focus('.planner-canvas');
  for (let i = 0; i < 7; ++i) await page.keyboard.press('ArrowRight');
  await waitText('#planner-inspector-heading', 'Rank 70014');
  await waitText('.planner-group[data-dim="ep"] .planner-members', '[70000, 70002, 70004, 70006, 70008, 70010, 70012, 70014]');
});

test('a screenshot of the Planner (PLANNER_SCREENSHOT)', {skip: !process.env.PLANNER_SCREENSHOT}, async () => {
  await page.setViewportSize({width: 1440, height: 900});
  await open('#/plan?dp=16&cp=2&ep=4&gpus_per_node=8&rank=13');
  await waitText('#planner-inspector-heading', 'Rank 13');
  await page.screenshot({path: process.env.PLANNER_SCREENSHOT});
});

test('no page or console errors (the CSP included)', () => {
  // Chromium logs every 4xx answer; the 400s are the collector's answers to the invalid inputs above.
  const expected = /^console: Failed to load resource: the server responded with a status of 400/;
  equal(JSON.stringify(browser.errors.filter((e) => !expected.test(e))), '[]', 'errors');
});
