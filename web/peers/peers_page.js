// The peers page (#/peers?world=&cp=&ep=&gpus_per_node=&rank=): one job's expert-parallel groups as
// FSDPTurbo, TorchTitan and Megatron-Core each lay them out, side by side (GET /api/v1/peers,
// meshscope.peers/1, docs/peers.md: every layout is core's). A group with members on more than one node is
// marked; choosing a rank shows its ep group in all three. A framework that refuses the shape shows its own
// error. Contract (web/app.js): mount(root, ctx), update(params), unmount().
import {el, replaceChildren, setText} from '../shared/dom.js';
import {announceRank} from '../shared/learner.js';
import {ensureStylesheet} from '../shared/stylesheet.js';

const titles = {fsdpturbo: 'FSDPTurbo', torchtitan: 'TorchTitan', megatron: 'Megatron-Core'};
const fields = [
  {name: 'world', label: 'World size', fallback: '16'},
  {name: 'cp', label: 'cp (context)', fallback: '2'},
  {name: 'ep', label: 'ep (expert)', fallback: '2'},
  {name: 'gpus_per_node', label: 'GPUs per node', fallback: '8'},
];
const typingDelayMs = 200;

let page = null;

class PeersPage {
  constructor(root, ctx) {
    this.api = ctx.api;
    this.seq = 0;
    this.doc = null;
    this.rank = null;
    ensureStylesheet(new URL('./peers.css', import.meta.url));
    this.inputs = {};
    const controls = fields.map((f) => {
      const id = `peers-${f.name}`;
      const input = el('input', {id, name: f.name, type: 'text', inputmode: 'numeric', autocomplete: 'off',
        spellcheck: 'false'});
      input.addEventListener('input', () => {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.load(true), typingDelayMs);
      });
      this.inputs[f.name] = input;
      return el('div', {class: 'peers-field'}, el('label', {for: id}, f.label), input);
    });
    const form = el('form', {class: 'peers-form', 'aria-label': 'Job shape'}, ...controls);
    form.addEventListener('submit', (event) => event.preventDefault());
    this.error = el('p', {class: 'peers-error error', role: 'alert', hidden: true});
    this.summary = el('p', {class: 'peers-summary', role: 'status'});
    this.columns = el('div', {class: 'peers-columns', 'data-anchor': 'peers.layouts'});
    this.root = el('div', {class: 'peers-page'},
      el('h1', {}, 'Peers side by side'),
      el('p', {class: 'peers-intro'},
        'The same world, cp and ep as three frameworks lay them out: which ranks share an expert-parallel (ep) ' +
        'group, and which groups leave a node. Choose a rank to see its ep group in each.'),
      form, this.error, this.summary, this.columns);
    this.columns.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-rank]');
      if (button) this.choose(Number(button.dataset.rank));
    });
    root.append(this.root);
    this.update(ctx.params || {});
  }

  destroy() {
    clearTimeout(this.timer);
    ++this.seq;
    this.root.remove();
  }

  update(params) {
    for (const f of fields) {
      const given = params[f.name] !== undefined && params[f.name] !== '';
      this.inputs[f.name].value = given ? params[f.name] : f.fallback;
    }
    const rank = Number(params.rank);
    this.rank = params.rank !== undefined && Number.isInteger(rank) && rank >= 0 ? rank : null;
    this.load(false);
  }

  query() {
    const query = new URLSearchParams();
    for (const f of fields) query.set(f.name, this.inputs[f.name].value.trim());
    return query;
  }

  async load(typed) {
    const seq = ++this.seq;
    const query = this.query();
    if (typed) {
      if (this.rank !== null) query.set('rank', String(this.rank));
      const hash = `#/peers?${query}`;
      if (location.hash !== hash) history.replaceState(history.state, '', hash);
      query.delete('rank');
    }
    let doc;
    try {
      doc = await this.api.get(`/api/v1/peers?${query}`);
    } catch (error) {
      if (seq !== this.seq) return;
      setText(this.error, error.message);
      this.error.hidden = false;
      return;
    }
    if (seq !== this.seq) return;
    this.error.hidden = true;
    this.doc = doc;
    if (this.rank !== null && this.rank >= doc.world) this.rank = null;
    this.render();
  }

  choose(rank) {
    this.rank = rank;
    announceRank('peers', rank);  // a tour step may be waiting for this rank (web/tours/tour_runner.js)
    const query = this.query();
    query.set('rank', String(rank));
    history.replaceState(history.state, '', `#/peers?${query}`);
    this.render();
    this.columns.querySelector(`button[data-rank="${rank}"]`)?.focus();
  }

  render() {
    const doc = this.doc;
    setText(this.summary, `world ${doc.world} · cp ${doc.cp} · ep ${doc.ep} · ${doc.gpus_per_node} GPUs per node` +
      (this.rank === null ? '' : ` · rank ${this.rank} chosen`));
    replaceChildren(this.columns, ...doc.frameworks.map((f) => this.column(f, doc.gpus_per_node)));
  }

  column(framework, gpusPerNode) {
    const title = titles[framework.framework] || framework.framework;
    const headingId = `peers-${framework.framework}-heading`;
    const section = el('section', {class: 'peers-column', 'data-framework': framework.framework,
      'aria-labelledby': headingId}, el('h2', {id: headingId}, title));
    if (framework.error) {
      section.append(el('p', {class: 'peers-refused'}, `${framework.error.type}: ${framework.error.message}`));
      return section;
    }
    const ep = framework.dims.find((d) => d.name === 'ep') || framework.dims[0];
    const verb = ep.cross_node_groups === 1 ? 'leaves' : 'leave';
    section.append(el('p', {class: 'peers-count'}, ep.cross_node_groups === 0
      ? `${ep.groups.length} ep groups, each within one node`
      : `${ep.cross_node_groups} of ${ep.groups.length} ep groups ${verb} a node`));
    const others = framework.dims.filter((d) => d !== ep).map((d) => d.name);
    if (others.length) section.append(el('p', {class: 'peers-dims muted'}, `also: ${others.join(', ')}`));
    const list = el('ol', {class: 'peers-groups', 'aria-label': `${title} ep groups`});
    ep.groups.forEach((group, i) => {
      // Ranks fill nodes in turn (rank / GPUs per node), as every framework here places them.
      const leaves = new Set(group.map((r) => Math.floor(r / gpusPerNode))).size > 1;
      const chosen = this.rank !== null && group.includes(this.rank);
      const item = el('li', {class: 'peers-group', 'data-leaves-node': String(leaves),
        'data-chosen': chosen ? 'true' : null},
      el('span', {class: 'peers-group-label'}, `g${i}`),
      ...group.map((r) => el('button', {type: 'button', class: 'peers-rank', 'data-rank': String(r),
        'aria-pressed': String(r === this.rank), 'aria-label': `rank ${r}`}, String(r))),
      leaves ? el('span', {class: 'peers-leaves'}, 'leaves the node') : null);
      list.append(item);
    });
    section.append(list);
    return section;
  }
}

export function mount(root, ctx) {
  unmount();
  page = new PeersPage(root, ctx);
}

export function update(params) {
  page?.update(params || {});
}

export function unmount() {
  page?.destroy();
  page = null;
}
