// The shell: hash router (#/live, #/live/<JOB>?rank=R, #/plan?...), the nav, the token dialog and the
// connection banner. Pages are modules exporting mount(root, ctx) and unmount() (and, optionally,
// update(params) to follow a new hash without being rebuilt); ctx = {api, params, navigate(hash), stream,
// parser} (parser: the worker that parses the stream and the ranks snapshots, shared/parser.js).
import {createApi, storedToken} from './shared/api.js';
import {Parser} from './shared/parser.js';
import {Stream} from './shared/stream.js';
import {setText} from './shared/dom.js';

const routes = {
  live: () => import('./live/live_page.js'),
  plan: () => import('./planner/planner_page.js'),
};

const page = document.getElementById('page');
const banner = document.getElementById('banner');
const connection = document.getElementById('connection');
const dialog = document.getElementById('token-dialog');
const tokenForm = document.getElementById('token-form');
const tokenInput = document.getElementById('token-input');
const tokenError = document.getElementById('token-error');

// Dark when the system says so; the palette carries both schemes (/palette.css).
const darkQuery = matchMedia('(prefers-color-scheme: dark)');
function applyScheme() {
  if (darkQuery.matches) document.documentElement.setAttribute('data-theme', 'dark');
  else document.documentElement.removeAttribute('data-theme');
  window.dispatchEvent(new Event('meshscope-theme'));
}
darkQuery.addEventListener('change', applyScheme);
applyScheme();

// The token dialog: one question at a time, answered by a non-empty token.
function askToken(reason) {
  return new Promise((resolve) => {
    tokenError.hidden = !reason;
    setText(tokenError, reason || '');
    tokenInput.value = '';
    const submit = (event) => {
      event.preventDefault();
      const token = tokenInput.value.trim();
      if (!token) return;
      tokenForm.removeEventListener('submit', submit);
      dialog.close();
      resolve(token);
    };
    tokenForm.addEventListener('submit', submit);
    // Escape would leave the page without data and without a way back: keep the dialog up.
    dialog.addEventListener('cancel', (event) => event.preventDefault(), {once: true});
    if (!dialog.open) dialog.showModal();
    tokenInput.focus();
  });
}

// Every token typed in also reaches the stream (it may be waiting without one).
const api = createApi((reason) => askToken(reason).then((token) => {
  setTimeout(() => stream.tokenChanged(), 0);  // after the API has stored it
  return token;
}));
const parser = new Parser();
const stream = new Stream({
  parser,
  token: storedToken,
  onAuthRefused: () => api.requestToken('missing or wrong bearer token'),
});

// The banner tells when the stream is down; the status on the right when it is live.
stream.subscribe((event) => {
  if (event.type !== 'state') return;
  if (event.state === 'down') {
    banner.hidden = false;
    setText(banner, `Lost the connection to the collector (${event.detail}). Reconnecting…`);
    setText(connection, 'Reconnecting…');
    connection.dataset.state = 'down';
  } else if (event.state === 'live') {
    banner.hidden = true;
    setText(banner, '');
    setText(connection, `Live from ${location.host}`);
    connection.dataset.state = 'live';
  }
});

// "#/live/j%201?rank=3" -> {name: 'live', params: {job: 'j 1', rank: '3'}}
function parseHash(hash) {
  const text = hash.replace(/^#\/?/, '');
  const [pathPart, queryPart = ''] = text.split('?', 2);
  const segments = pathPart.split('/').filter((s) => s !== '');
  const name = segments[0] || 'live';
  const params = Object.fromEntries(new URLSearchParams(queryPart));
  if (segments.length > 1) {
    try {
      params.job = decodeURIComponent(segments.slice(1).join('/'));
    } catch {
      params.job = segments.slice(1).join('/');
    }
  }
  return {name, params};
}

let current = {name: '', module: null};
let routing = Promise.resolve();

function navigate(hash, {replace = false} = {}) {
  if (location.hash === hash) return;
  if (replace) {
    history.replaceState(null, '', hash);
    route();
  } else {
    location.hash = hash;
  }
}

async function routeNow() {
  const {name, params} = parseHash(location.hash);
  const load = routes[name];
  for (const link of document.querySelectorAll('nav a')) {
    const active = link.getAttribute('href') === `#/${name}`;
    if (active) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  if (!load) {
    current.module?.unmount();
    current = {name: '', module: null};
    page.replaceChildren();
    const p = document.createElement('p');
    p.className = 'page-error';
    p.textContent = `No page "${name}". Open Live or Planner above.`;
    page.append(p);
    return;
  }
  if (current.name === name && current.module?.update) {
    current.module.update(params);
    return;
  }
  current.module?.unmount();
  page.replaceChildren();
  let module;
  try {
    module = await load();
  } catch (e) {
    const p = document.createElement('p');
    p.className = 'page-error';
    p.textContent = `The ${name} page could not be loaded: ${e.message}`;
    page.append(p);
    current = {name: '', module: null};
    return;
  }
  current = {name, module};
  document.title = name === 'plan' ? 'MeshScope · Planner' : 'MeshScope · Live';
  module.mount(page, {api, params, navigate, stream, parser});
}

function route() {
  routing = routing.then(routeNow, routeNow);
  return routing;
}

window.addEventListener('hashchange', route);
if (!location.hash) history.replaceState(null, '', '#/live');
stream.start();
route();
// For tests and benchmarks: resolves once the current route has mounted.
window.meshscope = {routed: () => routing, stream, parser};
