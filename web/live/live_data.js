// The Live page's data: the jobs, and the selected job's ranks and findings, as the collector's JSON gives
// them (no second vocabulary: a rank row is the API's object), kept current from the change stream.
//
// Snapshots (GET /api/v1/jobs, .../ranks, .../findings) are read when the page opens, when a job is
// selected and when the stream says the page may be behind ("resync"). Changes that arrive while a snapshot
// is on its way wait and are applied after it, in order: every change carries the full new value of what it
// changes, so applying them on top of the snapshot ends where the collector is.

// Core's RankStateKind and Phase, in their enum order (core/include/meshscope/rank_state.h, event.h): the
// JSON carries the names, the order is what the grid, the counts and the histogram index by.
export const stateNames = ['pending', 'initializing', 'ready', 'failed', 'stale', 'exited'];
export const phaseNames = ['launch', 'process_group', 'device_mesh', 'parallel_state', 'communicator', 'ready',
  'heartbeat', 'error', 'exit'];
// The collector's order of findings: kind (core's FindingKind order), first rank, id.
const kindOrder = ['topology_mismatch', 'group_disagreement', 'missing_rank', 'duplicate_rank', 'straggler',
  'stale_rank', 'rank_error', 'reinit_mismatch', 'slow_group', 'communicator_not_formed',
  'creation_order_mismatch'];

const stateIndex = new Map(stateNames.map((name, i) => [name, i]));
const phaseIndex = new Map(phaseNames.map((name, i) => [name, i]));

function findingBefore(a, b) {
  const ka = kindOrder.indexOf(a.kind);
  const kb = kindOrder.indexOf(b.kind);
  if (ka !== kb) return (ka < 0 ? 99 : ka) - (kb < 0 ? 99 : kb);
  const ra = a.ranks.length ? a.ranks[0] : -1;
  const rb = b.ranks.length ? b.ranks[0] : -1;
  if (ra !== rb) return ra - rb;
  return String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0;
}

export class LiveData {
  // api: shared/api.js; onChange(what): what in 'jobs' | 'ranks' | 'findings' | 'error'
  constructor(api, onChange) {
    this.api = api;
    this.onChange = onChange;
    this.jobs = [];
    this.job = '';
    this.wantedJob = '';
    this.world = 0;
    this.ranks = [];              // by rank: the API's rank objects
    this.states = new Uint8Array(0);  // by rank: index into stateNames
    this.counts = new Array(stateNames.length).fill(0);
    this.findings = [];
    this.rankKinds = new Map();   // rank -> [finding kinds], from the findings
    this.error = '';
    this.loading = false;
    this.pending = [];            // changes that arrived during a snapshot
    this.generation = 0;
    this.jobsTimer = 0;
    this.ranksTimer = 0;
    this.origin = 0;              // the job's time axis (sender clock): earliest and latest phase time
    this.horizon = 0;
    this.gpus = 0;                // GPUs per node: the largest local rank + 1
    this.hostsChanged = true;
    this.hostList = null;
  }

  destroy() {
    ++this.generation;
    clearTimeout(this.jobsTimer);
    clearTimeout(this.ranksTimer);
  }

  get summary() {
    return this.jobs.find((j) => j.job === this.job) || null;
  }

