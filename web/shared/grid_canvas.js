// A grid of ranks on a canvas: the layout the desktop's GridGeometry uses (ui/grid/grid_geometry.h), hit
// testing, hover, a selection moved by the keyboard, and one repaint for the whole grid (never one DOM node
// per rank: a job has up to 16,384 of them and more).
//
// Layout: blocks side by side, wrapped into rows of blocks; each block is `columns` x `rows` cells with
// rank = (block * columns + column) * rows + row, PyTorch's row-major order for the meshes the grids show
// (expert mesh: blocks efsdp, columns ep, rows expert_cp). Sizes are content units, scaled to fit.
export const metrics = {cell: 44, gap: 3, blockGap: 14, label: 20, margin: 12};

function span(count, size, gap) {
  return count <= 0 ? 0 : count * size + (count - 1) * gap;
}

// How many blocks per row of blocks so the grid is about `aspect` times as wide as high; divisors of the
// block count are preferred (full rows read better than a ragged last one). As the desktop chooses.
function chooseBlockColumns(blocks, blockWidth, blockHeight, aspect) {
  let best = 1;
  let bestCost = Infinity;
  for (let k = 1; k <= blocks; ++k) {
    const rows = Math.ceil(blocks / k);
    const w = span(k, blockWidth, metrics.blockGap);
    const h = span(rows, blockHeight, metrics.blockGap);
    let cost = Math.abs(Math.log(w / h / aspect));
    if (blocks % k !== 0) cost += 0.35;
    if (cost < bestCost) {
      bestCost = cost;
      best = k;
    }
  }
  return best;
}

export class GridLayout {
  // {world, columns, rows, blocks, blockLabel(b) -> string, axes: string, node(rank) -> int, aspect}
  constructor({world, columns, rows, blocks, blockLabel = () => '', axes = '', node = () => 0, aspect = 1.6}) {
    Object.assign(this, {world, columns, rows, blocks, blockLabel, axes, node});
    this.blockWidth = span(columns, metrics.cell, metrics.gap);
    this.blockHeight = metrics.label + span(rows, metrics.cell, metrics.gap);
    this.blockColumns = chooseBlockColumns(blocks, this.blockWidth, this.blockHeight, aspect);
    this.blockRows = Math.ceil(blocks / this.blockColumns);
    this.width = 2 * metrics.margin + span(this.blockColumns, this.blockWidth, metrics.blockGap);
    this.height = 2 * metrics.margin + span(this.blockRows, this.blockHeight, metrics.blockGap);
  }

  position(rank) {
    const line = Math.floor(rank / this.rows);
    return {block: Math.floor(line / this.columns), column: line % this.columns, row: rank % this.rows};
  }

  rankAt(block, column, row) {
    if (block < 0 || block >= this.blocks || column < 0 || column >= this.columns || row < 0 || row >= this.rows) {
      return -1;
    }
    const rank = (block * this.columns + column) * this.rows + row;
    return rank < this.world ? rank : -1;
  }

  blockOrigin(block) {
    const bx = block % this.blockColumns;
    const by = Math.floor(block / this.blockColumns);
    return [metrics.margin + bx * (this.blockWidth + metrics.blockGap),
      metrics.margin + by * (this.blockHeight + metrics.blockGap)];
  }

  // [x, y] of a cell's top-left corner in content units.
  cellOrigin(rank) {
    const p = this.position(rank);
    const [ox, oy] = this.blockOrigin(p.block);
    return [ox + p.column * (metrics.cell + metrics.gap), oy + metrics.label + p.row * (metrics.cell + metrics.gap)];
  }

  // The rank under a content point, or -1 (gaps hit nothing).
  hit(px, py) {
    const x = px - metrics.margin;
    const y = py - metrics.margin;
    if (x < 0 || y < 0) return -1;
    const bx = Math.floor(x / (this.blockWidth + metrics.blockGap));
    const by = Math.floor(y / (this.blockHeight + metrics.blockGap));
    if (bx >= this.blockColumns) return -1;
    const inX = x - bx * (this.blockWidth + metrics.blockGap);
    const inY = y - by * (this.blockHeight + metrics.blockGap) - metrics.label;
    if (inX < 0 || inY < 0) return -1;
    const column = Math.floor(inX / (metrics.cell + metrics.gap));
    const row = Math.floor(inY / (metrics.cell + metrics.gap));
    if (inX - column * (metrics.cell + metrics.gap) > metrics.cell) return -1;
    if (inY - row * (metrics.cell + metrics.gap) > metrics.cell) return -1;
    return this.rankAt(by * this.blockColumns + bx, column, row);
  }

