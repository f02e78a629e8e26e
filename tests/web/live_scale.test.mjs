// A 16,384-rank job renders: every rank on the canvas in its state colour, the counts right, the rank list
// as long as the job, and a rank of the far end opens by deep link. The ranks are posted by this test in a
// few large bodies (2 events each) rather than by `meshscope simulate`, whose 16,384 ranks take over a minute
// on the shared 2-core machine; a small simulated job runs next to it.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, launchBrowser, postBigJob, simulate, startServe, tempDir} from './harness.mjs';

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

test('a 16,384-rank job renders whole', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db')});
  cleanup.push(() => dir.remove(), () => serve.stop());
  await simulate(serve.url, ['--dp', '8', '--job', 'small', '--seed', '1']);
  const {world, initializing} = await postBigJob(serve.url, 'big');
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/big?rank=16383`);
  await eventually(async () => (await page.textContent('#rank-heading')) === 'Rank 16383', {timeout: 30000});
  // 16384 / 7 rounded up start at launch only; hand-computed: 2,341 initializing, 14,043 ready.
  assert.equal(initializing, 2341);
  await eventually(async () => (await page.textContent('#progress-text')) === `${world - initializing} / ${world} ready · ${world} seen`);
  assert.equal(await page.textContent('#ranks-heading'), 'Ranks (16384)');
  assert.equal(await page.evaluate(() => window.meshscopeLive.grid.layout.world), world);
  // Pixels: the first rank (initializing) and the second (ready) in their palette colours.
  const colours = await page.evaluate(() => {
    const grid = window.meshscopeLive.grid;
    const ctx = grid.base.getContext('2d');
    const dpr = window.devicePixelRatio || 1;
    const at = (r) => {
      const x = Math.floor((grid.origins[2 * r] + 22) * grid.scale * dpr);
      const y = Math.floor((grid.origins[2 * r + 1] + 22) * grid.scale * dpr);
      const [red, green, blue] = ctx.getImageData(x, y, 1, 1).data;
      return `#${[red, green, blue].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
    };
    return {first: at(0), second: at(1), last: at(16383)};
  });
  // The palette table's state-initializing and state-ready (core/src/monitor/palette.cpp), written out.
  assert.deepEqual(colours, {first: '#79a9e6', second: '#5cb176', last: '#5cb176'});
  assert.deepEqual(browser.errors, []);
});
