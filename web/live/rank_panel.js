// The selected rank: who it is, what it reports, its groups (GET /api/v1/jobs/{job}/ranks/{rank}: the only
// answer that carries them) and its phases on the job's time axis. Every rank-provided string (host, device,
// error type and message, dim names) goes in as text. A rank of a job with records also shows where it stands in
// the hang (its "position": the group it waits in, its standing, seq and op, whether it is the root cause) and its
// last collective on each group it called (docs/records-hang.md, "The hang map").
import {el, ranksText, replaceChildren, setText} from '../shared/dom.js';

// "+1.20 s, took 0.30 s" / "+1.20 s, started" (the desktop's TimelineModel text).
function timelineRows(row, origin, horizon) {
  const span = Math.max(0, horizon - origin) || 1;
  const rows = [];
  for (const [phase, t] of Object.entries(row.timings || {})) {
    const pick = (v) => (typeof v === 'number' ? v : undefined);
    const started = pick(t.started);
    const done = pick(t.done);
    const failed = pick(t.failed);
    const start = (started ?? done ?? failed ?? origin) - origin;
    let end = start;
    let status = 'started';
    let duration = -1;
    if (failed !== undefined) {
      status = 'failed';
      end = failed - origin;
    } else if (done !== undefined) {
      status = 'done';
      end = done - origin;
      if (started !== undefined && done >= started) duration = done - started;
    }
    end = Math.max(end, start);
    rows.push({phase, status, start, end, duration,
      startFraction: Math.min(1, Math.max(0, start / span)),
      widthFraction: Math.min(1, Math.max(0.004, (end - start) / span))});
  }
  rows.sort((a, b) => a.start - b.start);
  return rows;
}

export class RankPanel {
  constructor(host, {api}) {
    this.api = api;
    this.request = 0;
    this.heading = el('h2', {id: 'rank-heading'}, 'Rank');
    this.hint = el('p', {class: 'muted'}, 'Click a rank in the grid or the list to see its timeline.');
    this.details = el('dl', {class: 'rank-details'});
    this.groupsTitle = el('h3', {id: 'rank-groups-heading', hidden: true}, 'Groups');
    this.groups = el('dl', {class: 'rank-groups', 'aria-labelledby': 'rank-groups-heading'});
    this.standingTitle = el('h3', {id: 'rank-standing-heading', hidden: true}, 'Where it stands');
    this.standing = el('dl', {class: 'rank-details rank-standing', 'aria-labelledby': 'rank-standing-heading'});
    this.lastTitle = el('h3', {id: 'rank-last-heading', hidden: true}, 'Last collectives');
    this.last = el('table', {class: 'rank-last', 'aria-labelledby': 'rank-last-heading', hidden: true});
    this.timelineTitle = el('h3', {id: 'rank-timeline-heading', hidden: true}, 'Timeline');
    this.timeline = el('ol', {class: 'timeline', 'aria-labelledby': 'rank-timeline-heading'});
    this.section = el('section', {class: 'panel rank-panel', 'aria-labelledby': 'rank-heading', 'data-anchor': 'live.rank',
      tabindex: '0'},
      this.heading, this.hint, this.standingTitle, this.standing, this.details, this.lastTitle, this.last,
      this.groupsTitle, this.groups, this.timelineTitle, this.timeline);
    host.append(this.section);
    this.rank = -1;
    this.detail = null;  // the last GET .../ranks/{rank} answer
  }

  // Shows `row` (the list's row) at once, then fetches the rank with its groups.
  show(job, rank, row, kinds, origin, horizon) {
    this.rank = rank;
    if (rank < 0) {
      setText(this.heading, 'Rank');
      this.hint.hidden = false;
      replaceChildren(this.details);
      replaceChildren(this.groups);
      replaceChildren(this.timeline);
      replaceChildren(this.standing);
      replaceChildren(this.last);
      this.groupsTitle.hidden = this.timelineTitle.hidden = this.standingTitle.hidden = true;
      this.lastTitle.hidden = this.last.hidden = true;
      return;
    }
    setText(this.heading, `Rank ${rank}`);
    this.hint.hidden = true;
    const shown = this.detail && this.detail.rank === rank && this.detail.job === job ? {...row, ...this.detail.row} : row;
    this.render(shown || {rank, state: 'pending', timings: {}}, kinds, origin, horizon);
  }

