// The selected rank seen from every dim of both meshes, as the collector reports it (GET /api/v1/plan/rank):
// coordinate, group index and size, members, and whether the group leaves the rank's node. The words are the
// desktop inspector's.
import {members} from './grid_scene.js';
import {clear, el, setText} from './planner_dom.js';

// Long groups show their first members, an ellipsis and the last one, with the count (as the desktop does).
export function membersText(group) {
  const shownInFull = 24;
  const head = 16;
  if (group.size <= shownInFull) return members(group).join(', ');
  const first = [];
  for (let k = 0; k < head; ++k) first.push(group.first + k * group.stride);
  return `${first.join(', ')}, …, ${group.first + (group.size - 1) * group.stride}  (${group.size} ranks)`;
}

function coordinateText(mesh, coords) {
  return `(${mesh.dim_names.map((name, d) => `${name} ${coords[d]}`).join(', ')})`;
}

export class RankInspector {
  constructor() {
    this.heading = el('h2', {class: 'planner-heading', tabindex: '-1', id: 'planner-inspector-heading'}, 'Inspector');
    this.body = el('div', {class: 'planner-inspector-body'});
    this.root = el('section', {class: 'planner-inspector', 'aria-labelledby': 'planner-inspector-heading',
      'data-anchor': 'planner.inspector'},
      this.heading, this.body);
    this.showEmpty();
  }

  showEmpty() {
    setText(this.heading, 'Inspector');
    clear(this.body);
    this.body.append(el('p', {class: 'planner-muted'},
      'Click a rank in the grid, or focus the grid (Tab) and press an arrow key.'));
  }

  // info: the rank endpoint's answer; plan: the compact plan (for the dim names of each mesh).
  show(info, plan) {
    setText(this.heading, `Rank ${info.rank}`);
    clear(this.body);
    const facts = el('dl', {class: 'planner-facts'},
      el('dt', {}, 'node'), el('dd', {}, String(info.node)),
      el('dt', {}, 'local rank'), el('dd', {}, String(info.local_rank)));
    for (const mesh of info.meshes) {
      const planMesh = plan.meshes.find((m) => m.name === mesh.name);
      facts.append(el('dt', {}, `${mesh.name} mesh`), el('dd', {}, coordinateText(planMesh, mesh.coords)));
    }
    this.body.append(facts);
    for (const mesh of [...info.meshes].reverse()) {  // expert first, as the desktop lists them
      const list = el('ul', {class: 'planner-groups'});
      for (const group of mesh.groups) {
        const flag = group.leaves_node ? `leaves the node: spans ${group.nodes} nodes` : 'within one node';
        list.append(el('li', {class: 'planner-group', 'data-dim': group.dim},
          el('p', {class: 'planner-group-title'}, el('strong', {}, group.dim),
            ` = ${group.coordinate} · group ${group.index} · ${group.size} ranks`),
          el('p', {class: 'planner-members'}, `[${membersText(group)}]`),
          el('p', {class: group.leaves_node ? 'planner-leaves' : 'planner-muted', 'data-leaves-node': String(group.leaves_node)}, flag)));
      }
      this.body.append(el('h3', {class: 'planner-subheading'},
        `${mesh.name[0].toUpperCase()}${mesh.name.slice(1)} mesh groups`), list);
    }
  }

  showError(text) {
    clear(this.body);
    this.body.append(el('p', {class: 'planner-error-message'}, text));
  }

  focus() {
    this.heading.focus();
  }
}
