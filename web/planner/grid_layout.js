// Where each rank of one mesh sits on the Planner's canvas: the shell's GridLayout (web/shared/grid_canvas.js,
// the desktop's GridGeometry metrics, shared with the Live grid) fed with the collector's arrangement (the
// compact plan's `grid`: blocks of `columns` x `rows` cells, rank = (block * columns + column) * rows + row,
// core's plan_grid; docs/plan-format.md). Adds what the planner draws: cell rectangles, nodes, block labels.
import {GridLayout, metrics as sharedMetrics} from '../shared/grid_canvas.js';

export const metrics = {cell: sharedMetrics.cell, cellGap: sharedMetrics.gap, blockGap: sharedMetrics.blockGap,
  labelHeight: sharedMetrics.label, margin: sharedMetrics.margin};

export class PlanGridLayout extends GridLayout {
  // plan: the compact plan; mesh: one of plan.meshes.
  constructor(plan, mesh, aspect = 1.6) {
    const gpusPerNode = plan.cluster.gpus_per_node;
    super({world: plan.topology.world, columns: mesh.grid.columns, rows: mesh.grid.rows, blocks: mesh.grid.blocks,
      node: (rank) => Math.floor(rank / gpusPerNode), aspect});  // the plan's cluster: ranks fill nodes in turn
    this.mesh = mesh;
    this.gpusPerNode = gpusPerNode;
    this.blockLabel = (block) => this.labelOf(block);
  }

  nodeOf(rank) {
    return this.node(rank);
  }

  // null where the shared layout says -1 (outside the grid, a hole, a gap).
  rankAt(block, column, row) {
    const rank = super.rankAt(block, column, row);
    return rank < 0 ? null : rank;
  }

  hit(x, y) {
    const rank = super.hit(x, y);
    return rank === null || rank < 0 ? null : rank;
  }

  origin(block) {
    const [x, y] = this.blockOrigin(block);
    return {x, y};
  }

  cellRect(rank) {
    const [x, y] = this.cellOrigin(rank);
    return {x, y, size: metrics.cell};
  }

  // "efsdp 3", "edp 1 · efsdp 3", "dp 8–15", "mp_shard 0–7", "mp_replicate 1 · mp_shard 8–15" (the desktop's labels).
  labelOf(block) {
    if (this.mesh.name === 'model') {
      const [replicas, shard] = this.mesh.shape;
      const first = block * this.columns;
      const at = first % shard;
      const shards = this.columns === 1 ? `mp_shard ${at}` : `mp_shard ${at}–${at + this.columns - 1}`;
      return replicas > 1 ? `mp_replicate ${Math.floor(first / shard)} · ${shards}` : shards;
    }
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
    if (this.mesh.name === 'model') return `columns mp_shard (${this.columns} per block) · blocks mp_replicate × mp_shard`;
    if (this.mesh.name === 'expert') {
      return this.mesh.shape[0] > 1 ? 'blocks edp × efsdp · columns ep · rows expert_cp'
        : 'blocks efsdp · columns ep · rows expert_cp';
    }
    return `columns dp (${this.columns} per block) · rows cp`;
  }
}
