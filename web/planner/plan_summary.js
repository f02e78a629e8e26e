// The plan in words (the desktop's summary): sizes, the expert and model meshes, the cluster, how each dim's groups fall on
// nodes (the collector's spans) and the placement warnings; plus the mesh switch and the grid's legend.
import {dimStyles} from './grid_scene.js';
import {clear, el, setText} from './planner_dom.js';

// LlamaFactory's model mesh in words, as the desktop's summary gives it.
export function modelMeshText(t) {
  const text = `mp_replicate ${t.mp_replicate} × mp_shard ${t.mp_shard}`;
  return t.mp_replicate === 1 ? `${text} (LlamaFactory's default)` : text;
}

export function topologyText(t) {
  return `(dp, cp, ep) = (${t.dp}, ${t.cp}, ${t.ep}) · world ${t.world} = dp ${t.dp} × cp ${t.cp}`;
}

function spanText(s) {
  if (s.cross_node_groups === 0) return 'each within one node';
  const verb = s.cross_node_groups === 1 ? 'leaves' : 'leave';
  return `${s.cross_node_groups} of ${s.groups} ${verb} a node (up to ${s.max_nodes} nodes)`;
}

export class PlanSummary {
  constructor() {
    this.topology = el('p', {});
    this.model = el('p', {});
    this.expert = el('p', {});
    this.cluster = el('p', {});
    this.dims = el('ul', {class: 'planner-dims'});
    this.warningsTitle = el('h3', {class: 'planner-subheading'});
    this.warnings = el('ul', {class: 'planner-warnings'});
    this.root = el('section', {class: 'planner-summary', 'aria-labelledby': 'planner-summary-heading'},
      el('h2', {class: 'planner-heading', id: 'planner-summary-heading'}, 'Summary'), this.topology, this.model, this.expert,
      this.cluster, el('h3', {class: 'planner-subheading'}, 'Groups per dim'), this.dims, this.warningsTitle,
      this.warnings);
  }

  show(plan) {
    const t = plan.topology;
    setText(this.topology, topologyText(t));
    setText(this.model, `Model mesh: ${modelMeshText(t)}`);
    setText(this.expert, t.ep > 1 ? `Expert mesh: edp ${t.edp} × efsdp ${t.efsdp} × ep ${t.ep} × expert_cp ${t.cp}`
      : 'Expert mesh: No expert mesh: ep = 1 (FSDPTurbo builds none; efsdp = edp = 1)');
    const nodes = plan.cluster.nodes;
    setText(this.cluster, `Cluster: ${nodes} ${nodes === 1 ? 'node' : 'nodes'} × ${plan.cluster.gpus_per_node} GPUs per node`);
    clear(this.dims);
    for (const mesh of plan.meshes) {
      for (const dim of mesh.dim_names) {
        const s = mesh.spans[dim];
        this.dims.append(el('li', {}, el('strong', {}, dim), ` ${s.groups} × size ${s.group_size} · ${spanText(s)}`));
      }
    }
    setText(this.warningsTitle, plan.warnings.length ? 'Warnings' : 'No placement warnings');
    clear(this.warnings);
    for (const w of plan.warnings) this.warnings.append(el('li', {'data-code': w.code}, `⚠ ${w.message}`));
  }
}

export class MeshSwitch {
  // onChange(meshName)
  constructor(onChange) {
    this.expertButton = el('button', {type: 'button', class: 'planner-toggle', 'aria-pressed': 'true'}, 'Expert mesh');
    this.dataButton = el('button', {type: 'button', class: 'planner-toggle', 'aria-pressed': 'false'}, 'Data mesh');
    // LlamaFactory's model mesh exists in every plan (defaults (1, world)): its button is always enabled.
    this.modelButton = el('button', {type: 'button', class: 'planner-toggle', 'aria-pressed': 'false'}, 'Model mesh');
    this.expertButton.addEventListener('click', () => onChange('expert'));
    this.dataButton.addEventListener('click', () => onChange('data'));
    this.modelButton.addEventListener('click', () => onChange('model'));
    this.axes = el('span', {class: 'planner-muted'});
    this.note = el('p', {class: 'planner-note', hidden: true},
      'ep = 1: FSDPTurbo builds no expert mesh (efsdp = edp = 1). Showing the data mesh, dp × cp.');
    this.root = el('div', {class: 'planner-toolbar'},
      el('div', {class: 'planner-toggles', role: 'group', 'aria-label': 'Mesh shown', 'data-anchor': 'planner.mesh'},
        this.expertButton, this.dataButton, this.modelButton),
      this.axes, this.note);
  }

  show(shown, hasExpertMesh, axesText) {
    this.expertButton.setAttribute('aria-pressed', String(shown === 'expert'));
    this.dataButton.setAttribute('aria-pressed', String(shown === 'data'));
    this.modelButton.setAttribute('aria-pressed', String(shown === 'model'));
    this.expertButton.disabled = !hasExpertMesh;
    this.note.hidden = hasExpertMesh || shown !== 'data';
    setText(this.axes, axesText);
  }
}

export class GridLegend {
  // onToggle(dim): a dim's button was pressed (show all its groups, or hide them again).
  constructor(onToggle) {
    this.onToggle = onToggle;
    this.list = el('ul', {class: 'planner-legend-list'});
    this.caption = el('p', {class: 'planner-muted'});
    this.root = el('div', {class: 'planner-legend'}, this.caption, this.list);
  }

  show(mesh, shownDim) {
    setText(this.caption, shownDim ? `Cell colour = ${shownDim} group (g<index> in creation order) · selected rank: its groups:`
      : 'Cell colour = node, dark lines frame each node · selected rank: its groups (click a dim to show all its groups):');
    clear(this.list);
    for (const dim of mesh.dim_names) {
      const s = mesh.spans[dim];
      const style = dimStyles[dim];
      const shown = dim === shownDim;
      const button = el('button', {type: 'button', class: 'planner-legend-entry', 'aria-pressed': String(shown),
        title: shown ? `Hide the ${dim} groups` : `Show all ${dim} groups`},
      el('span', {class: `planner-swatch planner-swatch-${style.shape}`, 'data-dim': dim, 'aria-hidden': 'true'}),
      `${dim} (${style.word}) · ${s.groups} × ${s.group_size}`);
      button.addEventListener('click', () => this.onToggle(dim));
      this.list.append(el('li', {}, button));
    }
  }
}
