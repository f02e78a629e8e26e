// What the tour tests share: doing a step's task on the real page as a learner would (a click on a rank of
// the Planner's grid or the peers view, a number or a choice on the tour panel, the Planner's inputs, the
// sandbox's buttons) and reading the tour panel. The answers themselves are worked by hand in each test.
import {eventually} from './harness.mjs';

export const panel = '#tour-panel';

export async function panelTitle(page) {
  return page.locator('#tour-step-title').textContent().catch(() => null);
}

export async function waitStep(page, k, title) {
  await eventually(async () => (await page.locator('.tour-count').getAttribute('data-step').catch(() => null)) === String(k) &&
    (await panelTitle(page)) === title, {describe: async () => `panel shows ${await panelTitle(page)}, wanted step ${k} "${title}"`});
}

export async function verdict(page) {
  const node = page.locator('#tour-verdict');
  return {how: await node.getAttribute('data-verdict'), text: await node.textContent()};
}

// Waits for core's verdict (after `before`, the text it replaces) and returns it.
export async function waitVerdict(page, before = null) {
  return eventually(async () => {
    const v = await verdict(page);
    return v.how && v.text && v.text !== before ? v : null;
  }, {describe: async () => JSON.stringify(await verdict(page))});
}

// The centre of rank R's cell on the Planner's canvas, in page pixels (the planner's own layout, as
// tests/web/planner.test.mjs finds a cell).
async function plannerCell(page, rank) {
  await page.waitForFunction(() => document.querySelector('.planner-legend-entry'));
  await page.waitForFunction(() => !window.meshscopePlanner || window.meshscopePlanner.layout() !== null);
  return page.evaluate(async (r) => {
    const {PlanGridLayout} = await import('/planner/grid_layout.js');
    const {plan, mesh} = (await import('/planner/planner_page.js')).debugState();
    const layout = new PlanGridLayout(plan, plan.meshes.find((m) => m.name === mesh));
    const zoom = parseFloat(document.querySelector('.planner-zoom span').textContent) / 100;
    const cell = layout.cellRect(r);
    const canvas = document.querySelector('.planner-canvas');
    canvas.scrollIntoView({block: 'center'});
    const box = canvas.getBoundingClientRect();
    return {x: box.left + (cell.x + cell.size / 2) * zoom, y: box.top + (cell.y + cell.size / 2) * zoom};
  }, rank);
}

async function setPlannerInput(page, name, value) {
  await page.fill(`#planner-${name}`, String(value));
}

// Does one task the way a learner does it. answer: {rank} | {number} | {choice} | {layout} | {sandbox: [calls]}.
export async function doTask(page, answer, where) {
  if ('rank' in answer) {
    if (where === 'planner') {
      const point = await plannerCell(page, answer.rank);
      await page.mouse.click(point.x, point.y);
    } else if (where === 'peers') {
      await page.locator(`.peers-column button[data-rank="${answer.rank}"]`).first().click();
    } else if (where === 'live') {
      await page.fill('#tour-answer-input', String(answer.rank));
      await page.click('.tour-check');
    } else {
      throw new Error(`a rank on page ${where}`);
    }
  } else if ('number' in answer) {
    await page.fill('#tour-answer-input', String(answer.number));
    await page.click('.tour-check');
  } else if ('choice' in answer) {
    await page.check(`#tour-choice-${answer.choice}`);
    await page.click('.tour-check');
  } else if ('layout' in answer) {
    const l = answer.layout;
    await setPlannerInput(page, 'world', l.dp * l.cp);
    await setPlannerInput(page, 'cp', l.cp);
    await setPlannerInput(page, 'ep', l.ep);
    await setPlannerInput(page, 'gpus_per_node', l.gpus_per_node);
    await page.waitForFunction((want) => {
      const got = window.meshscopePlanner?.layout();
      return got && got.dp === want.dp && got.cp === want.cp && got.ep === want.ep &&
        got.gpus_per_node === want.gpus_per_node;
    }, l);
    await page.click('.tour-check');
  } else if ('sandbox' in answer) {
    for (const call of answer.sandbox) await sandboxCall(page, call);
  } else {
    throw new Error(`no way to give ${JSON.stringify(answer)}`);
  }
}

// One call on the sandbox page, waiting until the history shows it.
export async function sandboxCall(page, call) {
  const before = await page.locator('.sandbox-entry').count();
  if (call.op === 'initialize') {
    for (const name of ['dp', 'cp', 'ep']) await page.fill(`#sandbox-${name}`, String(call[name]));
    await page.click('.sandbox-initialize');
  } else {
    await page.click(`.sandbox-${call.op}`);
  }
  await eventually(async () => (await page.locator('.sandbox-entry').count()) === before + 1);
}

// The anchors docs/tours.md lists (its "Anchors" table), read from the document, not from the code.
export function documentedAnchors(markdown) {
  const section = markdown.split('## Anchors')[1].split('\n## ')[0];
  return [...section.matchAll(/^\| `([a-z]+\.[a-z]+)` \|/gm)].map((m) => m[1]);
}
