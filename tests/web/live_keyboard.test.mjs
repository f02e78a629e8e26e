// Without a mouse: Tab reaches the jobs, the rank list, the filters, the grid and the findings; arrow keys
// move the grid's selection (hand-worked neighbours of the expert layout), Enter opens the rank; the rank
// list and the findings work by keys. Then axe-core: no serious or critical violation on the Live page.
import {test, before, after} from 'node:test';
import assert from 'node:assert/strict';
import {axeSource, eventually, launchBrowser, simulate, startServe, tempDir} from './harness.mjs';

let dir;
let serve;
let browser;

before(async () => {
  dir = tempDir();
  serve = await startServe({db: dir.file('h.db'), args: ['--missing-after', '1']});
  await simulate(serve.url, ['--dp', '8', '--cp', '2', '--ep', '4', '--job', 'keys', '--seed', '4',
    '--faults', 'straggler=1,rank_error=1']);
  await simulate(serve.url, ['--dp', '4', '--job', 'other', '--seed', '4']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

// Presses Tab until the focused element matches `selector` (at most 60 presses).
async function tabTo(page, selector, {back = false} = {}) {
  for (let i = 0; i < 60; ++i) {
    if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

test('the grid, the rank list, the findings and the jobs by keyboard alone', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/keys`);
  await eventually(async () => (await page.$$('.finding')).length === 2);

  // Grid: (dp, cp, ep) = (8, 2, 4): rank = (efsdp * 4 + ep) * 2 + expert_cp; two blocks (efsdp 0, 1) of 4 x 2
  // cells, stacked (1.6:1 is nearer to one column of blocks than to one row). Worked by hand: from rank 0,
  // right -> ep 1 = rank 2; down -> expert_cp 1 = rank 3; right x3 -> ep 3 = rank 7, then the edge; down ->
  // the block below (efsdp 1, ep 3, expert_cp 0) = rank 14; End -> rank 15.
  await tabTo(page, '.grid-canvas');
  const gridStatus = () => page.$eval('.grid-canvas [role="status"]', (s) => s.textContent);
  await page.keyboard.press('ArrowRight');  // nothing selected yet: the first rank
  await eventually(async () => (await gridStatus()).startsWith('rank 0 · '));
  await page.keyboard.press('ArrowRight');
  await eventually(async () => (await gridStatus()).startsWith('rank 2 · '));
  await page.keyboard.press('ArrowDown');
  await eventually(async () => (await gridStatus()).startsWith('rank 3 · '));
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 3');
  assert.ok(page.url().endsWith('#/live/keys?rank=3'), page.url());
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
  await eventually(async () => (await gridStatus()).startsWith('rank 7 · '));
  await page.keyboard.press('ArrowDown');
  await eventually(async () => (await gridStatus()).startsWith('rank 14 · '));
  await page.keyboard.press('End');
  await eventually(async () => (await gridStatus()).startsWith('rank 15 · '));
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 15');

  // Findings: Tab moves on from the grid to the first finding; Enter selects it, again clears it.
  await tabTo(page, '.finding');
  const kind = await page.evaluate(() => document.activeElement.dataset.kind);
  await page.keyboard.press('Enter');
  await eventually(() => page.$eval(`.finding[data-kind="${kind}"]`, (b) => b.getAttribute('aria-pressed') === 'true'));
  assert.equal((await page.evaluate(() => window.meshscopeLive.grid.outlined)).length, 1);
  await page.keyboard.press('Enter');
  await eventually(() => page.$eval(`.finding[data-kind="${kind}"]`, (b) => b.getAttribute('aria-pressed') === 'false'));

  // Rank list: back to it with Shift+Tab; Home, down twice, Enter.
  await tabTo(page, '.rank-list', {back: true});
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 2');
  assert.equal(await page.$eval('.rank-list', (l) => l.getAttribute('aria-activedescendant')), 'rank-option-2');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 15');

  // State filter by keys: the list keeps the failed rank only.
  await tabTo(page, '#state-filter');
  // A focused select changes with the arrow keys (its popup is native, outside the DOM): any state,
  // pending, initializing, ready, failed.
  for (let i = 0; i < 4; ++i) await page.keyboard.press('ArrowDown');
  await eventually(async () => (await page.textContent('#ranks-heading')).startsWith('Ranks (1 of 16 match)'));
  await tabTo(page, '#clear-filters');
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.textContent('#ranks-heading')) === 'Ranks (16)');

  // Jobs: Shift+Tab back to the other job, Enter opens it.
  await tabTo(page, 'button.job[data-job="other"]', {back: true});
  await page.keyboard.press('Enter');
  await eventually(async () => (await page.$eval('button.job[aria-current="true"]', (b) => b.dataset.job)) === 'other');
  assert.ok(page.url().endsWith('#/live/other'), page.url());
  assert.deepEqual(browser.errors, []);
});

test('axe-core finds no serious or critical violation on the Live page', async () => {
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/keys?rank=3`);
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 3');
  await page.click('.finding');
  // Evaluated through the DevTools protocol: the page's CSP forbids injected script tags, rightly.
  await page.evaluate(axeSource());
  const results = await page.evaluate(() => window.axe.run(document, {resultTypes: ['violations']}));
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`), []);
});
