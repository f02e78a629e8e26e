// The Live page's data: the jobs, the selected job's findings as the collector's JSON gives them, and its
// ranks as columns (state, phase, host, local rank in typed arrays: rank_columns.js), kept current from the
// change stream. The ranks snapshot and the stream's messages are parsed in the parser's worker
// (shared/parser.js): the main thread only copies columns into these arrays.
//
// Snapshots (GET /api/v1/jobs, .../ranks, .../findings) are read when the page opens, when a job is
// selected and when the stream says the page may be behind ("resync"). Changes that arrive while a snapshot
// is on its way wait and are applied after it, in order: every change carries the new value of what it
// changes, so applying them on top of the snapshot ends where the collector is.
//
// A rank_changed carries the rank's state and phase (docs/collector.md); host and timings come from the
// snapshot. A change that names a rank whose host the page does not know yet (it was pending, or is new)
// re-reads the ranks within a second; other changes move the time axis (timings), re-read at most every
// 10 s while they come. A change that is the rank's whole row (it carries "timings") needs neither.
//
// A job with records (`meshscope import`, `serve --ras`, `serve --torch-debug`) is a post-mortem: its summary
// carries "hang" (the sentence and the places ranks stand in) and each rank of the snapshot its "position"
// (docs/records-hang.md, "The hang map"), kept here as the collector's JSON. Changes do not carry positions: when a
// re-read of the jobs brings another "hang", the ranks are read again.
import {phaseNames, stateNames, unknownState} from '../shared/rank_columns.js';

export {phaseNames, stateNames};

// The collector's order of findings: kind (core's FindingKind order), first rank, id.
const kindOrder = ['verdict', 'topology_mismatch', 'group_disagreement', 'missing_rank', 'duplicate_rank', 'straggler',
  'stale_rank', 'rank_error', 'reinit_mismatch', 'slow_group', 'communicator_not_formed',
  'creation_order_mismatch', 'collective_mismatch', 'collective_stuck', 'peer_unreachable'];

function findingBefore(a, b) {
  const ka = kindOrder.indexOf(a.kind);
  const kb = kindOrder.indexOf(b.kind);
  if (ka !== kb) return (ka < 0 ? 99 : ka) - (kb < 0 ? 99 : kb);
  const ra = a.ranks.length ? a.ranks[0] : -1;
  const rb = b.ranks.length ? b.ranks[0] : -1;
  if (ra !== rb) return ra - rb;
  return String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0;
}

// A job summary's "hang" when it is one (an object with its sentence and places), else null.
export function hangOf(summary) {
  const hang = summary?.hang;
  return hang && typeof hang === 'object' && typeof hang.text === 'string' && Array.isArray(hang.places) ? hang : null;
}

// Whether a rank at `position` stands in `place` (both the collector's JSON): core's rule (stands_in) that sorts
// ranks into the summary's places: the standing; a waiting rank also by its dim (its group's label off the plan),
// seq and op.
export function standsIn(position, place) {
  if (!position || !place || position.standing !== place.standing) return false;
  if (position.standing !== 'waiting') return true;
  return (place.dim ?? '') === (position.dim || position.label || '') && (place.seq ?? 0) === (position.seq ?? 0)
    && (place.op ?? '') === (position.op ?? '');
}

// The place filter's choice that keeps the ranks a verdict names (the others are the places' texts).
export const rootCauseChoice = 'root cause';

const soon = 1000;       // ms: a rank the page knows nothing about changed
const axisEvery = 10000;  // ms: only the time axis is behind
const jobPath = (job) => `/api/v1/jobs/${encodeURIComponent(job)}`;

