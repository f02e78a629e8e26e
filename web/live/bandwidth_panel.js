// "Bus bandwidth": meshscope-probe's figures for the selected job (docs/probe.md), from the collector's
// GET /api/v1/jobs/{job}/communicators. Per dim and collective the median group's bus bandwidth at the largest
// size, with the slowest and fastest group; per group its figure (its slowest member's, at its largest size),
// reported/members and the slow / not-formed marks. Hidden for a job without probe reports, as the desktop's
// panel is (ui/live/qml/LiveCommunicatorList.qml, ui/live/communicators_model.cpp: the words and numbers are its).
//
// The page calls follow(job, changed) from its change callback; the answer is asked again when the stream
// brings changes for that job, at most once a second, one request at a time.
import {el, replaceChildren, setText} from '../shared/dom.js';

const minIntervalMs = 1000;

// "1.25 GB/s", "12.5 GB/s", "0.012 GB/s" (the desktop's bandwidth_text).
export function bandwidthText(gbps) {
  return `${gbps.toFixed(gbps >= 10 ? 1 : gbps >= 0.1 ? 2 : 3)} GB/s`;
}

// 4194304 -> "4 MiB", 1536 -> "1536 B" (the desktop's size_text: whole units only).
export function sizeText(bytes) {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let unit = 0;
  while (bytes >= 1024 && bytes % 1024 === 0 && unit < 3) {
    bytes /= 1024;
    ++unit;
  }
  return `${bytes} ${units[unit]}`;
}

// "[0, 2]"; more than 12 members: the first four, "...", the last (the desktop's members_text).
export function membersText(members) {
  const shown = members.length > 12 ? [...members.slice(0, 4), '...', members[members.length - 1]] : members;
  return `[${shown.map(String).join(', ')}]`;
}

const number = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

// A group's figure: its lowest busbw at the largest size it was measured at (null: not measured).
export function groupFigure(group) {
  const results = Array.isArray(group.results) ? group.results : [];
  let largest = 0;
  for (const r of results) largest = Math.max(largest, number(r.bytes));
  let figure = null;
  for (const r of results) {
    if (number(r.bytes) !== largest) continue;
    if (!figure || number(r.busbw) < figure.busbw) {
      figure = {busbw: number(r.busbw), collective: String(r.collective ?? ''), bytes: largest};
    }
  }
  return figure;
}

// The dims in the collector's order, each with its summaries and its groups; the measured dims first, then
// those only created (edp, size-1 dims: docs/probe.md), so the figures are at the top.
function sections(body) {
  const byDim = new Map();
  const section = (dim) => {
    if (!byDim.has(dim)) byDim.set(dim, {dim, summaries: [], groups: []});
    return byDim.get(dim);
  };
  for (const d of body.dims) section(String(d.dim ?? '')).summaries.push(d);
  for (const g of body.groups) section(String(g.dim ?? '')).groups.push(g);
  const all = [...byDim.values()];
  return [...all.filter((x) => x.summaries.length), ...all.filter((x) => !x.summaries.length)];
}

function swatch(dim) {
  return el('span', {class: 'bw-swatch', 'data-dim': dim, 'aria-hidden': 'true'});
}

// A row: its header holds the name and, under it, the detail lines (so the name can use the panel's width);
// the figure on the right.
function row(attributes, name, value, lines) {
  return el('tr', attributes,
    el('th', {scope: 'row', class: 'bw-label'}, name, ...lines.map((line) => el('span', {class: 'bw-line'}, line))),
    el('td', {class: 'bw-value'}, value));
}

function summaryRow(d) {
  const dim = String(d.dim ?? '');
  const collective = String(d.collective ?? '');
  const measured = typeof d.median_busbw === 'number';
  const lines = [`${number(d.groups)} groups · ${sizeText(number(d.bytes))}`];
  // Two halves that wrap between them, never inside.
  if (measured) {
    lines.push(el('span', {}, el('span', {class: 'bw-nowrap'}, `slowest ${bandwidthText(number(d.min_busbw))}`), ' · ',
      el('span', {class: 'bw-nowrap'}, `fastest ${bandwidthText(number(d.max_busbw))}`)));
  }
  return row({class: 'bw-dim', 'data-dim': dim, 'data-collective': collective,
    'data-median': measured ? String(d.median_busbw) : null,
    'data-min': measured ? String(d.min_busbw) : null, 'data-max': measured ? String(d.max_busbw) : null},
  el('span', {class: 'bw-name'}, swatch(dim), `${dim} · ${collective}`),
  measured ? bandwidthText(number(d.median_busbw)) : 'not measured', lines);
}

