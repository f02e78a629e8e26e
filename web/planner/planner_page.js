// The Planner page (route #/plan): inputs -> GET /api/v1/plan (compact form) -> summary, mesh grid and legend;
// a selected rank -> GET /api/v1/plan/rank -> inspector and the rank's groups on the grid; exports from
// GET /api/v1/plan/export. Every layout fact and message comes from the collector, i.e. from the C++ core;
// this module only wires the views. Contract (web/app.js): mount(root, ctx), update(params), unmount();
// ctx = {api, params, navigate, ...}.
import {MeshCanvas} from './mesh_canvas.js';
import {modelMeshParameters, PlanClient, planQuery} from './plan_client.js';
import {PlanCost} from './plan_cost.js';
import {PlanExports} from './plan_exports.js';
import {PlanForm} from './plan_form.js';
import {GridLegend, MeshSwitch, PlanSummary, topologyText} from './plan_summary.js';
import {el, setText} from './planner_dom.js';
import {RankInspector} from './rank_inspector.js';
import {announceRank} from '../shared/learner.js';

const defaults = {world: '16', cp: '1', ep: '8', mp_replicate: '1', mp_shard: '', gpus_per_node: '8', order: 'torch29'};
const typingDelayMs = 200;

class PlannerPage {
  constructor(root, ctx) {
    this.root = root;
    this.client = new PlanClient(ctx.api);
    this.plan = null;        // the last valid plan (compact form)
    this.shownMesh = 'expert';
    this.selected = null;
    this.planSeq = 0;
    this.rankSeq = 0;
    this.rankInFlight = false;
    this.timer = null;

    this.form = new PlanForm({
      onChange: (name) => this.inputChanged(name),
      onSuggestion: (field, value) => this.applySuggestion(field, value),
    });
    this.summary = new PlanSummary();
    this.meshSwitch = new MeshSwitch((mesh) => this.showMesh(mesh));
    this.grid = new MeshCanvas({onSelect: (rank) => this.select(rank), onOpen: () => this.inspector.focus()});
    this.legend = new GridLegend((dim) => this.toggleShownDim(dim));
    this.shownDim = null;
    this.inspector = new RankInspector();
    this.exports = new PlanExports({
      fetchText: (format) => this.client.exportText(this.planRequest(), format),
      grid: this.grid,
      describe: () => ({
        title: `MeshScope plan ${topologyText(this.plan.topology)}`,
        description: `${this.grid.meshName()} mesh, ${this.plan.cluster.nodes} nodes × ${this.plan.cluster.gpus_per_node} GPUs per node, ` +
          `group order ${this.plan.creation_order}${this.selected === null ? '' : `, rank ${this.selected} selected`}`,
      }),
    });
    this.cost = new PlanCost({
      fetchAdvice: (query) => this.client.advise(query),
      onLayout: ({cp, ep}) => {
        this.form.set('cp', cp);
        this.form.set('ep', ep);
        this.drive = 'world';
        this.inputChanged('ep');
        clearTimeout(this.timer);
        this.update();
      },
    });
    this.empty = el('p', {class: 'planner-note', hidden: true}, 'No valid plan yet: fix the inputs above.');
    this.page = el('div', {class: 'planner-page'},
      el('h1', {class: 'planner-title'}, 'Planner'),
      el('div', {class: 'planner-columns'},
        el('div', {class: 'planner-side'}, this.form.root, this.summary.root),
        el('section', {class: 'planner-main', 'aria-label': 'Mesh grid'}, this.meshSwitch.root, this.empty,
          this.grid.root, this.legend.root, this.exports.root, this.cost.root),
        el('div', {class: 'planner-right'}, this.inspector.root)));
    this.stylesheet = ensureStylesheet();
    root.append(this.page);
    this.loadParams(ctx.params || {});
    this.update();
  }

  destroy() {
    clearTimeout(this.timer);
    this.planSeq += 1;
    this.rankSeq += 1;
    this.grid.destroy();
    this.page.remove();
  }