export class LiveData {
  // api: shared/api.js; parser: shared/parser.js; onChange(what): what in 'jobs' | 'ranks' | 'findings' | 'error'
  constructor(api, parser, onChange) {
    this.api = api;
    this.parser = parser;
    this.onChange = onChange;
    this.jobs = [];
    this.job = '';
    this.wantedJob = '';
    this.world = 0;
    this.size = 0;                          // rank slots: the world, or more when a rank beyond it reported
    this.states = new Uint8Array(0);        // by rank: index into stateNames
    this.phases = new Int8Array(0);         // by rank: index into phaseNames, -1: none
    this.hostOf = new Int32Array(0);        // by rank: index into hostNames, -1: not known
    this.localRanks = new Int32Array(0);    // by rank: -1 when not known
    this.present = new Uint8Array(0);       // by rank: 1 when the collector has a row for it
    this.hostNames = [];
    this.hostIds = new Map();
    this.counts = new Array(stateNames.length).fill(0);
    this.findings = [];
    this.rankKinds = new Map();   // rank -> [finding kinds], from the findings
    this.positions = new Map();   // rank -> its hang position (the collector's JSON), for a job with records
    this.error = '';
    this.loading = false;
    this.pending = [];            // changes that arrived during a snapshot
    this.generation = 0;
    this.jobsTimer = 0;
    this.ranksTimer = 0;
    this.ranksDue = 0;            // when the scheduled re-read runs (performance.now())
    this.origin = 0;              // the job's time axis (sender clock): earliest and latest phase time
    this.horizon = 0;
    this.gpus = 0;                // GPUs per node: the largest local rank + 1
    this.hostsChanged = true;
    this.hostList = null;
    this.lastApplyMs = 0;         // read by bench/web/live_render.mjs
  }

  destroy() {
    ++this.generation;
    clearTimeout(this.jobsTimer);
    clearTimeout(this.ranksTimer);
  }

  get summary() {
    return this.jobs.find((j) => j.job === this.job) || null;
  }

  // The post-mortem of a job with records ({text, root_cause, places}), or null: a job that is starting.
  get hang() {
    return hangOf(this.summary);
  }

  position(rank) {
    return this.positions.get(rank);
  }

  // Reads every snapshot again; job: the job to show ('' = keep the current one, else the first).
  async load(job = this.wantedJob) {
    this.wantedJob = job;
    const generation = ++this.generation;
    this.loading = true;
    clearTimeout(this.ranksTimer);
    this.ranksTimer = 0;
    // The job's ranks (the large snapshot, parsed in the worker) are asked for at once when the page knows
    // which job it wants (a deep link, a click): not one round trip after the jobs list. Used only when that job
    // is the one chosen. The findings (small) wait for the list: a deep link may name a job that has not
    // reported yet, and the page asks the collector for nothing it does not know of.
    const early = job ? this.rankSnapshot(job) : null;
    early?.catch(() => {});
    try {
      const jobs = (await this.api.get('/api/v1/jobs')).jobs || [];
      if (generation !== this.generation) return;
      this.jobs = jobs;
      const chosen = jobs.some((j) => j.job === job) ? job : (jobs.some((j) => j.job === this.job) ? this.job
        : (jobs[0]?.job || ''));
      const switched = chosen !== this.job;
      this.job = chosen;
      if (switched) this.findings = [];
      this.onChange('jobs');
      if (!chosen) {
        this.setRanks(null, 0);
        this.findings = [];
        this.afterFindings();
        this.error = '';
      } else {
        const [ranks, findings] = await Promise.all([chosen === job ? early : this.rankSnapshot(chosen),
          this.api.get(`${jobPath(chosen)}/findings`)]);
        if (generation !== this.generation) return;
        this.setRanks(ranks.columns || null, this.summary?.world_size || ranks.total || 0);
        // For the benchmark (bench/web/live_render.mjs): the snapshot's columns are in.
        performance.mark('meshscope-ranks-loaded', {detail: {world: this.world}});
        this.findings = (findings.findings || []).slice().sort(findingBefore);
        this.afterFindings();
        this.error = '';
      }
    } catch (e) {
      if (generation !== this.generation) return;
      this.error = e.error || String(e.message || e);
      this.onChange('error');
    } finally {
      if (generation === this.generation) {
        this.loading = false;
        const waiting = this.pending;
        this.pending = [];
        for (const batch of waiting) this.apply(batch);
        this.onChange('ranks');
        this.onChange('findings');
      }
    }
  }

  // The ranks snapshot of a job (columns, from the parser's worker).
  rankSnapshot(job) {
    return this.api.answer(`${jobPath(job)}/ranks`, (path, token) => this.parser.ranks(path, token));
  }

  // The ranks snapshot's columns (null: no ranks).
  setRanks(columns, world) {
    const n = columns ? columns.n : 0;
    let last = -1;
    for (let i = 0; i < n; ++i) if (columns.rank[i] > last) last = columns.rank[i];
    this.world = Math.max(world, 0);
    this.size = 0;
    this.grow(Math.max(this.world, last + 1), true);
    this.hostNames = [];
    this.hostIds = new Map();
    this.positions = new Map();
    this.counts.fill(0);
    this.gpus = 0;
    this.origin = this.horizon = 0;
    if (columns) {
      this.put(columns, true);
      this.origin = Number.isFinite(columns.origin) ? columns.origin : 0;
      this.horizon = Number.isFinite(columns.horizon) ? columns.horizon : 0;
    }
    for (let r = 0; r < this.world; ++r) ++this.counts[this.states[r]];
    this.hostsChanged = true;
  }