function groupRow(g) {
  const dim = String(g.dim ?? '');
  const members = Array.isArray(g.members) ? g.members : [];
  const state = String(g.state ?? '');
  const formed = state === '' || state === 'formed';
  const slow = g.slow === true;
  const figure = groupFigure(g);
  let value;
  if (!formed) value = state;
  else if (figure) value = bandwidthText(figure.busbw) + (slow ? ' slow' : '');
  else value = 'not measured';
  const detail = `${number(g.reported)}/${members.length} members` + (figure ? ` · ${sizeText(figure.bytes)}` : '');
  return row({class: `bw-group${slow || !formed ? ' bad' : ''}${figure || !formed ? '' : ' unmeasured'}`,
    'data-dim': dim, 'data-index': String(number(g.index)), 'data-state': state, 'data-slow': slow ? 'true' : 'false',
    'data-busbw': figure ? String(figure.busbw) : null},
  el('span', {class: 'bw-name'}, `${dim} group ${number(g.index)} ${membersText(members)}`), value, [detail]);
}

export class BandwidthPanel {
  constructor(host, {api}) {
    this.api = api;
    this.job = '';
    this.generation = 0;
    this.inFlight = false;
    this.again = false;
    this.timer = 0;
    this.lastStart = -Infinity;
    this.key = '';
    this.asked = [];  // performance.now() of the latest 64 requests (read by the browser test: the bound holds)
    this.heading = el('h2', {id: 'bandwidth-heading'}, 'Bus bandwidth');
    this.table = el('table', {class: 'bandwidth-table'});
    this.scroller = el('div', {class: 'bandwidth-scroll', tabindex: '0', role: 'region',
      'aria-labelledby': 'bandwidth-heading'}, this.table);
    // The scrolling table is the panel's one landmark (named by the heading) and a Tab stop, so the keyboard
    // can scroll it; the section around it stays unnamed, or the page would hold two regions of one name.
    this.panel = el('section', {class: 'panel bandwidth-panel', hidden: true}, this.heading, this.scroller);
    host.append(this.panel);
    ensureStylesheet();
  }

  destroy() {
    ++this.generation;
    clearTimeout(this.timer);
    this.panel.remove();
  }

  // job: the page's job now; changed: the stream brought changes for it (or its snapshots were re-read).
  follow(job, changed) {
    if (job !== this.job) {
      this.job = job;
      ++this.generation;
      clearTimeout(this.timer);
      this.timer = 0;
      this.inFlight = false;
      this.again = false;
      this.lastStart = -Infinity;
      this.asked = [];
      this.show(null);
      if (job) this.request();
    } else if (changed && job) {
      this.request();
    }
  }

  request() {
    if (this.inFlight || this.timer) {
      this.again = true;
      return;
    }
    const wait = this.lastStart + minIntervalMs - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = 0;
        this.request();
      }, wait);
      return;
    }
    this.fetch();
  }

  async fetch() {
    const generation = this.generation;
    this.inFlight = true;
    this.again = false;
    this.lastStart = performance.now();
    this.asked.push(this.lastStart);
    if (this.asked.length > 64) this.asked.shift();
    try {
      const body = await this.api.get(`/api/v1/jobs/${encodeURIComponent(this.job)}/communicators`);
      if (generation === this.generation) this.show(body);
    } catch {
      // A job the collector does not know (yet), or the collector away: what is shown stays; the next
      // change asks again.
    } finally {
      if (generation === this.generation) {
        this.inFlight = false;
        if (this.again) this.request();
      }
    }
  }

  show(body) {
    const objects = (list) => (Array.isArray(list) ? list.filter((x) => x && typeof x === 'object') : []);
    const dims = objects(body?.dims);
    const groups = objects(body?.groups);
    const key = JSON.stringify([dims, groups]);
    if (key === this.key) return;
    this.key = key;
    this.panel.hidden = dims.length + groups.length === 0;
    setText(this.heading, `Bus bandwidth (${dims.length} dims, ${groups.length} groups)`);
    const parts = sections({dims, groups}).map((s) => el('tbody', {'data-dim': s.dim},
      ...s.summaries.map(summaryRow), ...s.groups.map(groupRow)));
    const columns = el('colgroup', {}, el('col', {}), el('col', {class: 'bw-value-column'}));
    const head = el('thead', {class: 'visually-hidden'}, el('tr', {},
      el('th', {scope: 'col'}, 'Dim or group'), el('th', {scope: 'col'}, 'Bus bandwidth')));
    replaceChildren(this.table, columns, head, ...parts);
  }
}

function ensureStylesheet() {
  if (document.querySelector('link[data-bandwidth-css]')) return;
  const href = new URL('./bandwidth_panel.css', import.meta.url).pathname;
  document.head.append(el('link', {rel: 'stylesheet', href, 'data-bandwidth-css': true}));
}
