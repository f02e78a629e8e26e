// The Live grid: the job's ranks on the desktop's layout (ui/live/live_grid_item.cpp): the expert mesh of
// the job's topology when dp x cp equals its world (blocks efsdp, columns ep, rows expert_cp), else its data
// mesh (columns dp, one node's worth per block; rows cp), node boundaries, state fills, finding marks; for a job
// with records, each rank with a position filled by where it stands and the root cause's ranks ringed. The
// colours are the palette's CSS variables (/palette.css), read once per theme.
import {GridLayout} from '../shared/grid_canvas.js';
import {cssVar} from '../shared/dom.js';
import {stateNames} from './live_data.js';

// The grid of a job: {world, topology: {dp, cp, ep} | null, gpusPerNode}.
export function liveLayout({world, topology, gpusPerNode}, aspect) {
  const node = (rank) => Math.floor(rank / gpusPerNode);
  if (world <= 0) return null;
  const fits = topology && topology.dp * topology.cp === world && topology.dp > 0 && topology.cp > 0;
  if (fits && topology.ep > 1 && topology.dp % topology.ep === 0) {
    const efsdp = topology.dp / topology.ep;
    return new GridLayout({world, columns: topology.ep, rows: topology.cp, blocks: efsdp,
      blockLabel: (b) => `efsdp ${b}`, axes: 'blocks efsdp · columns ep · rows expert_cp', node, aspect});
  }
  const dp = fits ? topology.dp : world;
  const cp = fits ? topology.cp : 1;
  const columns = Math.min(Math.max(1, Math.floor(gpusPerNode / cp)), dp);
  return new GridLayout({world, columns, rows: cp, blocks: Math.ceil(dp / columns),
    blockLabel: (b) => {
      const first = b * columns;
      const last = Math.min(first + columns, dp) - 1;
      return first === last ? `dp ${first}` : `dp ${first}–${last}`;
    },
    axes: `columns dp (${columns} per block) · rows cp`, node, aspect});
}

// Core's dim_colour (core/src/monitor/palette.cpp): the palette name of a dim's colour; any other dim (the default
// group's "world", a group not on the plan) dim-other.
const dimColours = new Map([['ep', 'dim-ep'], ['dp', 'dim-dp'], ['cp', 'dim-cp'], ['expert_cp', 'dim-cp'],
  ['efsdp', 'dim-efsdp'], ['edp', 'dim-edp'], ['mp_shard', 'dim-mp-shard'], ['mp_replicate', 'dim-mp-replicate']]);

// Core's standing_colour: the CSS variable of a rank's standing in a hang (waiting: its dim's colour; dead:
// state-failed), or '' for a standing this page does not know (the rank keeps its state's colour).
export function standingVariable(standing, dim) {
  switch (standing) {
    case 'waiting': return `--ms-${dimColours.get(dim) || 'dim-other'}`;
    case 'outside_collectives': return '--ms-standing-outside-collectives';
    case 'no_record': return '--ms-standing-no-record';
    case 'dead': return '--ms-state-failed';
    default: return '';
  }
}

function parseHex(hex) {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  const v = m ? parseInt(m[1], 16) : 0;
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

// color * keep + background * (1 - keep), as the desktop fades ranks.
function fade(hex, background, keep) {
  const a = parseHex(hex);
  const b = parseHex(background);
  const mix = a.map((c, i) => Math.round(c * keep + b[i] * (1 - keep)));
  return `rgb(${mix[0]}, ${mix[1]}, ${mix[2]})`;
}

// The palette's colours for the grid, with the faded fills precomputed (filtered out: 0.18, outside the
// selected finding: 0.35).
export function gridColours() {
  const background = cssVar('--ms-grid-background');
  const states = stateNames.map((name) => cssVar(`--ms-state-${name}`));
  // A standing's fills by its variable ({full, highlightFaded, filterFaded}), read once per theme.
  const standings = new Map();
  const standing = (variable) => {
    if (!variable) return null;
    let fills = standings.get(variable);
    if (!fills) {
      const full = cssVar(variable);
      fills = {full, highlightFaded: fade(full, background, 0.35), filterFaded: fade(full, background, 0.18)};
      standings.set(variable, fills);
    }
    return fills;
  };
  return {
    standing,
    ring: cssVar('--ms-root-cause'),
    background,
    text: cssVar('--ms-muted-text'),
    nodeFrame: cssVar('--ms-grid-node-frame'),
    mark: cssVar('--ms-finding'),
    outline: cssVar('--ms-accent'),
    selection: cssVar('--ms-rank-selection'),
    hover: cssVar('--ms-muted-text'),
    states,
    highlightFaded: states.map((c) => fade(c, background, 0.35)),
    filterFaded: states.map((c) => fade(c, background, 0.18)),
  };
}