  // Room for `size` ranks (fresh: new empty arrays).
  grow(size, fresh = false) {
    if (!fresh && size <= this.size) return;
    const old = fresh ? null : this;
    const make = (Type, fill, before) => {
      const a = new Type(size);
      if (fill) a.fill(fill);
      if (before) a.set(before);
      return a;
    };
    this.states = make(Uint8Array, 0, old?.states);
    this.phases = make(Int8Array, -1, old?.phases);
    this.hostOf = make(Int32Array, -1, old?.hostOf);
    this.localRanks = make(Int32Array, -1, old?.localRanks);
    this.present = make(Uint8Array, 0, old?.present);
    this.size = size;
  }

  // Copies columns in; snapshot: rows of a snapshot (states not counted here, unknown states are pending).
  // Returns what the page still lacks: 0 nothing, 1 the time axis, 2 a rank's host.
  put(columns, snapshot = false) {
    const {n, rank, state, phase, host, localRank, whole, hosts, positions} = columns;
    // The columns' host ids -> this job's (the same name, the same id, whichever message brought it).
    const ids = new Int32Array(hosts.length);
    for (let h = 0; h < hosts.length; ++h) {
      let id = this.hostIds.get(hosts[h]);
      if (id === undefined) {
        id = this.hostNames.length;
        this.hostNames.push(hosts[h]);
        this.hostIds.set(hosts[h], id);
        this.hostsChanged = true;
      }
      ids[h] = id;
    }
    let last = -1;
    for (let i = 0; i < n; ++i) if (rank[i] > last) last = rank[i];
    this.grow(last + 1);
    const states = this.states;
    const counts = this.counts;
    const world = this.world;
    let lacks = 0;
    for (let i = 0; i < n; ++i) {
      const r = rank[i];
      const before = states[r];
      let after = state[i];
      if (after === unknownState) after = snapshot ? 0 : before;
      if (!snapshot) {
        if (!whole[i]) lacks = Math.max(lacks, this.hostOf[r] < 0 || before === 0 ? 2 : 1);
        if (before !== after && r < world) {
          --counts[before];
          ++counts[after];
        }
      }
      states[r] = after;
      this.phases[r] = phase[i];
      this.present[r] = 1;
      if (host[i] >= 0) {
        const id = ids[host[i]];
        if (this.hostOf[r] !== id) {
          if (this.hostOf[r] >= 0) this.hostsChanged = true;
          this.hostOf[r] = id;
        }
      }
      if (localRank[i] >= 0) {
        this.localRanks[r] = localRank[i];
        if (localRank[i] + 1 > this.gpus) this.gpus = localRank[i] + 1;
      }
    }
    for (const [i, position] of positions || []) this.positions.set(rank[i], position);
    return lacks;
  }

  afterFindings() {
    this.rankKinds = new Map();
    for (const f of this.findings) {
      for (const r of f.ranks) {
        const kinds = this.rankKinds.get(r);
        if (!kinds) this.rankKinds.set(r, [f.kind]);
        else if (!kinds.includes(f.kind)) kinds.push(f.kind);
      }
    }
  }

  // One {"type":"changes"} message as the stream hands it ({count, jobs, others}: stream.js), or one
  // buffered during a snapshot.
  apply(batch) {
    if (this.loading) {
      this.pending.push(batch);
      return;
    }
    const started = performance.now();
    let ranks = false;
    let findings = false;
    for (const c of batch.others) {
      if (!c || typeof c !== 'object') continue;
      if (c.type === 'job_added') {
        if (!this.job) this.scheduleSnapshot(0);
        continue;
      }
      if (c.job !== this.job) continue;
      if (c.type === 'finding_added' || c.type === 'finding_updated') {
        const f = c.finding;
        if (!f || !Array.isArray(f.ranks)) continue;
        const at = this.findings.findIndex((x) => x.id === f.id);
        if (at >= 0) this.findings[at] = f;
        else this.findings.push(f);
        findings = true;
      } else if (c.type === 'finding_removed') {
        const at = this.findings.findIndex((x) => x.id === c.id);
        if (at >= 0) this.findings.splice(at, 1);
        findings = true;
      }
    }
    const columns = this.job ? batch.jobs.get(this.job) : null;
    if (columns && columns.n > 0) {
      const lacks = this.put(columns);
      this.extendAxis(columns.origin);
      this.extendAxis(columns.horizon);
      if (lacks === 2) this.scheduleSnapshot(soon);
      else if (lacks === 1) this.scheduleSnapshot(axisEvery);
      ranks = true;
    }
    // Summaries (every job's ready count, hosts of other jobs) are not in the stream: re-read the jobs soon.
    if (batch.count) this.scheduleJobs();
    if (findings) {
      this.findings.sort(findingBefore);
      this.afterFindings();
      this.onChange('findings');
    }
    if (ranks) this.onChange('ranks');
    this.lastApplyMs = performance.now() - started;
  }