  // A deep link: every given parameter as typed; both dp and world when both are given (they must agree).
  loadParams(params) {
    const given = (name) => params[name] !== undefined && params[name] !== null && params[name] !== '';
    const sized = given('dp') || given('world');  // else the default world
    for (const name of ['world', 'dp', 'cp', 'ep', 'mp_replicate', 'mp_shard', 'gpus_per_node', 'order']) {
      const fallback = sized && (name === 'world' || name === 'dp') ? '' : defaults[name] ?? '';
      this.form.set(name, given(name) ? params[name] : fallback);
    }
    this.drive = given('dp') && given('world') ? 'both' : given('dp') ? 'dp' : 'world';
    const rank = Number(params.rank);
    this.selected = given('rank') && Number.isInteger(rank) && rank >= 0 ? rank : null;
    if (params.view === 'data') this.shownMesh = 'data';
    // A tour step's mesh (docs/tours.md).
    if (params.mesh === 'data' || params.mesh === 'expert' || params.mesh === 'model') this.shownMesh = params.mesh;
  }

  // What the inputs ask for: the size the person typed last (dp or world), or both from a deep link.
  formRequest() {
    const request = {};
    for (const name of ['cp', 'ep', 'mp_replicate', 'mp_shard', 'gpus_per_node', 'order']) {
      request[name] = this.form.value(name);
    }
    if (this.drive !== 'world') request.dp = this.form.value('dp');
    if (this.drive !== 'dp') request.world = this.form.value('world');
    return request;
  }

  // The plan on screen, as a request (for its ranks and exports).
  planRequest() {
    const t = this.plan.topology;
    return {world: t.world, cp: t.cp, ep: t.ep, ...modelMeshParameters(t), gpus_per_node: this.plan.cluster.gpus_per_node,
      order: this.plan.creation_order};
  }

  inputChanged(name) {
    if (name === 'dp' || name === 'world') this.drive = name;
    else if (this.drive === 'both') this.drive = 'world';
    clearTimeout(this.timer);
    this.planPending = true;
    this.timer = setTimeout(() => this.update(), typingDelayMs);
  }

  applySuggestion(field, value) {
    this.form.set(field, value);
    this.inputChanged(field);
    clearTimeout(this.timer);
    this.update();
  }

  async update() {
    const seq = ++this.planSeq;
    this.planPending = true;
    let answer;
    try {
      answer = await this.client.plan(this.formRequest());
    } catch (error) {
      answer = {status: 0, body: {error: `The collector did not answer: ${error.message}`}};
    }
    if (seq !== this.planSeq) return;  // a newer request is on its way
    this.planPending = false;
    if (answer.status === 200) this.applyPlan(answer.body);
    else this.form.showError(answer.body || {}, this.plan ? topologyText(this.plan.topology) : '');
    // Without any valid plan there is nothing to draw, inspect or export yet.
    this.empty.hidden = this.plan !== null;
    for (const part of [this.meshSwitch, this.grid, this.legend, this.exports]) part.root.hidden = this.plan === null;
  }

  applyPlan(plan) {
    this.form.clearError();
    this.plan = plan;
    const t = plan.topology;
    if (this.drive !== 'world') this.form.set('world', t.world);
    if (this.drive !== 'dp') this.form.set('dp', t.dp);
    this.summary.show(plan);
    if (this.selected !== null && this.selected >= t.world) this.selected = null;
    this.showMesh(this.shownMesh);
    this.exports.refresh();
    this.cost.show(plan);
  }

  showMesh(mesh) {
    this.shownMesh = mesh;
    if (!this.plan) return;
    const hasExpert = this.plan.meshes.some((m) => m.name === 'expert');
    const shown = mesh === 'model' ? 'model' : mesh === 'expert' && hasExpert ? 'expert' : 'data';
    const planMesh = this.plan.meshes.find((m) => m.name === shown);
    if (this.shownDim && !planMesh.dim_names.includes(this.shownDim)) this.shownDim = null;  // the other mesh's
    this.grid.shownDim = this.shownDim;
    this.grid.setPlan(this.plan, shown);
    this.meshSwitch.show(shown, hasExpert, this.grid.layout.axesText());
    this.legend.show(planMesh, this.shownDim);
    this.loadRank();
  }

