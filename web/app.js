// The shell: hash router (#/live, #/live/<JOB>?rank=R, #/plan?..., #/tours, #/sandbox, #/peers?...), the nav,
// the token dialog, the connection banner and the tour runner (over every page). Pages are modules exporting
// mount(root, ctx) and unmount() (and, optionally, update(params) to follow a new hash without being rebuilt);
// ctx = {api, params, navigate(hash), stream, parser, tours} (parser: the worker that parses the stream and the
// ranks snapshots, shared/parser.js).
import {createApi, storedToken} from './shared/api.js';
import {Parser} from './shared/parser.js';
import {Stream} from './shared/stream.js';
import {setText} from './shared/dom.js';
import {TourRunner} from './tours/tour_runner.js';

const routes = {
  live: () => import('./live/live_page.js'),
  plan: () => import('./planner/planner_page.js'),
  tours: () => import('./tours/tours_page.js'),
  sandbox: () => import('./sandbox/sandbox_page.js'),
  peers: () => import('./peers/peers_page.js'),
};
const titles = {live: 'Live', plan: 'Planner', tours: 'Tours', sandbox: 'Sandbox', peers: 'Peers'};

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

// Resolves once the page of `hash` has mounted (the tour runner highlights on it next).
function navigate(hash, {replace = false} = {}) {
  if (location.hash === hash) return routing;
  if (replace) {
    history.replaceState(null, '', hash);
    return route();
  }
  // The hashchange listener below routes first; this one then hands over that route.
  const routed = new Promise((resolve) => window.addEventListener('hashchange', () => resolve(routing), {once: true}));
  location.hash = hash;
  return routed;
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
    p.textContent = `No page "${name}". Open a page above.`;
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
  document.title = `MeshScope · ${titles[name]}`;
  module.mount(page, {api, params, navigate, stream, parser, tours});
}

function route() {
  routing = routing.then(routeNow, routeNow);
  return routing;
}

// The tour runner lives beside the pages: it routes them, so it must outlive each one.
const tours = new TourRunner({api, navigate, routed: () => routing});

window.addEventListener('hashchange', route);
if (!location.hash) history.replaceState(null, '', '#/live');
stream.start();
route();
tours.restore();
// For tests and benchmarks: resolves once the current route has mounted.
window.meshscope = {routed: () => routing, stream, parser};
