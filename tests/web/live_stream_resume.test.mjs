// The page's side of the stream contract (WEB-CONTRACT.md, docs/collector.md), against a scripted stream
// (playwright's routeWebSocket stands in for the collector's WebSocket; the HTTP API is the real collector):
// it reconnects with since=<last seq>&epoch=<epoch>, applies replayed messages, re-reads its snapshots on
// {"type":"reload"} and when the epoch changes, and not when a resume replays what it missed.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {eventually, launchBrowser, simulate, startServe, tempDir} from './harness.mjs';

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const row = (rank, state) => ({type: 'rank_changed', job: 'resume', rank, state, phase: 'ready', host: 'scripted',
  timings: {}, findings: []});

test('resume with since/epoch, reload and epoch change', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db')});
  cleanup.push(() => dir.remove(), () => serve.stop());
  await simulate(serve.url, ['--dp', '4', '--job', 'resume', '--seed', '1']);  // every rank ends exited
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  let snapshots = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/jobs/resume/ranks') ++snapshots;
  });
  const connections = [];
  await page.routeWebSocket(/\/api\/v1\/stream/, (ws) => connections.push(ws));
  const state = (rank) => page.evaluate((r) => ['pending', 'initializing', 'ready', 'failed', 'stale', 'exited'][
    window.meshscopeLive.data.states[r]], rank);

  await page.goto(`${serve.url}/#/live/resume`);
  await eventually(() => connections.length === 1);
  assert.equal(new URL(connections[0].url()).search, '', 'the first connection asks for nothing');
  connections[0].send(JSON.stringify({type: 'hello', protocol: 'meshscope.stream/1', epoch: 'E1', seq: 5}));
  await eventually(async () => (await state(0)) === 'exited');
  const afterFirstSnapshot = snapshots;
  connections[0].send(JSON.stringify({type: 'changes', seq: 6, changes: [row(1, 'failed')]}));
  await eventually(async () => (await state(1)) === 'failed');
  connections[0].close({code: 1001});
  await eventually(() => page.isVisible('#banner'));

  // Resume: the URL names the last seq and the epoch; the replay is applied; no snapshot is read again.
  await eventually(() => connections.length === 2, {timeout: 10000});
  assert.equal(new URL(connections[1].url()).search, '?since=6&epoch=E1');
  connections[1].send(JSON.stringify({type: 'hello', protocol: 'meshscope.stream/1', epoch: 'E1', seq: 8}));
  connections[1].send(JSON.stringify({type: 'changes', seq: 7, changes: [row(2, 'stale')]}));
  connections[1].send(JSON.stringify({type: 'changes', seq: 7, changes: [row(2, 'ready')]}));  // a repeat: ignored
  connections[1].send(JSON.stringify({type: 'changes', seq: 8, changes: [row(3, 'initializing')]}));
  await eventually(async () => (await state(3)) === 'initializing');
  assert.equal(await state(2), 'stale');
  await eventually(async () => !(await page.isVisible('#banner')));
  assert.equal(snapshots, afterFirstSnapshot, 'a resume reads no snapshot');

  // Reload: the collector could not replay; the page re-reads (rank 1 is the collector's again).
  connections[1].close({code: 1001});
  await eventually(() => connections.length === 3, {timeout: 10000});
  assert.equal(new URL(connections[2].url()).search, '?since=8&epoch=E1');
  connections[2].send(JSON.stringify({type: 'hello', protocol: 'meshscope.stream/1', epoch: 'E1', seq: 40}));
  connections[2].send(JSON.stringify({type: 'reload'}));
  await eventually(async () => (await state(1)) === 'exited' && snapshots > afterFirstSnapshot);
  connections[2].send(JSON.stringify({type: 'changes', seq: 41, changes: [row(0, 'ready')]}));
  await eventually(async () => (await state(0)) === 'ready');

  // Another collector process (a new epoch): re-read, and count from its hello.
  const beforeEpoch = snapshots;
  connections[2].close({code: 1001});
  await eventually(() => connections.length === 4, {timeout: 10000});
  assert.equal(new URL(connections[3].url()).search, '?since=41&epoch=E1');
  connections[3].send(JSON.stringify({type: 'hello', protocol: 'meshscope.stream/1', epoch: 'E2', seq: 0}));
  await eventually(async () => (await state(0)) === 'exited' && snapshots > beforeEpoch);
  connections[3].send(JSON.stringify({type: 'changes', seq: 1, changes: [row(2, 'failed')]}));
  await eventually(async () => (await state(2)) === 'failed');
  assert.deepEqual(browser.errors, []);
});
