// What the Planner's grid shows, as drawing primitives in content units: one scene for the canvas and the SVG
// export, so the picture a person saves is the one on screen (the desktop's GridPainter plays this role).
// Colours are the palette's CSS variables (--ms-*, served as /palette.css), resolved once per paint.
import {metrics} from './grid_layout.js';

const nodeColourCount = 6;
const groupColourCount = 8;

// The index, in the creation order, of rank's group along a dim of a compact plan's mesh:
// sum_k coord_k * group_weights[dim][k], coord_k = floor(rank / strides[k]) % shape[k] (docs/plan-format.md).
export function groupIndex(mesh, dim, rank) {
  const weights = mesh.group_weights[dim];
  let index = 0;
  for (let k = 0; k < weights.length; ++k) {
    if (weights[k]) index += (Math.floor(rank / mesh.strides[k]) % mesh.shape[k]) * weights[k];
  }
  return index;
}

// How each dim's group is drawn around the selected rank (the desktop's styles and words).
export const dimStyles = {
  // colour: the palette's --ms-dim-<colour> (core/src/monitor/palette.cpp, the desktop's dim_style reads the same)
  ep: {shape: 'frame', word: 'frame', width: 4, colour: 'ep'},
  dp: {shape: 'frame', word: 'frame', width: 4, colour: 'dp'},
  expert_cp: {shape: 'band', word: 'band', width: 6, colour: 'cp'},
  cp: {shape: 'band', word: 'band', width: 6, colour: 'cp'},  // the same ranks as expert_cp
  efsdp: {shape: 'ring', word: 'ring', width: 3, inset: 4, colour: 'efsdp'},
  edp: {shape: 'ring', word: 'inner ring', width: 2, inset: 9, colour: 'edp'},
  // LlamaFactory's model mesh: shards framed like the other contiguous groups, replicas ringed like efsdp.
  mp_shard: {shape: 'frame', word: 'frame', width: 4, colour: 'mp-shard'},
  mp_replicate: {shape: 'ring', word: 'ring', width: 3, inset: 4, colour: 'mp-replicate'},
};

// Resolves the palette's variables on an element (the page's root).
export function readColours(element) {
  const style = getComputedStyle(element);
  const get = (name) => style.getPropertyValue(name).trim();
  const colours = {
    background: get('--ms-grid-background'),
    text: get('--ms-grid-text'),
    mutedText: get('--ms-grid-muted-text'),
    nodeFrame: get('--ms-grid-node-frame'),
    selection: get('--ms-selection'),
    selectionText: get('--ms-grid-selection-text'),
    hover: get('--ms-grid-hover'),
    nodes: [],
    dims: {},
  };
  for (let i = 0; i < nodeColourCount; ++i) colours.nodes.push(get(`--ms-grid-node-${i}`));
  colours.groups = [];
  for (let i = 0; i < groupColourCount; ++i) colours.groups.push(get(`--ms-grid-group-${i}`));
  for (const [dim, style] of Object.entries(dimStyles)) {
    colours.dims[dim] = get(`--ms-dim-${style.colour}`);
  }
  return colours;
}

// The ranks of one group: the rank endpoint gives its first member, the stride between members and its size.
export function members(group) {
  const out = new Array(group.size);
  for (let k = 0; k < group.size; ++k) out[k] = group.first + k * group.stride;
  return out;
}