  // Reads every snapshot again; job: the job to show ('' = keep the current one, else the first).
  async load(job = this.wantedJob) {
    this.wantedJob = job;
    const generation = ++this.generation;
    this.loading = true;
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
        this.setRanks([]);
        this.findings = [];
        this.afterFindings();
        this.error = '';
      } else {
        const base = `/api/v1/jobs/${encodeURIComponent(chosen)}`;
        const [ranks, findings] = await Promise.all([this.api.get(`${base}/ranks`), this.api.get(`${base}/findings`)]);
        if (generation !== this.generation) return;
        this.setRanks(ranks.ranks || [], this.summary?.world_size || ranks.total || 0);
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
        for (const changes of waiting) this.apply(changes);
        this.onChange('ranks');
        this.onChange('findings');
      }
    }
  }

  setRanks(rows, world = rows.length) {
    this.world = Math.max(world, 0);
    const size = Math.max(this.world, rows.length ? rows[rows.length - 1].rank + 1 : 0);
    this.ranks = new Array(size);
    this.states = new Uint8Array(size);
    this.counts.fill(0);
    for (const row of rows) {
      if (!Number.isInteger(row.rank) || row.rank < 0 || row.rank >= size) continue;
      this.ranks[row.rank] = row;
      this.states[row.rank] = stateIndex.get(row.state) ?? 0;
    }
    for (let r = 0; r < this.world; ++r) ++this.counts[this.states[r]];
    this.gpus = 0;
    for (const row of rows) if (Number.isInteger(row.local_rank)) this.gpus = Math.max(this.gpus, row.local_rank + 1);
    this.hostsChanged = true;
    this.axis();
  }

  // The time axis of the timelines: the earliest and latest phase time of any rank (sender clock).
  axis() {
    let origin = Infinity;
    let horizon = -Infinity;
    for (const row of this.ranks) {
      if (!row || !row.timings) continue;
      for (const t of Object.values(row.timings)) {
        for (const v of [t.started, t.done, t.failed]) {
          if (typeof v !== 'number') continue;
          if (v < origin) origin = v;
          if (v > horizon) horizon = v;
        }
      }
    }
    this.origin = Number.isFinite(origin) ? origin : 0;
    this.horizon = Number.isFinite(horizon) ? horizon : 0;
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

  // One {"type":"changes"} message's list (or a list buffered during a snapshot).
  apply(changes) {
    if (this.loading) {
      this.pending.push(changes);
      return;
    }
    let ranks = false;
    let findings = false;
    let partialRows = false;
    for (const c of changes) {
      if (!c || typeof c !== 'object') continue;
      if (c.type === 'job_added') {
        if (!this.job) this.scheduleSnapshot(0);
        continue;
      }
      if (c.job !== this.job) continue;
      if (c.type === 'rank_changed') {
        if (this.applyRank(c)) partialRows = true;
        ranks = true;
      } else if (c.type === 'finding_added' || c.type === 'finding_updated') {
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
    // Summaries (every job's ready count, hosts of other jobs) are not in the stream: re-read the jobs soon.
    if (changes.length) this.scheduleJobs();
    // A collector that sends only state and phase in rank_changed: host and timings come from a re-read.
    if (partialRows) this.scheduleSnapshot(1000);
    if (findings) {
      this.findings.sort(findingBefore);
      this.afterFindings();
      this.onChange('findings');
    }
    if (ranks) this.onChange('ranks');
  }

  // Returns true when the change held only part of the row (an older collector).
  applyRank(c) {
    const rank = c.rank;
    if (!Number.isInteger(rank) || rank < 0) return false;
    if (rank >= this.ranks.length) {
      // A rank beyond the world: grow the arrays (they are drawn only up to the world).
      const states = new Uint8Array(rank + 1);
      states.set(this.states);
      this.states = states;
      this.ranks.length = rank + 1;
    }
    const whole = c.timings !== undefined;
    const before = this.states[rank];
    const after = stateIndex.get(c.state) ?? before;
    let row = this.ranks[rank];
    if (whole) {
      // The change is the rank's whole row (plus "type" and "job"): kept as it is, no copy.
      if (row && c.host !== row.host) this.hostsChanged = true;
      if (Number.isInteger(c.local_rank) && c.local_rank + 1 > this.gpus) this.gpus = c.local_rank + 1;
      this.ranks[rank] = row = c;
      const timings = c.timings;
      for (const phase in timings) {
        const t = timings[phase];
        this.extendAxis(t.started);
        this.extendAxis(t.done);
        this.extendAxis(t.failed);
      }
    } else {
      if (!row) this.ranks[rank] = row = {rank, state: c.state, timings: {}, findings: []};
      row.state = c.state;
      if (c.phase !== undefined) row.phase = c.phase;
    }
    if (before !== after && rank < this.world) {
      --this.counts[before];
      ++this.counts[after];
    }
    this.states[rank] = after;
    return !whole;
  }

  extendAxis(v) {
    if (typeof v !== 'number') return;
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
          this.jobs = jobs;
          this.onChange('jobs');
        }
      } catch {
        // The stream's banner says when the collector is away; the next change tries again.
      } finally {
        this.jobsTimer = 0;
      }
    }, 1000);
  }

  scheduleSnapshot(delay) {
    if (this.ranksTimer) return;
    this.ranksTimer = setTimeout(() => {
      this.ranksTimer = 0;
      if (!this.loading) this.load(this.job);
    }, delay);
  }

  // "host" list of the filter: every host a rank of the job reported, node-2 before node-10.
  hosts(compare) {
    if (!this.hostsChanged && this.hostList) return this.hostList;
    const set = new Set();
    for (const row of this.ranks) if (row && typeof row.host === 'string') set.add(row.host);
    this.hostsChanged = false;
    this.hostList = [...set].sort(compare);
    return this.hostList;
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
    for (let r = 0; r < this.world; ++r) {
      const row = this.ranks[r];
      const phase = row && row.phase ? (phaseIndex.get(row.phase) ?? -1) : -1;
      ++counts[phase + 1];
    }
    return counts;
  }
}
