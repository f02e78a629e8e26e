// A collector without a token and a web page of another origin (docs/collector.md, "Limits and security"): a
// page served from 127.0.0.2 cannot post events (a text/plain POST is sent without a preflight, so the collector
// itself must refuse it), cannot open the stream and cannot read an answer; the collector's own page can. The
// same page cannot post through a node's relay either.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {spawn} from 'node:child_process';
import {createServer} from 'node:http';
import {createInterface} from 'node:readline';
import {eventually, getJson, launchBrowser, meshscope, startServe, tempDir} from './harness.mjs';

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

// Another origin on loopback: a blank page from 127.0.0.2 on a free port.
async function otherOrigin() {
  const server = createServer((request, response) => {
    response.writeHead(200, {'Content-Type': 'text/html'});
    response.end('<!doctype html><title>another site</title>');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.2', resolve));
  return {url: `http://127.0.0.2:${server.address().port}/`, close: () => new Promise((r) => server.close(r))};
}

// In the page: what posting an event, reading the jobs and opening the stream of `collector` come to.
function attempt(page, collector, job) {
  return page.evaluate(async ({collector, job}) => {
    const out = {};
    const event = {job, rank: 0, world_size: 1, phase: 'launch', status: 'started'};
    try {
      const r = await fetch(`${collector}/api/v1/events`, {method: 'POST', body: JSON.stringify(event),
        headers: {'Content-Type': 'text/plain'}});
      out.post = r.status;
    } catch (e) {
      out.post = e.name;
    }
    try {
      out.read = (await (await fetch(`${collector}/api/v1/jobs`)).json()).jobs.length;
    } catch (e) {
      out.read = e.name;
    }
    out.stream = await new Promise((resolve) => {
      const ws = new WebSocket(`${collector.replace('http', 'ws')}/api/v1/stream`);
      const seen = {messages: 0, code: 0};
      ws.addEventListener('message', () => {
        seen.messages += 1;
        ws.close(1000);
      });
      ws.addEventListener('close', (e) => resolve({...seen, code: e.code}));
    });
    return out;
  }, {collector, job});
}

test('a page of another origin cannot post, stream or read; the collector\'s own page can', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db')});
  cleanup.push(() => dir.remove(), () => serve.stop());
  const other = await otherOrigin();
  cleanup.push(() => other.close());
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;

  await page.goto(other.url);
  const foreign = await attempt(page, serve.url, 'from-another-site');
  // The POST went out (no preflight for text/plain) and was refused: nothing stored. The browser hides the 403
  // from the page (no CORS headers), so the collector's history is what tells.
  assert.equal(foreign.post, 'TypeError');
  assert.equal(foreign.read, 'TypeError');
  assert.deepEqual(foreign.stream, {messages: 0, code: 1006});
  const jobs = await getJson(serve.url, '/api/v1/jobs');
  assert.deepEqual(jobs.body.jobs, []);

  await page.goto(`${serve.url}/palette.css`);  // the collector's own origin
  const own = await attempt(page, serve.url, 'from-the-dashboard');
  assert.equal(own.post, 200);
  assert.equal(own.read, 1);
  assert.equal(own.stream.messages, 1);  // hello
  await eventually(async () => (await getJson(serve.url, '/api/v1/jobs/from-the-dashboard')).status === 200);
});

// `meshscope relay --upstream URL` on a free loopback port, stopped at the end.
async function startRelay(upstream) {
  const child = spawn(meshscope, ['relay', '--listen', '127.0.0.1:0', '--upstream', upstream],
    {stdio: ['ignore', 'pipe', 'pipe']});
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    createInterface({input: child.stdout}).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`meshscope relay exited (${code}): ${stderr}`)));
  });
  return {
    url: `http://127.0.0.1:${JSON.parse(line).port}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

test('a page of another origin cannot post through a relay or read it', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('r.db')});
  cleanup.push(() => dir.remove(), () => serve.stop());
  const relay = await startRelay(serve.url);
  cleanup.push(() => relay.stop());
  const other = await otherOrigin();
  cleanup.push(() => other.close());
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;

  await page.goto(other.url);
  const foreign = await page.evaluate(async (relay) => {
    const out = {};
    const event = {job: 'through-the-relay', rank: 0, world_size: 1, phase: 'launch', status: 'started'};
    try {
      out.post = (await fetch(`${relay}/api/v1/events`, {method: 'POST', body: JSON.stringify(event),
        headers: {'Content-Type': 'text/plain'}})).status;
    } catch (e) {
      out.post = e.name;
    }
    try {
      out.read = (await (await fetch(`${relay}/api/v1/relay`)).json()).bodies_received;
    } catch (e) {
      out.read = e.name;
    }
    return out;
  }, relay.url);
  assert.deepEqual(foreign, {post: 'TypeError', read: 'TypeError'});
  // The relay refused the POST itself: it counted no body and the collector stored none.
  assert.equal((await getJson(relay.url, '/api/v1/relay')).body.bodies_received, 0);
  assert.deepEqual((await getJson(serve.url, '/api/v1/jobs')).body.jobs, []);
});