  // The next rank on screen in a direction, across block boundaries, skipping holes; itself at the edge.
  neighbour(rank, dx, dy) {
    const p = this.position(rank);
    let gx = (p.block % this.blockColumns) * this.columns + p.column;
    let gy = Math.floor(p.block / this.blockColumns) * this.rows + p.row;
    const width = this.blockColumns * this.columns;
    const height = this.blockRows * this.rows;
    for (;;) {
      gx += dx;
      gy += dy;
      if (gx < 0 || gy < 0 || gx >= width || gy >= height || (dx === 0 && dy === 0)) return rank;
      const block = Math.floor(gy / this.rows) * this.blockColumns + Math.floor(gx / this.columns);
      const r = this.rankAt(block, gx % this.columns, gy % this.rows);
      if (r >= 0) return r;
    }
  }
}

// [x, y] of every cell's top-left corner, in content units.
function cellOrigins(layout, pitch) {
  const origins = new Float64Array(layout.world * 2);
  for (let block = 0, rank = 0; block < layout.blocks && rank < layout.world; ++block) {
    const [ox, oy] = layout.blockOrigin(block);
    for (let column = 0; column < layout.columns; ++column) {
      for (let row = 0; row < layout.rows && rank < layout.world; ++row, ++rank) {
        origins[2 * rank] = ox + column * pitch;
        origins[2 * rank + 1] = oy + metrics.label + row * pitch;
      }
    }
  }
  return origins;
}

// Node boundaries: a line in the gap between neighbouring cells of different nodes.
function nodeLines(layout, origins, cell) {
  const path = new Path2D();
  for (let rank = 0; rank < layout.world; ++rank) {
    const node = layout.node(rank);
    const below = rank + 1;  // the next row of the same column, when the block has one
    if ((rank % layout.rows) + 1 < layout.rows && below < layout.world && layout.node(below) !== node) {
      const y = origins[2 * rank + 1] + cell + metrics.gap / 2;
      path.moveTo(origins[2 * rank] - metrics.gap / 2, y);
      path.lineTo(origins[2 * rank] + cell + metrics.gap / 2, y);
    }
    const right = rank + layout.rows;  // the next column of the same row
    const column = Math.floor(rank / layout.rows) % layout.columns;
    if (column + 1 < layout.columns && right < layout.world && layout.node(right) !== node) {
      const x = origins[2 * rank] + cell + metrics.gap / 2;
      path.moveTo(x, origins[2 * rank + 1] - metrics.gap / 2);
      path.lineTo(x, origins[2 * rank + 1] + cell + metrics.gap / 2);
    }
  }
  return path;
}

// The view: a focusable wrapper (keyboard), a base canvas (cells: repainted when the data changes) and an
// overlay canvas (selection and hover outlines: repainted alone, so hovering never repaints 16,384 cells).
//
// options: {label, fill(rank) -> CSS colour, mark(rank) -> bool (a finding's corner), ring(rank) -> bool (a ring
//           inside the cell: a hang's root cause), colours() -> {background, text, nodeFrame, mark, ring, outline,
//           selection, hover}, describe(rank) -> string, onSelect(rank), onOpen(rank), onHover(rank)}
export class GridCanvas {
  constructor(host, options) {
    this.options = options;
    this.layout = null;
    this.selected = -1;
    this.hovered = -1;
    this.outlined = [];
    this.scale = 1;
    this.frame = 0;
    this.lastPaintMs = 0;

    this.wrapper = document.createElement('div');
    this.wrapper.className = 'grid-canvas';
    this.wrapper.tabIndex = 0;
    this.wrapper.setAttribute('role', 'application');
    this.wrapper.setAttribute('aria-roledescription', 'rank grid');
    this.wrapper.setAttribute('aria-label', options.label);
    this.base = document.createElement('canvas');
    this.overlay = document.createElement('canvas');
    this.base.setAttribute('aria-hidden', 'true');
    this.overlay.setAttribute('aria-hidden', 'true');
    this.overlay.className = 'grid-overlay';
    this.status = document.createElement('div');
    this.status.className = 'visually-hidden';
    this.status.setAttribute('role', 'status');
    this.status.id = `grid-status-${Math.random().toString(36).slice(2)}`;
    this.wrapper.setAttribute('aria-describedby', this.status.id);
    this.wrapper.append(this.base, this.overlay, this.status);
    host.append(this.wrapper);

    this.wrapper.addEventListener('mousemove', (e) => this.hover(this.rankAtEvent(e)));
    this.wrapper.addEventListener('mouseleave', () => this.hover(-1));
    this.wrapper.addEventListener('click', (e) => {
      const rank = this.rankAtEvent(e);
      if (rank < 0) return;
      this.select(rank);
      this.options.onOpen?.(rank);
    });
    this.wrapper.addEventListener('keydown', (e) => this.key(e));
    this.resizeObserver = new ResizeObserver(() => this.invalidate());
    this.resizeObserver.observe(this.wrapper);
  }

