// Killing the collector (kill -9; its history is the --db file) shows the banner; restarting it on the same
// port brings the page back by itself, with nothing lost: the job from before the kill as the collector
// rebuilt it, and a job that reported while the page was still reconnecting.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, freePort, getJson, launchBrowser, pageFindings, simulate, sortedInjected, startServe, tempDir}
  from './harness.mjs';

let dir;
let serve;
let browser;

after(async () => {
  await browser?.close();
  await serve?.stop();
  dir?.remove();
});

// The page's rank states and the collector's, rank by rank.
async function statesMatch(page, url, job) {
  const {body} = await getJson(url, `/api/v1/jobs/${job}/ranks`);
  const shown = await page.evaluate(() => {
    const live = window.meshscopeLive;
    return {job: live.data.job, states: Array.from(live.data.states).map((s) => ['pending', 'initializing', 'ready',
      'failed', 'stale', 'exited'][s])};
  });
  return shown.job === job && JSON.stringify(shown.states) === JSON.stringify(body.ranks.map((r) => r.state));
}

test('the banner shows while the collector is away; the page recovers with nothing lost', async () => {
  dir = tempDir();
  const db = dir.file('h.db');
  const port = await freePort();
  serve = await startServe({port, db, args: ['--missing-after', '1']});
  const first = await simulate(serve.url, ['--dp', '8', '--ep', '2', '--job', 'before', '--seed', '3',
    '--faults', 'rank_error=1']);
  browser = await launchBrowser();
  const {page} = browser;
  await page.goto(`${serve.url}/#/live/before`);
  await eventually(() => statesMatch(page, serve.url, 'before'));
  assert.deepEqual(await pageFindings(page), sortedInjected(first.injected));
  assert.equal(await page.isVisible('#banner'), false);

  await serve.stop('SIGKILL');
  await eventually(() => page.isVisible('#banner'), {describe: () => 'no banner after the kill'});
  assert.match(await page.textContent('#banner'), /^Lost the connection to the collector \(.+\)\. Reconnecting…$/);

  serve = await startServe({port, db, args: ['--missing-after', '1']});
  // A job reports right away, before the page has noticed the collector is back.
  const second = await simulate(serve.url, ['--dp', '16', '--ep', '4', '--job', 'after', '--seed', '5',
    '--faults', 'straggler=1']);
  await eventually(async () => !(await page.isVisible('#banner')), {timeout: 30000,
    describe: async () => `banner still up: ${await page.textContent('#banner')}`});
  // Nothing lost: the job from before the kill, as the restarted collector rebuilt it from the history...
  await eventually(() => statesMatch(page, serve.url, 'before'));
  assert.deepEqual(await pageFindings(page), sortedInjected(first.injected));
  // ... and the one that reported during the outage, in the jobs list and when opened.
  await eventually(async () => (await page.$$eval('.job-name', (n) => n.map((x) => x.textContent))).join() === 'after,before');
  await page.click('button.job[data-job="after"]');
  await eventually(() => statesMatch(page, serve.url, 'after'));
  await eventually(async () => JSON.stringify(await pageFindings(page)) === JSON.stringify(sortedInjected(second.injected)));
  assert.deepEqual(browser.errors.filter((e) => !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e)), []);
});