  toggleShownDim(dim) {
    this.shownDim = this.shownDim === dim ? null : dim;
    this.grid.setShownDim(this.shownDim);
    this.legend.show(this.grid.layout.mesh, this.shownDim);
  }

  select(rank) {
    this.selected = rank;
    announceRank('planner', rank);  // a tour step may be waiting for this rank (web/tours/tour_runner.js)
    this.grid.setSelection(rank, []);
    this.loadRank();
  }

  // One rank request at a time, the latest selection wins: holding an arrow key over a big plan asks the
  // collector for the rank the key stopped on, not for every rank it passed.
  async loadRank() {
    ++this.rankSeq;
    this.writeHash();
    if (this.selected === null || !this.plan) {
      this.grid.setSelection(null, []);
      this.inspector.showEmpty();
      return;
    }
    if (this.rankInFlight) return;  // the request in flight looks at rankSeq when it returns
    this.rankInFlight = true;
    let answer;
    let rank;
    let plan;
    do {
      ({selected: rank, plan} = this);
      const asked = this.rankSeq;
      answer = await this.client.rank(this.planRequest(), rank);
      if (asked === this.rankSeq) break;
    } while (this.selected !== null && this.plan);
    this.rankInFlight = false;
    if (this.selected !== rank || this.plan !== plan) return;  // a newer selection or plan is being shown
    const {status, body} = answer;
    if (status !== 200) {
      this.inspector.showError(body.error || `HTTP ${status}`);
      return;
    }
    this.inspector.show(body, this.plan);
    const mesh = body.meshes.find((m) => m.name === this.grid.meshName());
    this.grid.setSelection(rank, mesh ? mesh.groups : []);
  }

  // The layout on screen, for a tour's layout task: the plan shown, once it is what the inputs say (no error,
  // nothing typed since); null otherwise.
  layout() {
    if (!this.plan || !this.form.errorPanel.hidden || this.planPending) return null;
    const t = this.plan.topology;
    return {dp: t.dp, cp: t.cp, ep: t.ep, gpus_per_node: this.plan.cluster.gpus_per_node};
  }

  // Keeps the address a deep link to what is on screen, without a new history entry or a re-route.
  writeHash() {
    if (!this.plan || !window.location.hash.startsWith('#/plan')) return;
    const t = this.plan.topology;
    const query = planQuery({dp: t.dp, world: t.world, cp: t.cp, ep: t.ep, ...modelMeshParameters(t),
      gpus_per_node: this.plan.cluster.gpus_per_node, order: this.plan.creation_order});
    if (this.selected !== null) query.set('rank', String(this.selected));
    const hash = `#/plan?${query}`;
    if (window.location.hash !== hash) window.history.replaceState(window.history.state, '', hash);
  }
}

function ensureStylesheet() {
  const href = new URL('./planner.css', import.meta.url).pathname;
  let link = document.querySelector(`link[data-planner-css]`);
  if (!link) {
    link = el('link', {rel: 'stylesheet', href, 'data-planner-css': true});
    document.head.append(link);
  }
  return link;
}

let page = null;

export function mount(root, ctx) {
  unmount();
  page = new PlannerPage(root, ctx);
  window.meshscopePlanner = {layout: () => page?.layout() ?? null};  // the tour runner's layout task
}

// A new #/plan address while the page is shown (the shell calls this instead of mounting again).
export function update(params) {
  if (!page) return;
  page.loadParams(params || {});
  page.update();
}

export function unmount() {
  if (page) page.destroy();
  page = null;
  window.meshscopePlanner = null;
}

// For the browser tests and the SVG export check: the page's state, read-only.
export function debugState() {
  return page ? {selected: page.selected, mesh: page.grid.meshName(), plan: page.plan, svg: () => page.exports.svgText()} : null;
}
