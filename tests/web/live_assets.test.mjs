// The page as the collector serves it: every file of web/ compiled in, served without a token, every answer
// (page, API, errors) with the Content-Security-Policy and nosniff headers, unknown files a 404 in JSON,
// /palette.css from the one palette table; with a token the page asks for it once and keeps it for the tab.
import {test, after} from 'node:test';
import assert from 'node:assert/strict';
import {readdirSync, readFileSync, statSync} from 'node:fs';
import {join, relative} from 'node:path';
import {eventually, launchBrowser, simulate, startServe, tempDir} from './harness.mjs';

const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const webDir = new URL('../../web/', import.meta.url).pathname;
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function assertHeaders(response, what) {
  assert.equal(response.headers.get('content-security-policy'), csp, `${what}: CSP`);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff', `${what}: nosniff`);
}

test('every file of web/ is served as it is, with its type, without a token, with the security headers', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db'), args: ['--token', 'sesame']});
  cleanup.push(() => dir.remove(), () => serve.stop());
  const types = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8'};
  for (const file of filesUnder(webDir)) {
    const path = `/${relative(webDir, file)}`;
    const response = await fetch(serve.url + path);
    assert.equal(response.status, 200, path);
    assertHeaders(response, path);
    const ext = path.slice(path.lastIndexOf('.'));
    if (types[ext]) assert.equal(response.headers.get('content-type'), types[ext], path);
    assert.ok(Buffer.from(await response.arrayBuffer()).equals(readFileSync(file)), `${path}: the same bytes`);
  }
  const root = await fetch(`${serve.url}/`);
  assert.equal(root.status, 200);
  assert.equal(await root.text(), readFileSync(join(webDir, 'index.html'), 'utf8'));

  // The palette: hand-copied values of the table (core/src/monitor/palette.cpp), light and dark.
  const palette = await fetch(`${serve.url}/palette.css`);
  assertHeaders(palette, '/palette.css');
  assert.equal(palette.headers.get('content-type'), 'text/css; charset=utf-8');
  const css = await palette.text();
  assert.ok(css.startsWith(':root {\n  --ms-window: #f3f4f6;\n'), css.slice(0, 80));
  assert.ok(css.includes('  --ms-state-ready: #5cb176;\n'));
  assert.ok(css.includes(':root[data-theme="dark"] {\n  --ms-window: #1b1c1f;\n'));

  // Unknown files of the page: 404 in JSON, still without a token; the API keeps its token.
  for (const [path, status, error] of [
    ['/live/nope.js', 404, 'no such file: /live/nope.js'],
    ['/shared/', 404, 'no such file: /shared/'],
    ['/planner/x.css', 404, 'no such file: /planner/x.css'],
    ['/api/v1/jobs', 401, 'missing or wrong bearer token'],
    ['/nothing', 401, 'missing or wrong bearer token'],
  ]) {
    const response = await fetch(serve.url + path);
    assert.equal(response.status, status, path);
    assertHeaders(response, path);
    assert.deepEqual(await response.json(), {error}, path);
  }
  const post = await fetch(`${serve.url}/app.js`, {method: 'POST', body: 'x'});
  assert.equal(post.status, 405);
  assert.deepEqual(await post.json(), {error: 'use GET'});
  const api = await fetch(`${serve.url}/api/v1/health`, {headers: {Authorization: 'Bearer sesame'}});
  assert.equal(api.status, 200);
  assertHeaders(api, '/api/v1/health');
});

test('with a token the page asks for it once, keeps it for the tab and never puts it in a URL', async () => {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db'), args: ['--token', 'sesame']});
  cleanup.push(() => dir.remove(), () => serve.stop());
  await simulate(serve.url, ['--dp', '4', '--job', 'tokened', '--token', 'sesame']);
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const {page} = browser;
  const urls = [];
  page.on('request', (r) => urls.push(r.url()));
  page.on('websocket', (ws) => urls.push(ws.url()));
  await page.goto(`${serve.url}/`);
  await eventually(() => page.isVisible('#token-dialog'));
  await page.fill('#token-input', 'wrong');
  await page.click('#token-submit');
  // A wrong token: asked again, saying why.
  await eventually(async () => (await page.isVisible('#token-dialog')) && (await page.isVisible('#token-error')));
  assert.equal(await page.textContent('#token-error'), 'missing or wrong bearer token');
  await page.fill('#token-input', 'sesame');
  await page.click('#token-submit');
  await eventually(async () => (await page.$$eval('.job-name', (n) => n.map((x) => x.textContent))).join() === 'tokened');
  assert.equal(await page.isVisible('#token-dialog'), false);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('meshscope.token')), 'sesame');
  // Another page of the same tab: no question.
  await page.reload();
  await eventually(async () => (await page.$$('.job-name')).length === 1);
  assert.equal(await page.isVisible('#token-dialog'), false);
  assert.ok(urls.every((u) => !u.includes('sesame') && !u.includes('wrong')), urls.join('\n'));
});
