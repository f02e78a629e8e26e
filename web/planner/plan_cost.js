// The Planner's cost (the desktop's Cost panel, docs/planner.md): a model, a GPU and a global batch -> GET
// /api/v1/advise, core's ranking of every layout of the plan's world at that global batch (meshscope.advice/1).
// Shows the plan's own step broken into compute and the exposed communication of each mesh dim, its tokens/s per
// GPU and MFU, the ranked layouts sorted by step time (a row puts its layout on screen), and the constants a cluster
// profile can set, each marked as from the user's cluster profile (`meshscope serve --cluster-profile FILE`) or a
// preset. Every number comes from the collector.
import {clear, el, setText} from './planner_dom.js';

export const costModels = ['qwen3-30b-a3b', 'qwen3-235b-a22b', 'deepseek-v3', 'mixtral-8x7b', 'qwen3.5-35b-a3b'];
const hardware = ['h100', 'h200', 'b200', 'gb200', 'a100'];

// "853.65 ms" below a second, "1.35 s" from one on (the desktop's ms_text).
export function timeText(seconds) {
  return seconds >= 1 ? `${seconds.toFixed(2)} s` : `${(seconds * 1e3).toFixed(2)} ms`;
}

function select(id, label, options, value) {
  const input = el('select', {id, class: 'planner-input'});
  for (const option of options) input.append(el('option', {value: option}, option));
  input.value = value;
  return {input, row: el('label', {class: 'planner-field', for: id}, el('span', {}, label), input)};
}

// The global batch in sequences; empty asks for the default (world x 1, what cp 1 runs with one micro-batch).
function globalBatch(id) {
  const input = el('input', {id, class: 'planner-input', type: 'text', inputmode: 'numeric', autocomplete: 'off',
    spellcheck: 'false', placeholder: 'world'});
  return {input, row: el('label', {class: 'planner-field', for: id}, el('span', {}, 'Global batch'), input)};
}

export class PlanCost {
  // fetchAdvice(query: URLSearchParams) -> Promise<{status, body}>; onLayout({cp, ep})
  constructor({fetchAdvice, onLayout}) {
    this.fetchAdvice = fetchAdvice;
    this.onLayout = onLayout;
    this.seq = 0;
    this.model = select('planner-cost-model', 'Model', ['none', ...costModels], 'none');
    this.hardware = select('planner-cost-hardware', 'GPU', hardware, 'h100');
    this.global = globalBatch('planner-cost-global');
    // Until the user picks a GPU the collector's default stands (its cluster profile's hardware, else h100).
    this.hardwareChosen = false;
    this.hardware.input.addEventListener('change', () => {
      this.hardwareChosen = true;
      this.refresh();
    });
    this.model.input.addEventListener('change', () => this.refresh());
    this.global.input.addEventListener('input', () => this.refresh());
    this.step = el('p', {class: 'planner-cost-step'});
    this.dims = el('ul', {class: 'planner-dims planner-cost-dims'});
    this.why = el('p', {class: 'planner-note planner-cost-why'});
    this.error = el('p', {class: 'planner-cost-error', role: 'alert', hidden: true});
    this.rankingText = el('p', {class: 'planner-muted'});
    this.table = el('table', {class: 'planner-cost-table'});
    this.profile = el('p', {class: 'planner-note planner-cost-profile', hidden: true});
    this.constants = el('ul', {class: 'planner-dims planner-cost-constants', 'aria-label': 'Constants'});
    this.body = el('div', {hidden: true}, this.step, this.dims, this.rankingText, this.why, this.table,
      el('h3', {class: 'planner-subheading'}, 'Constants: your cluster profile or presets'), this.profile,
      this.constants);
    this.root = el('section', {class: 'planner-summary planner-cost', 'aria-labelledby': 'planner-cost-heading'},
      el('h2', {class: 'planner-heading', id: 'planner-cost-heading'}, 'Cost'), this.model.row, this.hardware.row,
      this.global.row, this.error, this.body);
  }

  // plan: the compact plan on screen (its topology and cluster) or null.
  async show(plan) {
    this.plan = plan;
    await this.refresh();
  }