// sink: {rect(x, y, w, h, fill), stroke(x, y, w, h, colour, width), line(x1, y1, x2, y2, colour, width),
// circle(cx, cy, r, colour, width), text(x, y, string, colour, size, anchor)}.
// view: {layout, colours, zoom, selected, groups (the rank endpoint's groups for this mesh), hover, shownDim
// (a dim whose groups colour the cells, or null)}.
export function paintBase(sink, view) {
  const {layout, colours, zoom} = view;
  sink.rect(0, 0, layout.width, layout.height, colours.background);
  const showLabels = metrics.labelHeight * zoom >= 9;
  const showText = metrics.cell * zoom >= 22;
  const showFrames = metrics.cell * zoom >= 5;
  if (showLabels) {
    for (let block = 0; block < layout.blocks; ++block) {
      const o = layout.origin(block);
      sink.text(o.x, o.y + metrics.labelHeight - 6, layout.blockLabel(block), colours.mutedText, 12, 'start');
    }
  }
  const {world} = layout;
  // Cells: the node's colour, or with a dim shown (the legend), the colour of the rank's group along it.
  const shown = view.shownDim && layout.mesh.group_weights[view.shownDim] ? view.shownDim : null;
  for (let rank = 0; rank < world; ++rank) {
    const c = layout.cellRect(rank);
    const fill = shown ? colours.groups[groupIndex(layout.mesh, shown, rank) % groupColourCount]
      : colours.nodes[layout.nodeOf(rank) % nodeColourCount];
    sink.rect(c.x, c.y, c.size, c.size, fill);
  }
  if (showFrames) {
    const half = metrics.cellGap / 2;
    for (let rank = 0; rank < world; ++rank) {
      const node = layout.nodeOf(rank);
      const p = layout.position(rank);
      const c = layout.cellRect(rank);
      const differs = (column, row) => {
        const other = layout.rankAt(p.block, column, row);
        return other === null || layout.nodeOf(other) !== node;
      };
      const left = c.x - half;
      const top = c.y - half;
      const right = c.x + c.size + half;
      const bottom = c.y + c.size + half;
      if (differs(p.column - 1, p.row)) sink.line(left, top, left, bottom, colours.nodeFrame, 2);
      if (differs(p.column + 1, p.row)) sink.line(right, top, right, bottom, colours.nodeFrame, 2);
      if (differs(p.column, p.row - 1)) sink.line(left, top, right, top, colours.nodeFrame, 2);
      if (differs(p.column, p.row + 1)) sink.line(left, bottom, right, bottom, colours.nodeFrame, 2);
    }
  }
  if (showText) {
    for (let rank = 0; rank < world; ++rank) {
      const c = layout.cellRect(rank);
      sink.text(c.x + c.size / 2, c.y + c.size / 2 + 2, String(rank), colours.text, 14, 'middle');
      const node = layout.nodeOf(rank);
      const local = rank - node * layout.gpusPerNode;
      const label = shown ? `g${groupIndex(layout.mesh, shown, rank)}` : `n${node}·${local}`;
      sink.text(c.x + c.size / 2, c.y + c.size - 5, label, colours.mutedText, 9, 'middle');
    }
  }
}

// The selection on top of the base: the selected rank's group along every dim of the shown mesh, in that
// dim's style (groups of one rank are not drawn), the rank itself solid, and the hovered cell outlined.
export function paintOverlay(sink, view) {
  const {layout, colours, selected, groups, hover, zoom} = view;
  if (selected !== null && selected < layout.world) {
    for (const group of groups || []) {
      const style = dimStyles[group.dim];
      if (!style || group.size < 2) continue;
      const colour = colours.dims[group.dim];
      for (const rank of members(group)) {
        const c = layout.cellRect(rank);
        if (style.shape === 'frame') {
          sink.stroke(c.x - 1, c.y - 1, c.size + 2, c.size + 2, colour, style.width);
        } else if (style.shape === 'band') {
          sink.rect(c.x, c.y + c.size - style.width, c.size, style.width, colour);
        } else {
          sink.circle(c.x + c.size / 2, c.y + c.size / 2, c.size / 2 - style.inset, colour, style.width);
        }
      }
    }
    const c = layout.cellRect(selected);
    sink.rect(c.x + 6, c.y + 6, c.size - 12, c.size - 12, colours.selection);
    if (metrics.cell * zoom >= 22) {
      sink.text(c.x + c.size / 2, c.y + c.size / 2 + 2, String(selected), colours.selectionText, 14, 'middle');
    } else {
      // Too small to see or to carry its number: a ring around it and a chip with the rank and its block.
      const px = 1 / zoom;  // one screen pixel in content units
      sink.circle(c.x + c.size / 2, c.y + c.size / 2, 9 * px, colours.selection, 3 * px);
      const label = `${selected} · ${layout.blockLabel(layout.position(selected).block)}`;
      const width = (label.length * 7 + 10) * px;
      sink.rect(c.x + c.size / 2 + 12 * px, c.y + c.size / 2 - 9 * px, width, 18 * px, colours.selection);
      sink.text(c.x + c.size / 2 + 17 * px, c.y + c.size / 2, label, colours.selectionText, 12 * px, 'start');
    }
  }
  if (hover !== null && hover !== undefined && hover < layout.world) {
    const c = layout.cellRect(hover);
    sink.stroke(c.x, c.y, c.size, c.size, colours.hover, 2);
  }
}
