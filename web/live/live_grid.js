// The Live grid: the job's ranks on the desktop's layout (ui/live/live_grid_item.cpp): the expert mesh of
// the job's topology when dp x cp equals its world (blocks efsdp, columns ep, rows expert_cp), else its data
// mesh (columns dp, one node's worth per block; rows cp), node boundaries, state fills, finding marks. The
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
  return {
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