  async fetch(job, rank, kinds, origin, horizon, row) {
    const request = ++this.request;
    try {
      const answer = await this.api.get(`/api/v1/jobs/${encodeURIComponent(job)}/ranks/${rank}`);
      if (request !== this.request || rank !== this.rank) return;
      this.detail = {job, rank, row: answer};
      this.render({...row, ...answer}, kinds, origin, horizon);
    } catch (e) {
      if (request !== this.request) return;
      this.detail = null;
      replaceChildren(this.groups, el('dd', {class: 'error'}, e.error || String(e)));
    }
  }

  render(row, kinds, origin, horizon) {
    const position = row.position && typeof row.position === 'object' ? row.position : null;
    this.renderPosition(position);
    const items = [];
    const add = (term, value, cls) => {
      if (value === undefined || value === null || value === '') return;
      items.push(el('dt', {}, term), el('dd', cls ? {class: cls} : {}, String(value)));
    };
    // A rank known from records alone never reported a state: "pending" would be start-up talk.
    if (!position || row.state !== 'pending') {
      add('state', row.phase ? `${row.state} (${row.phase} ${row.status || ''})`.replace(' )', ')') : row.state);
    }
    add('host', row.host);
    if (Number.isInteger(row.local_rank)) add('local rank', row.local_rank);
    add('device', row.device);
    if (Number.isInteger(row.pid)) add('pid', row.pid);
    if (row.topology) add('reports', `dp ${row.topology.dp} · cp ${row.topology.cp} · ep ${row.topology.ep}`);
    if (kinds && kinds.length) add('findings', kinds.join(', '), 'error');
    if (row.error) {
      add('error type', row.error.type, 'error');
      add('error', row.error.message, 'error message');
    }
    replaceChildren(this.details, ...items);

    const groups = [];
    for (const [dim, members] of Object.entries(row.groups || {})) {
      if (!Array.isArray(members)) continue;
      groups.push(el('dt', {}, dim), el('dd', {}, `[${ranksText(members, 16)}]`));
    }
    this.groupsTitle.hidden = groups.length === 0;
    replaceChildren(this.groups, ...groups);

    const steps = timelineRows(row, origin, horizon).map((step) => {
      const bar = el('span', {class: `timeline-bar ${step.status}`});
      bar.style.left = `${(step.startFraction * 100).toFixed(2)}%`;
      bar.style.width = `${Math.max(0.6, step.widthFraction * 100).toFixed(2)}%`;
      const text = step.duration >= 0 ? `+${step.start.toFixed(2)} s, took ${step.duration.toFixed(2)} s`
        : `+${step.start.toFixed(2)} s, ${step.status}`;
      // The failed phase carries what the rank reported about it.
      const why = step.status === 'failed' && row.error
        ? el('span', {class: 'timeline-error'}, [row.error.type, row.error.message].filter(Boolean).join(': ')) : null;
      return el('li', {class: 'timeline-step'}, el('span', {class: 'timeline-phase'}, step.phase.replace('_', ' ')),
        el('span', {class: 'timeline-track', 'aria-hidden': 'true'}, bar), el('span', {class: 'timeline-text'}, text), why);
    });
    this.timelineTitle.hidden = steps.length === 0;
    replaceChildren(this.timeline, ...steps);
  }

  // Where the rank stands (the collector's position, each field as text) and its last collectives.
  renderPosition(position) {
    this.standingTitle.hidden = !position;
    const items = [];
    if (position) {
      const add = (term, value, cls) => {
        if (value === undefined || value === null || value === '') return;
        items.push(el('dt', {}, term), el('dd', cls ? {class: cls} : {}, String(value)));
      };
      if (position.root_cause === true) add('verdict', 'root cause', 'root-cause');
      add('standing', String(position.standing ?? '').replaceAll('_', ' '));
      add('group', position.label);
      if (Number.isInteger(position.seq)) add('seq', position.seq);
      add('op', position.op);
    }
    replaceChildren(this.standing, ...items);
    const last = position && Array.isArray(position.last)
      ? position.last.filter((c) => c && typeof c === 'object') : [];
    this.lastTitle.hidden = this.last.hidden = last.length === 0;
    const cell = (value) => el('td', {}, value === undefined || value === null ? '' : String(value));
    replaceChildren(this.last, last.length ? el('thead', {}, el('tr', {},
      ...['dim', 'group', 'seq', 'op', 'state'].map((h) => el('th', {scope: 'col'}, h)))) : null,
    last.length ? el('tbody', {}, ...last.map((c) => el('tr', {class: c.completed === true ? 'completed' : 'open'},
      cell(c.dim), cell(Number.isInteger(c.group) && c.group >= 0 ? c.group : ''), cell(c.seq), cell(c.op),
      cell(c.completed === true ? 'completed' : 'not completed')))) : null);
  }
}
