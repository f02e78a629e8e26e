// A same-origin front for the Planner's browser tests until the collector serves web/ itself (web-live's
// meshscope_web_assets): serves web/planner/, the test harness and /palette.css (from the palette table), and
// forwards /api/ to a real `meshscope serve`. It answers with the contract's CSP, so the page runs under it.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
export const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";
const types = {'.js': 'text/javascript', '.css': 'text/css', '.html': 'text/html; charset=utf-8'};

function paletteCss() {
  const table = fs.readFileSync(path.join(repo, 'ui/style/palette_table.cpp'), 'utf8');
  const light = [];
  const dark = [];
  for (const m of table.matchAll(/\{Colour::\w+, "([\w-]+)", 0x([0-9a-fA-F]{6}), 0x([0-9a-fA-F]{6})\}/g)) {
    light.push(`  --ms-${m[1]}: #${m[2]};`);
    dark.push(`  --ms-${m[1]}: #${m[3]};`);
  }
  return `:root {\n${light.join('\n')}\n}\n@media (prefers-color-scheme: dark) {\n:root {\n${dark.join('\n')}\n}\n}\n`;
}

export function startProxy(collectorPort) {
  const server = http.createServer((request, response) => {
    const url = new URL(request.url, 'http://127.0.0.1');
    const headers = {'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff'};
    if (url.pathname.startsWith('/api/')) {
      const upstream = http.request({host: '127.0.0.1', port: collectorPort, path: request.url, method: request.method,
        headers: request.headers}, (answer) => {
        response.writeHead(answer.statusCode, {...answer.headers, ...headers});
        answer.pipe(response);
      });
      upstream.on('error', () => { response.writeHead(502, headers); response.end(); });
      request.pipe(upstream);
      return;
    }
    let file = null;
    if (url.pathname === '/palette.css') {
      response.writeHead(200, {...headers, 'Content-Type': 'text/css'});
      response.end(paletteCss());
      return;
    }
    if (url.pathname === '/' || url.pathname === '/index.html') file = path.join(here, 'planner_harness.html');
    else if (url.pathname.startsWith('/planner/')) file = path.join(repo, 'web', url.pathname);
    else if (url.pathname.startsWith('/tests/')) file = path.join(here, url.pathname.slice('/tests/'.length));
    if (!file || !file.startsWith(repo) || !fs.existsSync(file)) {
      response.writeHead(404, {...headers, 'Content-Type': 'application/json'});
      response.end('{"error": "no such asset"}');
      return;
    }
    response.writeHead(200, {...headers, 'Content-Type': types[path.extname(file)] || 'application/octet-stream'});
    response.end(fs.readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
