// The stream's bearer as a subprotocol, from a real browser's WebSocket (docs/collector.md, "Security
// defaults"): new WebSocket(url, ['meshscope.v1', 'meshscope.bearer.<base64url of the token>']) gets hello at
// once and meshscope.v1 as its protocol; a wrong token is told and closed with 1008 (a browser sees no HTTP
// status); a token with characters a subprotocol cannot hold ('/', '=', ' ') travels encoded. The page's
// own stream (first-message auth, the parser's worker) runs under the same collector.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, launchBrowser, startServe, tempDir} from './harness.mjs';

const token = 'a/b=c d';
// What a browser logs for the answers a token-less request gets (the favicon, the API before the dialog).
const unexpected = (errors) => errors.filter((e) => !/status of 401/.test(e));  // bytes 61 2f 62 3d 63 20 64: base64url YS9iPWMgZA (RFC 4648 section 5, by hand)
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

// In the page: opens the stream with these subprotocols; resolves with what it saw up to the first message
// (waitForClose: up to the close).
function openStream(page, protocols, waitForClose) {
  return page.evaluate(({protocols, waitForClose}) => new Promise((resolve) => {
    const ws = new WebSocket(`ws://${location.host}/api/v1/stream`, protocols);
    const seen = {messages: [], protocol: '', code: 0};
    ws.addEventListener('open', () => (seen.protocol = ws.protocol));
    ws.addEventListener('message', (e) => {
      seen.messages.push(JSON.parse(e.data));
      if (!waitForClose) {
        ws.close(1000);
        resolve(seen);
      }
    });
    ws.addEventListener('close', (e) => {
      seen.code = e.code;
      resolve(seen);
    });
  }), {protocols, waitForClose});
}

test('the bearer as a subprotocol', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db'), args: ['--token', token]});
  cleanup.push(() => dir.remove(), () => serve.stop());
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  await page.goto(`${serve.url}/palette.css`);  // the collector's origin, without the dashboard

  const right = await openStream(page, ['meshscope.v1', 'meshscope.bearer.YS9iPWMgZA'], false);
  assert.equal(right.protocol, 'meshscope.v1');
  assert.equal(right.messages[0].type, 'hello');

  const wrong = await openStream(page, ['meshscope.v1', 'meshscope.bearer.Z3Vlc3M'], true);  // "guess"
  assert.equal(wrong.protocol, 'meshscope.v1');
  assert.deepEqual(wrong.messages, [{type: 'error', error: 'missing or wrong bearer token'}]);
  assert.equal(wrong.code, 1008);

  // The raw token is no subprotocol a browser will send.
  const raw = await page.evaluate((t) => {
    try {
      new WebSocket(`ws://${location.host}/api/v1/stream`, ['meshscope.v1', `meshscope.bearer.${t}`]);
      return 'sent';
    } catch (e) {
      return e.name;
    }
  }, token);
  assert.equal(raw, 'SyntaxError');
  assert.deepEqual(unexpected(browser.errors), []);
});

test('the dashboard under a token: first-message auth, changes through the parser', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db'), args: ['--token', token]});
  cleanup.push(() => dir.remove(), () => serve.stop());
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  await page.goto(`${serve.url}/#/live`);
  await eventually(() => page.isVisible('#token-dialog'));
  await page.fill('#token-input', token);
  await page.click('#token-submit');
  await eventually(() => page.evaluate(() => window.meshscope.stream.state === 'live'));
  assert.equal(await page.evaluate(() => window.meshscope.parser.inWorker), true);
  // A rank reports: the page shows it from the stream (the snapshot was empty).
  const headers = {Authorization: `Bearer ${token}`, 'Content-Type': 'application/json'};
  const response = await fetch(`${serve.url}/api/v1/events`, {method: 'POST', headers, body: JSON.stringify(
    [{job: 'auth', rank: 1, world_size: 2, host: 'node-0', local_rank: 1, phase: 'launch', status: 'started', ts: 1}])});
  assert.equal(response.status, 200);
  await eventually(() => page.evaluate(() => window.meshscopeLive?.data.job === 'auth'
    && window.meshscopeLive.data.states[1] === 1 && window.meshscopeLive.data.host(1) === 'node-0'));
  assert.deepEqual(unexpected(browser.errors), []);
});