  async refresh() {
    const seq = ++this.seq;
    const model = this.model.input.value;
    if (!this.plan || model === 'none') {
      this.body.hidden = true;
      this.error.hidden = true;
      return;
    }
    const t = this.plan.topology;
    const query = new URLSearchParams({model, world: String(t.world), gpus_per_node: String(this.plan.cluster.gpus_per_node),
      show: '1000'});
    if (this.hardwareChosen) query.set('hardware', this.hardware.input.value);
    // The collector judges the text (core's messages in its 400s), so nothing is checked twice.
    const global = this.global.input.value.trim();
    if (global !== '') query.set('global_batch', global);
    const {status, body} = await this.fetchAdvice(query);
    if (seq !== this.seq) return;  // a newer plan or choice is being asked for
    if (status !== 200) {
      setText(this.error, body.error || `HTTP ${status}`);
      this.error.hidden = false;
      this.body.hidden = true;
      return;
    }
    this.error.hidden = true;
    this.body.hidden = false;
    if (!this.hardwareChosen) this.hardware.input.value = body.cluster.hardware;
    this.render(body, t);
    this.renderConstants(body.cluster_profile);
  }

  // meshscope.advice/1's cluster_profile: {file, note, constants: {name: {value, source, basis, label, unit}}}.
  renderConstants(profile) {
    const file = profile.file;
    this.profile.hidden = !file;
    setText(this.profile, file ? `cluster profile ${file}${profile.note ? ` not used: ${profile.note}` : ''}` : '');
    clear(this.constants);
    for (const [name, c] of Object.entries(profile.constants)) {
      const fromProfile = c.source === 'fitted';
      const where = fromProfile ? `cluster profile ${file}` : 'preset';
      const value = `${Number(c.value.toPrecision(6))}${c.unit ? ` ${c.unit}` : ''}`;
      this.constants.append(el('li', {'data-constant': name, 'data-source': c.source},
        el('strong', {}, c.label), ` ${value} · `,
        el('span', {class: fromProfile ? 'planner-cost-fitted' : 'planner-muted'}, c.basis ? `${where}: ${c.basis}` : where)));
    }
  }

  render(advice, t) {
    const mine = advice.ranked.find((l) => l.dp === t.dp && l.cp === t.cp && l.ep === t.ep);
    clear(this.dims);
    if (mine) {
      const s = mine.step;
      setText(this.step, `step ${timeText(s.seconds)} = compute ${timeText(s.compute_seconds)} + exposed ` +
        `communication ${timeText(s.exposed_communication_seconds)} · ${Math.round(s.tokens_per_second_per_gpu)} ` +
        `tokens/s per GPU · MFU ${(s.mfu * 100).toFixed(1)}% · grad-accum ${s.grad_accum}`);
      for (const d of mine.communication.dims) {
        if (d.size <= 1 || d.collectives.length === 0) continue;
        const link = d.link === 'inter_node' ? `across ${d.nodes} nodes` : 'inside a node';
        this.dims.append(el('li', {}, el('strong', {}, `${d.dim} ${d.size}`),
          ` ${timeText(d.seconds)} · ${timeText(d.exposed_seconds)} exposed · ${link}`));
      }
    } else {
      const excluded = advice.excluded.find((l) => l.dp === t.dp && l.cp === t.cp && l.ep === t.ep);
      setText(this.step, excluded ? `This layout is left out: ${excluded.reason}` : '');
    }
    setText(this.rankingText, `world ${advice.world}, ${advice.global_batch} sequences a step: ` +
      `${advice.layouts_considered} layouts, ${advice.layouts_that_fit} fit · click a row to show it`);
    setText(this.why, advice.why ? `Why: ${advice.why}` : '');
    clear(this.table);
    this.table.append(el('thead', {}, el('tr', {}, ...['#', 'dp', 'cp', 'ep', 'step', 'tok/s/GPU', 'MFU', 'memory']
      .map((h) => el('th', {scope: 'col'}, h)))));
    const rows = el('tbody', {});
    for (const l of advice.ranked) {
      const current = l.dp === t.dp && l.cp === t.cp && l.ep === t.ep;
      const row = el('tr', {class: current ? 'planner-cost-current' : '', tabindex: '0',
        'aria-label': `Show dp ${l.dp}, cp ${l.cp}, ep ${l.ep}`},
      ...[l.rank, l.dp, l.cp, l.ep, timeText(l.step.seconds), Math.round(l.step.tokens_per_second_per_gpu),
        `${(l.step.mfu * 100).toFixed(1)}%`, `${(l.memory.total_bytes / 2 ** 30).toFixed(1)} GiB`]
        .map((v) => el('td', {}, String(v))));
      const choose = () => this.onLayout({cp: l.cp, ep: l.ep});
      row.addEventListener('click', choose);
      row.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') choose();
      });
      rows.append(row);
    }
    this.table.append(rows);
  }
}
