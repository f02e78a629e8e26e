// The browser tests' harness: a real `meshscope serve` on a free loopback port, real `meshscope simulate`
// jobs, and Debian's chromium driven by playwright-core (never a downloaded browser). Every wait polls a
// condition with a generous cap; nothing sleeps for a fixed time to let something happen.
import {spawn, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {createInterface} from 'node:readline';
import {createServer} from 'node:net';
import {chromium} from 'playwright-core';

export const meshscope = process.env.MESHSCOPE_BIN || 'meshscope';
export const chromiumPath = process.env.MESHSCOPE_CHROMIUM || '/usr/bin/chromium';

export function tempDir(prefix = 'meshscope-web-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {path: dir, file: (name) => join(dir, name), remove: () => rmSync(dir, {recursive: true, force: true})};
}

// Polls fn() until it returns something truthy; throws with describe()'s text after `timeout` ms.
export async function eventually(fn, {timeout = 20000, interval = 100, describe = () => ''} = {}) {
  const until = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) {
      const detail = await describe();
      throw new Error(`condition not met within ${timeout} ms${detail ? `: ${detail}` : ''}` +
        (last instanceof Error ? ` (last error: ${last.message})` : ''));
    }
    await new Promise((resolve) => setTimeout(resolve, interval));
  }
}

// A loopback port nobody listens on now (so a restarted collector can take the same one: a port picked by the
// collector itself, port 0, is bound without SO_REUSEADDR and stays blocked by TIME_WAIT after a kill).
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address();
      server.close(() => resolve(port));
    });
  });
}

// `meshscope serve` on 127.0.0.1 (port 0: a free one); resolves once it printed its JSON line. bin: another
// meshscope (bench/web/live_render.mjs compares two).
export async function startServe({port = 0, db, args = [], bin = meshscope} = {}) {
  const child = spawn(bin, ['serve', '--listen', `127.0.0.1:${port}`, '--db', db, ...args],
    {stdio: ['ignore', 'pipe', 'pipe']});
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    const lines = createInterface({input: child.stdout});
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`meshscope serve exited (${code}): ${stderr}`)));
  });
  const info = JSON.parse(line);
  return {
    child,
    bin,
    port: info.port,
    url: `http://127.0.0.1:${info.port}`,
    stderr: () => stderr,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}

// Runs `meshscope simulate` to the end; returns its JSON summary (what it injected, from its own output).
export function simulate(url, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(meshscope, ['simulate', '--target', url, ...args], {stdio: ['ignore', 'pipe', 'pipe']});
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`meshscope simulate ${args.join(' ')} exited ${code}: ${err}`));
      resolve(JSON.parse(out.split('\n')[0]));
    });
  });
}

export async function getJson(url, path, token) {
  const response = await fetch(url + path, {headers: token ? {Authorization: `Bearer ${token}`} : {}});
  return {status: response.status, headers: response.headers, body: await response.json()};
}

export async function postEvents(url, events) {
  const response = await fetch(`${url}/api/v1/events`, {method: 'POST', body: JSON.stringify(events),
    headers: {'Content-Type': 'application/json'}});
  const body = await response.json();
  if (response.status !== 200) throw new Error(`POST /api/v1/events: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

// Chromium in a fresh profile, headless; `errors` collects page errors and console errors.
export async function launchBrowser() {
  const profile = tempDir('meshscope-chromium-');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: chromiumPath,
    headless: true,
    viewport: {width: 1440, height: 900},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] || await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // Chromium's "Failed to load resource" names no URL; its location does, so a failure says which.
    const where = m.location()?.url;
    errors.push(`console: ${m.text()}${where && m.text().startsWith('Failed to load resource') ? ` (${where})` : ''}`);
  });
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    d.dismiss().catch(() => {});
  });
  return {
    context,
    page,
    errors,
    async close() {
      await context.close();
      profile.remove();
    },
  };
}

// The findings the page lists, as {kind: [ranks]} read from the DOM's text ("rank 5", "ranks 3, 7", "0–7").
export async function pageFindings(page) {
  const items = await page.$$eval('.finding', (buttons) => buttons.map((b) => ({
    kind: b.querySelector('.finding-kind').textContent,
    ranks: b.querySelector('.finding-ranks').textContent,
  })));
  const byKind = {};
  for (const {kind, ranks} of items) {
    const list = ranks.replace(/^ranks? /, '').split(', ').flatMap((part) => {
      const [a, b] = part.split('–').map(Number);
      return b === undefined ? [a] : Array.from({length: b - a + 1}, (_, i) => a + i);
    });
    (byKind[kind] ||= []).push(...list);
  }
  return sortedInjected(byKind);
}

export function sortedInjected(injected) {
  const out = {};
  for (const kind of Object.keys(injected).sort()) out[kind] = [...injected[kind]].sort((a, b) => a - b);
  return out;
}

export function sortedKeys(object) {
  const out = {};
  for (const key of Object.keys(object).sort()) out[key] = object[key];
  return out;
}

// (dp, cp, ep) = (8192, 2, 8): 16,384 ranks on 2,048 nodes of 8. Every 7th rank stops at launch
// (initializing), the others are ready.
// Used by live_scale.test.mjs and bench/web/live_render.mjs.
export async function postBigJob(url, job) {
  const world = 16384;
  const topology = {dp: 8192, cp: 2, ep: 8};
  let body = [];
  for (let rank = 0; rank < world; ++rank) {
    const common = {job, rank, world_size: world, host: `node-${Math.floor(rank / 8)}`, local_rank: rank % 8, ts: 1000};
    body.push({...common, phase: 'launch', status: 'started'});
    if (rank % 7 !== 0) body.push({...common, phase: 'ready', status: 'done', ts: 1001, topology});
    if (body.length >= 4000) {
      await postEvents(url, body);
      body = [];
    }
  }
  if (body.length) await postEvents(url, body);
  return {world, initializing: Math.ceil(world / 7)};
}

export function axeSource() {
  return readFileSync(new URL('./node_modules/axe-core/axe.min.js', import.meta.url), 'utf8');
}

export {spawnSync};