  destroy() {
    this.resizeObserver.disconnect();
    cancelAnimationFrame(this.frame);
    this.wrapper.remove();
  }

  setLayout(layout) {
    this.layout = layout;
    if (this.selected >= (layout?.world ?? 0)) this.selected = -1;
    this.hovered = -1;
    this.invalidate();
  }

  setOutlined(ranks) {
    this.outlined = ranks;
    this.invalidate();
  }

  // Repaint the cells at the next frame (many changes in one frame cost one repaint).
  invalidate() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.paint();
    });
  }

  rankAtEvent(event) {
    if (!this.layout) return -1;
    const box = this.base.getBoundingClientRect();
    return this.layout.hit((event.clientX - box.left) / this.scale, (event.clientY - box.top) / this.scale);
  }

  hover(rank) {
    if (rank === this.hovered) return;
    this.hovered = rank;
    this.paintOverlay();
    this.options.onHover?.(rank);
  }

  select(rank, {announce = true} = {}) {
    if (rank === this.selected) return;
    this.selected = rank;
    this.paintOverlay();
    if (announce) this.status.textContent = rank >= 0 ? this.options.describe(rank) : '';
    this.scrollIntoView(rank);
    this.options.onSelect?.(rank);
  }

  key(event) {
    if (!this.layout || this.layout.world === 0) return;
    const moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
    let next = -1;
    const from = this.selected >= 0 ? this.selected : 0;
    if (event.key in moves) {
      next = this.selected < 0 ? 0 : this.layout.neighbour(from, ...moves[event.key]);
    } else if (event.key === 'Home') {
      next = 0;
    } else if (event.key === 'End') {
      next = this.layout.world - 1;
    } else if (event.key === 'Enter' || event.key === ' ') {
      if (this.selected >= 0) this.options.onOpen?.(this.selected);
      event.preventDefault();
      return;
    } else {
      return;
    }
    event.preventDefault();
    this.select(next);
  }

  scrollIntoView(rank) {
    if (!this.layout || rank < 0) return;
    const [x, y] = this.layout.cellOrigin(rank);
    const s = this.scale;
    const view = this.wrapper;
    const top = y * s;
    const bottom = (y + metrics.cell) * s;
    if (top < view.scrollTop) view.scrollTop = top - 8;
    else if (bottom > view.scrollTop + view.clientHeight) view.scrollTop = bottom - view.clientHeight + 8;
    const left = x * s;
    const right = (x + metrics.cell) * s;
    if (left < view.scrollLeft) view.scrollLeft = left - 8;
    else if (right > view.scrollLeft + view.clientWidth) view.scrollLeft = right - view.clientWidth + 8;
  }

  // Fit the grid to the wrapper's width (and height when that leaves cells of a readable size); a grid too
  // big for that scrolls vertically with cells of at least 4 px.
  fit() {
    const layout = this.layout;
    const width = Math.max(50, this.wrapper.clientWidth);
    const height = Math.max(50, this.wrapper.clientHeight);
    let scale = Math.min(1, width / layout.width, height / layout.height);
    if (scale * metrics.cell < 4) scale = Math.min(1, width / layout.width);
    this.scale = scale;
    const dpr = window.devicePixelRatio || 1;
    const cssW = Math.ceil(layout.width * scale);
    const cssH = Math.ceil(layout.height * scale);
    for (const canvas of [this.base, this.overlay]) {
      if (canvas.width !== Math.round(cssW * dpr) || canvas.height !== Math.round(cssH * dpr)) {
        canvas.width = Math.round(cssW * dpr);
        canvas.height = Math.round(cssH * dpr);
        canvas.style.width = `${cssW}px`;
        canvas.style.height = `${cssH}px`;
      }
    }
    return dpr;
  }

  paint() {
    const started = performance.now();
    const layout = this.layout;
    const ctx = this.base.getContext('2d');
    const colours = this.options.colours();
    if (!layout || layout.world === 0) {
      ctx.clearRect(0, 0, this.base.width, this.base.height);
      this.paintOverlay();
      return;
    }
    const dpr = this.fit();
    const s = this.scale;
    // The background over every device pixel (the scaled content may end inside the last row of pixels).
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = colours.background;
    ctx.fillRect(0, 0, this.base.width, this.base.height);
    ctx.setTransform(dpr * s, 0, 0, dpr * s, 0, 0);
    const cell = metrics.cell;
    const pitch = cell + metrics.gap;

    // Block labels ("efsdp 3") when they can be read.
    if (cell * s >= 14) {
      ctx.fillStyle = colours.text;
      ctx.font = `${11 / s}px system-ui, sans-serif`;
      ctx.textBaseline = 'middle';
      for (let b = 0; b < layout.blocks; ++b) {
        const [ox, oy] = layout.blockOrigin(b);
        ctx.fillText(layout.blockLabel(b), ox, oy + metrics.label / 2);
      }
    }

    // Cells grouped by fill: one fillStyle per colour, not per rank.
    const byFill = new Map();
    const marks = [];
    const rings = [];
    const fillOf = this.options.fill;
    const markOf = this.options.mark;
    const ringOf = this.options.ring;
    for (let rank = 0; rank < layout.world; ++rank) {
      const fill = fillOf(rank);
      let list = byFill.get(fill);
      if (!list) byFill.set(fill, (list = []));
      list.push(rank);
      if (markOf(rank)) marks.push(rank);
      if (ringOf?.(rank)) rings.push(rank);
    }
    // Where each cell goes and the node boundaries depend on the layout alone: made once per layout.
    if (this.originsFor !== layout) {
      this.originsFor = layout;
      this.origins = cellOrigins(layout, pitch);
      this.nodeLines = nodeLines(layout, this.origins, cell);
    }
    const origins = this.origins;
    for (const [fill, ranks] of byFill) {
      ctx.fillStyle = fill;
      for (const rank of ranks) ctx.fillRect(origins[2 * rank], origins[2 * rank + 1], cell, cell);
    }
    // A finding's mark: a triangle in the top-right corner, visible on any state colour at any size.
    if (marks.length) {
      const m = Math.max(3 / s, cell * 0.42);
      ctx.fillStyle = colours.mark;
      ctx.beginPath();
      for (const rank of marks) {
        const x = origins[2 * rank] + cell;
        const y = origins[2 * rank + 1];
        ctx.moveTo(x, y);
        ctx.lineTo(x - m, y);
        ctx.lineTo(x, y + m);
        ctx.closePath();
      }
      ctx.fill();
    }
    // A ring inside the cell (the fill stays visible in its middle, the gap stays free for the outlines).
    if (rings.length) {
      const width = Math.max(2 / s, cell * 0.14);
      ctx.strokeStyle = colours.ring;
      ctx.lineWidth = width;
      ctx.beginPath();
      for (const rank of rings) {
        ctx.rect(origins[2 * rank] + width / 2, origins[2 * rank + 1] + width / 2, cell - width, cell - width);
      }
      ctx.stroke();
    }
    // Node boundaries: a line in the gap between neighbouring cells of different nodes.
    ctx.strokeStyle = colours.nodeFrame;
    ctx.lineWidth = Math.max(1 / s, metrics.gap * 0.6);
    ctx.stroke(this.nodeLines);
    // The selected finding's ranks: outlines, drawn last so no neighbour paints over them.
    if (this.outlined.length) {
      ctx.strokeStyle = colours.outline;
      ctx.lineWidth = Math.max(1.5 / s, cell * 0.08);
      ctx.beginPath();
      const pad = Math.min(metrics.gap / 2, 1.5 / s);
      for (const rank of this.outlined) {
        if (rank < 0 || rank >= layout.world) continue;
        ctx.rect(origins[2 * rank] - pad, origins[2 * rank + 1] - pad, cell + 2 * pad, cell + 2 * pad);
      }
      ctx.stroke();
    }
    this.paintOverlay();
    this.lastPaintMs = performance.now() - started;
    // For the benchmark (bench/web/live_render.mjs): when a grid of this size was last fully drawn.
    performance.mark('meshscope-grid-painted', {detail: {world: layout.world, ms: this.lastPaintMs}});
  }

  paintOverlay() {
    const ctx = this.overlay.getContext('2d');
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.overlay.width, this.overlay.height);
    const layout = this.layout;
    if (!layout || !this.origins) return;
    const colours = this.options.colours();
    const dpr = window.devicePixelRatio || 1;
    const s = this.scale;
    ctx.setTransform(dpr * s, 0, 0, dpr * s, 0, 0);
    const outline = (rank, colour, width, pad) => {
      if (rank < 0 || rank >= layout.world) return;
      ctx.strokeStyle = colour;
      ctx.lineWidth = width / s;
      ctx.strokeRect(this.origins[2 * rank] - pad / s, this.origins[2 * rank + 1] - pad / s,
        metrics.cell + (2 * pad) / s, metrics.cell + (2 * pad) / s);
    };
    if (this.hovered !== this.selected) outline(this.hovered, colours.hover, 1, 1.5);
    outline(this.selected, colours.selection, 2, 2);
  }
}
