// Where each rank of one mesh sits on the Planner's canvas. The arrangement itself comes from the collector
// (the compact plan's `grid`: blocks of `columns` x `rows` cells, rank = (block * columns + column) * rows + row,
// docs/plan-format.md); this file only turns it into pixels, the way the desktop's GridGeometry does
// (the same metrics, blocks wrapped so the grid is about 1.6 times as wide as high).
export const metrics = {cell: 44, cellGap: 3, blockGap: 14, labelHeight: 20, margin: 12};

function span(count, size, gap) {
  return count <= 0 ? 0 : count * size + (count - 1) * gap;
}

function chooseBlockColumns(blocks, blockWidth, blockHeight, aspect) {
  let best = 1;
  let bestCost = Infinity;
  // Beyond a few thousand candidates the cost curve is flat; sample it instead of trying every count.
  const step = Math.max(1, Math.floor(blocks / 4096));
  for (let k = 1; k <= blocks; k += step) {
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
  // plan: the compact plan; mesh: one of plan.meshes.
  constructor(plan, mesh, aspect = 1.6) {
    this.world = plan.topology.world;
    this.gpusPerNode = plan.cluster.gpus_per_node;
    this.mesh = mesh;
    this.blocks = mesh.grid.blocks;
    this.columns = mesh.grid.columns;
    this.rows = mesh.grid.rows;
    this.blockWidth = span(this.columns, metrics.cell, metrics.cellGap);
    this.blockHeight = metrics.labelHeight + span(this.rows, metrics.cell, metrics.cellGap);
    this.blockColumns = chooseBlockColumns(this.blocks, this.blockWidth, this.blockHeight, aspect);
    this.blockRows = Math.ceil(this.blocks / this.blockColumns);
    this.width = 2 * metrics.margin + span(this.blockColumns, this.blockWidth, metrics.blockGap);
    this.height = 2 * metrics.margin + span(this.blockRows, this.blockHeight, metrics.blockGap);
  }

  nodeOf(rank) {
    return Math.floor(rank / this.gpusPerNode);  // the plan's cluster: consecutive ranks fill a node
  }

  position(rank) {
    const line = Math.floor(rank / this.rows);
    return {block: Math.floor(line / this.columns), column: line % this.columns, row: rank % this.rows};
  }

  rankAt(block, column, row) {
    if (block < 0 || block >= this.blocks || column < 0 || column >= this.columns || row < 0 || row >= this.rows) {
      return null;
    }
    const rank = (block * this.columns + column) * this.rows + row;
    return rank < this.world ? rank : null;
  }

  blockOrigin(block) {
    const bx = block % this.blockColumns;
    const by = Math.floor(block / this.blockColumns);
    return {x: metrics.margin + bx * (this.blockWidth + metrics.blockGap),
      y: metrics.margin + by * (this.blockHeight + metrics.blockGap)};
  }

  cellRect(rank) {
    const p = this.position(rank);
    const o = this.blockOrigin(p.block);
    const pitch = metrics.cell + metrics.cellGap;
    return {x: o.x + p.column * pitch, y: o.y + metrics.labelHeight + p.row * pitch, size: metrics.cell};
  }

  // The rank under a point in content units, or null in gaps and holes.
  hit(x, y) {
    const px = x - metrics.margin;
    const py = y - metrics.margin;
    if (px < 0 || py < 0) return null;
    const bx = Math.floor(px / (this.blockWidth + metrics.blockGap));
    const by = Math.floor(py / (this.blockHeight + metrics.blockGap));
    if (bx >= this.blockColumns) return null;
    const inX = px - bx * (this.blockWidth + metrics.blockGap);
    const inY = py - by * (this.blockHeight + metrics.blockGap) - metrics.labelHeight;
    if (inX < 0 || inY < 0) return null;
    const pitch = metrics.cell + metrics.cellGap;
    const column = Math.floor(inX / pitch);
    const row = Math.floor(inY / pitch);
    if (inX - column * pitch > metrics.cell || inY - row * pitch > metrics.cell) return null;
    return this.rankAt(by * this.blockColumns + bx, column, row);
  }

  // The next rank on screen in a direction, across block boundaries, skipping holes; the rank at an edge.
  neighbour(rank, dx, dy) {
    const p = this.position(rank);
    let x = (p.block % this.blockColumns) * this.columns + p.column;
    let y = Math.floor(p.block / this.blockColumns) * this.rows + p.row;
    const maxX = this.blockColumns * this.columns;
    const maxY = this.blockRows * this.rows;
    for (;;) {
      x += dx;
      y += dy;
      if (x < 0 || y < 0 || x >= maxX || y >= maxY) return rank;
      const block = Math.floor(y / this.rows) * this.blockColumns + Math.floor(x / this.columns);
      const found = this.rankAt(block, x % this.columns, y % this.rows);
      if (found !== null) return found;
    }
  }

  // "efsdp 3", "edp 1 · efsdp 3", "dp 8–15" (the desktop's labels).
  blockLabel(block) {
    if (this.mesh.name === 'expert') {
      const efsdp = this.mesh.shape[1];
      const edp = Math.floor(block / efsdp);
      return this.mesh.shape[0] > 1 ? `edp ${edp} · efsdp ${block % efsdp}` : `efsdp ${block % efsdp}`;
    }
    const first = block * this.columns;
    const last = Math.min(first + this.columns, this.mesh.shape[0]) - 1;
    return first === last ? `dp ${first}` : `dp ${first}–${last}`;
  }

  axesText() {
    if (this.mesh.name === 'expert') {
      return this.mesh.shape[0] > 1 ? 'blocks edp × efsdp · columns ep · rows expert_cp'
        : 'blocks efsdp · columns ep · rows expert_cp';
    }
    return `columns dp (${this.columns} per block) · rows cp`;
  }
}
