// Rank rows as columns: what the Live page keeps of a rank (state, phase, host, local rank) in typed arrays,
// made from the collector's JSON (a ranks snapshot or a stream message) by parse_worker.js, off the page's
// main thread. A 16,384-rank snapshot is 14 MB of JSON and a burst of whole-row changes 4 MB: parsing them
// is most of the page's work, and the columns that come back are a few typed arrays (transferred, not
// copied) and one list of host names.
//
// Columns of n ranks: {n, rank: Int32Array, state: Uint8Array, phase: Int8Array (-1: none), host:
// Int32Array (index into hosts, -1: not given), localRank: Int32Array (-1: not given), whole: Uint8Array
// (1: the row carried its timings, i.e. it is the rank's whole row), hosts: [names], origin, horizon (the
// earliest and latest phase time of the rows' timings, NaN when none), positions: [[row index, position], ...]
// (the rows that carry a hang position, the collector's JSON object as it is: docs/records-hang.md, "The hang map";
// empty for a job without records)}.

// Core's RankStateKind and Phase, in their enum order (core/include/meshscope/monitor/rank_state.h, event.h): the
// JSON carries the names, the order is what the grid, the counts and the histogram index by.
export const stateNames = ['pending', 'initializing', 'ready', 'failed', 'stale', 'exited'];
export const phaseNames = ['launch', 'process_group', 'device_mesh', 'parallel_state', 'communicator', 'ready',
  'heartbeat', 'error', 'exit'];

const stateIndex = new Map(stateNames.map((name, i) => [name, i]));
const phaseIndex = new Map(phaseNames.map((name, i) => [name, i]));
export const unknownState = 255;  // a state name this page does not know: the rank keeps the one it had

class ColumnsBuilder {
  constructor(capacity) {
    this.n = 0;
    this.rank = new Int32Array(capacity);
    this.state = new Uint8Array(capacity);
    this.phase = new Int8Array(capacity);
    this.host = new Int32Array(capacity);
    this.localRank = new Int32Array(capacity);
    this.whole = new Uint8Array(capacity);
    this.hosts = [];
    this.hostIds = new Map();
    this.positions = [];
    this.origin = Infinity;
    this.horizon = -Infinity;
  }

  extend(v) {
    if (typeof v !== 'number') return;
    if (v < this.origin) this.origin = v;
    if (v > this.horizon) this.horizon = v;
  }

  // A rank row of the API (or a rank_changed change); false when it names no rank.
  add(row) {
    const rank = row.rank;
    if (!Number.isInteger(rank) || rank < 0 || rank > 0x7fffffff) return false;
    const i = this.n++;
    this.rank[i] = rank;
    this.state[i] = stateIndex.get(row.state) ?? unknownState;
    this.phase[i] = phaseIndex.get(row.phase) ?? -1;
    const host = row.host;
    if (typeof host === 'string') {
      let id = this.hostIds.get(host);
      if (id === undefined) {
        id = this.hosts.length;
        this.hosts.push(host);
        this.hostIds.set(host, id);
      }
      this.host[i] = id;
    } else {
      this.host[i] = -1;
    }
    this.localRank[i] = Number.isInteger(row.local_rank) && row.local_rank >= 0 && row.local_rank <= 0x7fffffff
      ? row.local_rank : -1;
    const position = row.position;
    if (position && typeof position === 'object' && !Array.isArray(position)) this.positions.push([i, position]);
    const timings = row.timings;
    this.whole[i] = timings !== undefined ? 1 : 0;
    if (timings && typeof timings === 'object') {
      for (const phase in timings) {
        const t = timings[phase];
        if (!t || typeof t !== 'object') continue;
        this.extend(t.started);
        this.extend(t.done);
        this.extend(t.failed);
      }
    }
    return true;
  }

  // Trimmed to the rows added; the typed arrays are what a worker transfers.
  done() {
    const n = this.n;
    const cut = (a) => (a.length === n ? a : a.slice(0, n));
    return {n, rank: cut(this.rank), state: cut(this.state), phase: cut(this.phase), host: cut(this.host),
      localRank: cut(this.localRank), whole: cut(this.whole), hosts: this.hosts, positions: this.positions,
      origin: Number.isFinite(this.origin) ? this.origin : NaN,
      horizon: Number.isFinite(this.horizon) ? this.horizon : NaN};
  }
}

export function transferables(columns) {
  return [columns.rank.buffer, columns.state.buffer, columns.phase.buffer, columns.host.buffer,
    columns.localRank.buffer, columns.whole.buffer];
}

// GET .../ranks's answer {"ranks": [...], "total": N} -> {total, columns}.
export function ranksColumns(body) {
  const rows = body && Array.isArray(body.ranks) ? body.ranks : [];
  const builder = new ColumnsBuilder(rows.length);
  for (const row of rows) if (row && typeof row === 'object') builder.add(row);
  return {total: Number.isInteger(body?.total) ? body.total : rows.length, columns: builder.done()};
}

// One stream message (its text) -> what the stream needs of it:
//   {type: 'changes', seq, count, jobs: Map job -> columns of its rank_changed, others: [the other changes]}
//   {type: 'hello' | 'reload' | 'error' | ..., message} for the small ones (the parsed object as it is)
//   {type: 'invalid'} for text that is not a JSON object.
// The rank_changed of a job keep their order; the others (job_added, finding_*) are few and stay objects.
export function parseStreamText(text) {
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    return {type: 'invalid'};
  }
  if (!message || typeof message !== 'object' || Array.isArray(message)) return {type: 'invalid'};
  if (message.type !== 'changes') return {type: String(message.type), message};
  const changes = Array.isArray(message.changes) ? message.changes : [];
  const builders = new Map();
  const others = [];
  for (const c of changes) {
    if (!c || typeof c !== 'object') continue;
    if (c.type !== 'rank_changed') {
      others.push(c);
      continue;
    }
    const job = typeof c.job === 'string' ? c.job : '';
    let builder = builders.get(job);
    if (!builder) {
      // Most messages are one job's: size for all of them, trimmed in done().
      builder = new ColumnsBuilder(changes.length);
      builders.set(job, builder);
    }
    builder.add(c);
  }
  const jobs = new Map();  // not an object: a job may be called "__proto__"
  for (const [job, builder] of builders) jobs.set(job, builder.done());
  return {type: 'changes', seq: Number.isInteger(message.seq) ? message.seq : null, count: changes.length, jobs,
    others};
}

// Every typed array of a parseStreamText result, for postMessage's transfer list.
export function streamTransferables(result) {
  if (result.type !== 'changes') return [];
  return [...result.jobs.values()].flatMap(transferables);
}