  extendAxis(v) {
    if (!Number.isFinite(v)) return;
    if (this.origin === 0 && this.horizon === 0) this.origin = this.horizon = v;
    else if (v < this.origin) this.origin = v;
    else if (v > this.horizon) this.horizon = v;
  }

  scheduleJobs() {
    if (this.jobsTimer) return;
    this.jobsTimer = setTimeout(async () => {
      const generation = this.generation;
      try {
        const jobs = (await this.api.get('/api/v1/jobs')).jobs || [];
        if (generation === this.generation && !this.loading) {
          const before = hangOf(this.summary)?.text;
          this.jobs = jobs;
          // Records came (or came again): the ranks' positions are in the ranks snapshot only.
          if (hangOf(this.summary)?.text !== before) this.scheduleSnapshot(0);
          this.onChange('jobs');
        }
      } catch {
        // The stream's banner says when the collector is away; the next change tries again.
      } finally {
        this.jobsTimer = 0;
      }
    }, 1000);
  }

  // A re-read of the snapshots in `delay` ms, unless one is due sooner.
  scheduleSnapshot(delay) {
    const due = performance.now() + delay;
    if (this.ranksTimer && this.ranksDue <= due) return;
    clearTimeout(this.ranksTimer);
    this.ranksDue = due;
    this.ranksTimer = setTimeout(() => {
      this.ranksTimer = 0;
      if (!this.loading) this.load(this.job);
    }, delay);
  }

  // "host" list of the filter: every host a rank of the job reported, node-2 before node-10.
  hosts(compare) {
    if (!this.hostsChanged && this.hostList) return this.hostList;
    const used = new Uint8Array(this.hostNames.length);
    for (let r = 0; r < this.size; ++r) if (this.hostOf[r] >= 0) used[this.hostOf[r]] = 1;
    this.hostsChanged = false;
    this.hostList = this.hostNames.filter((_, id) => used[id]).sort(compare);
    return this.hostList;
  }

  has(rank) {
    return rank >= 0 && rank < this.size && this.present[rank] === 1;
  }

  host(rank) {
    const id = rank >= 0 && rank < this.size ? this.hostOf[rank] : -1;
    return id >= 0 ? this.hostNames[id] : '';
  }

  phase(rank) {
    const p = rank >= 0 && rank < this.size ? this.phases[rank] : -1;
    return p >= 0 ? phaseNames[p] : '';
  }

  // What the page knows of a rank, in the API's words ({rank, state, phase, host, local_rank}); the rank
  // panel fetches the rest (GET .../ranks/{rank}). undefined for a rank without a row.
  row(rank) {
    if (!this.has(rank)) return undefined;
    const row = {rank, state: stateNames[this.states[rank]], timings: {}};
    const phase = this.phase(rank);
    if (phase) row.phase = phase;
    const host = this.host(rank);
    if (host) row.host = host;
    if (this.localRanks[rank] >= 0) row.local_rank = this.localRanks[rank];
    const position = this.positions.get(rank);
    if (position) row.position = position;
    return row;
  }

  seen() {
    return this.world - this.counts[0];
  }

  // GPUs per node as the ranks report it (the largest local rank + 1), else 8 (as the desktop assumes).
  gpusPerNode() {
    return this.gpus > 0 ? this.gpus : 8;
  }

  // Ranks by the phase they reported last: "not seen" first, then core's phases.
  phaseCounts() {
    const counts = new Array(phaseNames.length + 1).fill(0);
    const n = Math.min(this.world, this.size);
    for (let r = 0; r < n; ++r) ++counts[this.phases[r] + 1];
    counts[0] += this.world - n;
    return counts;
  }
}
