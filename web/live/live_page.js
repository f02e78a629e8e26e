// The Live page (#/live, #/live/<JOB>?rank=R&place=P): the desktop's Live page in a browser. Jobs, progress and the
// rank list on the left; filters, the grid, its legend and a status line in the middle; findings and the
// selected rank on the right. Data: live_data.js (snapshots + the change stream); views: the other modules.
// A job with records is a post-mortem (docs/records-hang.md, "The hang map"): ranks coloured by where they stand, the
// root cause ringed, the collector's sentence and places in place of the start-up counts; the place filter (or a
// click on a place of the legend) keeps one place's ranks in the list and fades the others on the grid. The
// place kept is in the link (`place=`, the place's text as the legend writes it), so a link opens the job on it.
import {el, naturalCompare, setText} from '../shared/dom.js';
import {GridCanvas} from '../shared/grid_canvas.js';
import {BandwidthPanel} from './bandwidth_panel.js';
import {LiveData, rootCauseChoice, standsIn, stateNames} from './live_data.js';
import {gridColours, liveLayout, standingVariable} from './live_grid.js';
import {RankList, rankListHeader} from './rank_list.js';
import {RankPanel} from './rank_panel.js';
import {FindingsList, Filters, JobsList, Legend, Progress} from './side_panels.js';
import {announceRank} from '../shared/learner.js';

let page = null;

class LivePage {
  constructor(root, ctx) {
    this.ctx = ctx;
    this.selectedRank = -1;
    this.selectedFinding = '';
    this.hovered = -1;
    this.dirty = new Set();
    this.frame = 0;
    this.layoutKey = '';
    this.hang = null;  // the job's post-mortem ("hang" of its summary), null for a job that is starting
    this.chosen = {state: -1, host: '', place: ''};  // the filters' values, read once a render
    this.wantedPlace = '';  // a link's place, kept once the job's places are known
    this.missingPlace = '';  // a link's place the job's hang does not have (said on the status line)
    this.linkedRank = -1;  // the rank of the link (rank=)
    this.colours = gridColours();
    this.data = new LiveData(ctx.api, ctx.parser, (what) => this.changed(what));

    const left = el('div', {class: 'live-column live-left'});
    const middle = el('div', {class: 'live-column live-middle'});
    const right = el('div', {class: 'live-column live-right'});
    root.append(el('div', {class: 'live-page'}, left, middle, right));

    this.jobs = new JobsList(left, {onOpen: (job) => this.openJob(job)});
    this.progress = new Progress(left);
    this.ranksHeading = el('h2', {id: 'ranks-heading'}, 'Ranks');
    const ranksPanel = el('section', {class: 'panel ranks-panel', 'aria-labelledby': 'ranks-heading'}, this.ranksHeading);
    left.append(ranksPanel);
    this.rankList = new RankList(ranksPanel, {
      labelledBy: 'ranks-heading',
      row: (rank) => this.rankRow(rank),
      onOpen: (rank) => this.openRank(rank),
    });

    this.filters = new Filters(middle, {onChange: (how) => {
      if (how?.clear) this.toggleFinding('');
      this.placeChosen();
    }});
    const gridPanel = el('section', {class: 'panel grid-panel', 'aria-label': 'Rank grid', 'data-anchor': 'live.grid'});
    this.placeholder = el('p', {class: 'grid-placeholder muted'});
    gridPanel.append(this.placeholder);
    middle.append(gridPanel);
    this.legend = new Legend(middle, {onPlace: (choice) => {
      if (this.filters.togglePlace(choice)) this.placeChosen();
    }});
    this.grid = new GridCanvas(gridPanel, {
      label: 'Rank grid: arrow keys move the selection, Enter opens the rank',
      fill: (rank) => this.fill(rank),
      mark: (rank) => this.data.rankKinds.has(rank),
      ring: (rank) => this.data.position(rank)?.root_cause === true,
      colours: () => this.colours,
      describe: (rank) => this.hoverText(rank),
      onSelect: (rank) => {
        this.selectedRank = rank;
        this.rankList.setActiveRank(rank);
      },
      onOpen: (rank) => this.openRank(rank),
      onHover: (rank) => {
        this.hovered = rank;
        this.renderStatus();
      },
    });
    this.status = el('p', {class: 'status-line', id: 'live-status'});
    middle.append(this.status);

    this.findings = new FindingsList(right, {onToggle: (id) => this.toggleFinding(id)});
    this.bandwidth = new BandwidthPanel(right, {api: ctx.api});  // meshscope-probe jobs only
    this.rankPanel = new RankPanel(right, {api: ctx.api});

    this.onTheme = () => {
      this.colours = gridColours();
      this.grid.invalidate();
    };
    window.addEventListener('meshscope-theme', this.onTheme);
    this.unsubscribe = ctx.stream.subscribe((event) => {
      if (event.type === 'changes') this.data.apply(event.batch);
      else if (event.type === 'resync') this.data.load(this.data.job);
      else if (event.type === 'state') this.renderStatus();
    });
    this.update(ctx.params, {first: true});
  }

  destroy() {
    this.unsubscribe();
    window.removeEventListener('meshscope-theme', this.onTheme);
    cancelAnimationFrame(this.frame);
    this.data.destroy();
    this.bandwidth.destroy();
    this.grid.destroy();
  }

  // A new hash on this page: another job and/or rank.
  update(params, {first = false} = {}) {
    const job = params.job || '';
    const rank = params.rank !== undefined && /^\d+$/.test(params.rank) ? Number(params.rank) : -1;
    this.wantedRank = rank;
    this.linkedRank = rank;
    const place = typeof params.place === 'string' ? params.place : '';
    if (place !== this.filters.placeFilter) {
      this.wantedPlace = place;
      this.missingPlace = '';
      if (!place) this.filters.clearPlace();
      this.invalidate('filters');
    }
    if (first || (job && job !== this.data.job)) {
      this.selectedFinding = '';
      this.selectedRank = -1;
      this.data.load(job);
    } else {
      this.selectRank(rank);
    }
  }

  hash(job, rank, place = this.filters.placeFilter) {
    const base = job ? `#/live/${encodeURIComponent(job)}` : '#/live';
    const query = new URLSearchParams();
    if (rank >= 0) query.set('rank', String(rank));
    if (place) query.set('place', place);
    const text = query.toString();
    return text ? `${base}?${text}` : base;
  }

  openJob(job) {
    this.ctx.navigate(this.hash(job, -1, ''));
  }

  // The user chose a place (or any): the link follows, without a new history entry or a new route.
  placeChosen() {
    this.wantedPlace = '';
    this.missingPlace = '';
    const hash = this.hash(this.data.job, this.linkedRank);
    if (location.hash !== hash) history.replaceState(null, '', hash);
    this.invalidate('filters');
  }

  // A link's place, once the job's places are known: chosen, or said to be missing. True when the choice changed.
  takeWantedPlace() {
    if (!this.wantedPlace || this.data.loading || !this.data.job || this.data.world <= 0) return false;
    const place = this.wantedPlace;
    this.wantedPlace = '';
    if (this.filters.choosePlace(place)) return true;
    this.missingPlace = place;
    return false;
  }

  // Opening a rank is a deep link (#/live/JOB?rank=R); the hash change selects it (update()).
  openRank(rank) {
    announceRank('live', rank);  // a tour step may be waiting for this rank (web/tours/tour_runner.js)
    const hash = this.hash(this.data.job, rank);
    if (location.hash === hash) this.selectRank(rank);
    else this.ctx.navigate(hash, {replace: true});
  }

  selectRank(rank) {
    const valid = rank >= 0 && rank < this.data.size ? rank : -1;
    this.selectedRank = valid;
    this.grid.select(valid, {announce: false});
    this.rankList.setActiveRank(valid);
    this.renderRankPanel(true);
  }

  toggleFinding(id) {
    this.selectedFinding = this.selectedFinding === id ? '' : id;
    this.invalidate('findings');
  }

  changed(what) {
    // Only a job the jobs list names: a deep link opens its snapshots before the list arrives, and asking for
    // the communicators of a job the collector does not know yet would be a 404 in the console.
    const known = this.data.jobs.some((j) => j.job === this.data.job);
    this.bandwidth.follow(known ? this.data.job : '', what === 'ranks' || what === 'findings');
    if (what === 'jobs' && this.data.job && this.wantedRank >= 0 && this.selectedRank !== this.wantedRank) {
      this.invalidate('select');
    }
    this.invalidate(what);
  }

  // Everything that changed in one frame is drawn once.
  invalidate(what) {
    this.dirty.add(what);
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      const dirty = this.dirty;
      this.dirty = new Set();
      this.render(dirty);
    });
  }

  render(dirty) {
    const started = performance.now();
    this.renderPanels(dirty);
    this.lastRenderMs = performance.now() - started;  // read by bench/web/live_render.mjs
  }

  renderPanels(dirty) {
    const data = this.data;
    if (dirty.has('jobs')) this.jobs.render(data.jobs, data.job);
    const finding = data.findings.find((f) => f.id === this.selectedFinding);
    if (!finding && this.selectedFinding) this.selectedFinding = '';
    if (dirty.has('ranks') || dirty.has('jobs') || dirty.has('filters') || dirty.has('findings')) {
      // A rank of the deep link, once its job is loaded.
      if (this.wantedRank >= 0 && !data.loading && data.size > this.wantedRank
          && this.selectedRank !== this.wantedRank) {
        const rank = this.wantedRank;
        this.wantedRank = -1;
        this.selectedRank = rank;
        this.grid.select(rank, {announce: false});
        this.rankPanel.fetch(data.job, rank, data.rankKinds.get(rank) || [], data.origin, data.horizon,
          data.row(rank));
      }
      this.filters.setHosts(data.hosts(naturalCompare));
      this.hang = data.hang;
      this.rootCause = [];
      for (const [rank, position] of data.positions) if (position.root_cause === true) this.rootCause.push(rank);
      this.rootCause.sort((a, b) => a - b);
      let dropped = this.filters.setPlaces(this.hang, this.rootCause);  // the job has no such place any more
      if (this.takeWantedPlace()) dropped = true;
      // Read once a render: matches() runs for every rank of the list and every cell of the grid.
      this.chosen = {state: this.filters.stateFilter, host: this.filters.hostFilter, place: this.filters.placeFilter};
      this.chosenPlace = this.placeNamed(this.chosen.place);
      const layout = liveLayout({world: data.world, topology: data.summary?.topology || null,
        gpusPerNode: data.gpusPerNode()}, 1.6);
      const key = layout ? `${layout.world}/${layout.columns}/${layout.rows}/${layout.blocks}/${data.gpusPerNode()}` : '';
      if (key !== this.layoutKey) {
        this.layoutKey = key;
        this.grid.setLayout(layout);
      }
      this.finding = finding || null;
      this.filtering = this.filters.active;
      // The cells follow states, filters and findings; a jobs re-read alone (once a second while changes
      // come) repaints none of the 16,384 (a new topology comes through setLayout).
      if (dropped || dirty.has('ranks') || dirty.has('filters') || dirty.has('findings')) {
        this.grid.setOutlined(finding ? finding.ranks : []);
        this.grid.invalidate();
      }
      this.progress.render(data);
      this.legend.render(this.hang, this.rootCause, this.filters.placeFilter);
      const filtering = this.filtering;
      this.filters.render(filtering || !!this.selectedFinding, layout ? layout.axes : '');
      const ranks = [];
      const present = data.present;
      for (let r = 0; r < data.size; ++r) if (present[r] && this.matches(r)) ranks.push(r);
      this.rankList.box.classList.toggle('post-mortem', !!this.hang);  // longer words in the state column
      this.rankList.setRanks(ranks);
      setText(this.ranksHeading, rankListHeader(ranks.length, data.world, filtering));
      this.findings.render(data.findings, this.selectedFinding, !!data.job);
      this.placeholder.hidden = data.world > 0;
      setText(this.placeholder, data.job ? `Waiting for ${data.job} to report …`
        : `Waiting for a job to report to ${location.host} …`);
      this.renderRankPanel(false);
    }
    this.renderStatus();
  }

  matches(rank) {
    const {state, host, place} = this.chosen;
    if (state >= 0 && this.data.states[rank] !== state) return false;
    if (host && this.data.host(rank) !== host) return false;
    if (place) {
      const position = this.data.position(rank);
      if (place === rootCauseChoice) return position?.root_cause === true;
      return !!this.chosenPlace && standsIn(position, this.chosenPlace);
    }
    return true;
  }

  // The place of the job's hang whose text is `text` (the place filter's choice), else null.
  placeNamed(text) {
    if (!text || !this.hang) return null;
    return this.hang.places.find((p) => p && typeof p === 'object' && p.text === text) || null;
  }

  // A cell's fill: where it stands in a hang (core's standing_colour) when it has a position, else its state's
  // colour; faded when filtered out (0.18) or outside the selected finding (0.35).
  fill(rank) {
    const position = this.data.positions.size ? this.data.position(rank) : undefined;
    const standing = position ? this.colours.standing(standingVariable(position.standing, position.dim)) : null;
    const state = this.data.states[rank];
    if (this.filtering && !this.matches(rank)) return standing ? standing.filterFaded : this.colours.filterFaded[state];
    if (this.finding && !this.highlightSet(this.finding).has(rank)) {
      return standing ? standing.highlightFaded : this.colours.highlightFaded[state];
    }
    return standing ? standing.full : this.colours.states[state];
  }

  // Where a rank stands, in the collector's words: the text of the place it stands in ("waiting in ep seq 2
  // (all_to_all)"), else its standing; '' without a position.
  standingText(rank) {
    const position = this.data.position(rank);
    if (!position) return '';
    const place = this.hang?.places.find((p) => p && typeof p === 'object' && standsIn(position, p));
    return typeof place?.text === 'string' ? place.text : String(position.standing ?? '').replaceAll('_', ' ');
  }

  highlightSet(finding) {
    if (this.highlightFor !== finding) {
      this.highlightFor = finding;
      this.highlight = new Set(finding.ranks);
    }
    return this.highlight;
  }

  // The rank list's columns: state, host, findings (each column holds one kind of fact).
  // For a post-mortem, where the rank stands in place of its state.
  rankRow(rank) {
    const kinds = this.data.rankKinds.get(rank);
    return {state: this.standingText(rank) || stateNames[this.data.states[rank]], host: this.data.host(rank) || '',
      findings: kinds ? kinds.join(', ') : '', alert: !!kinds};
  }

  // "rank 5 · ready · node-0 · communicator · straggler" (the desktop grid's hover text).
  hoverText(rank) {
    const parts = [`rank ${rank}`, this.standingText(rank) || stateNames[this.data.states[rank]]];
    const position = this.data.position(rank);
    if (position?.label) parts.push(String(position.label));
    if (position?.root_cause === true) parts.push('root cause');
    const host = this.data.host(rank);
    const phase = this.data.phase(rank);
    if (host) parts.push(host);
    if (phase) parts.push(phase);
    const kinds = this.data.rankKinds.get(rank);
    if (kinds) parts.push(kinds.join(', '));
    return parts.join(' · ');
  }

  renderStatus() {
    let text;
    let error = false;
    if (this.hovered >= 0) {
      const what = this.data.position(this.hovered) ? 'where it stands' : 'its timeline';
      text = `${this.hoverText(this.hovered)} — click for ${what}`;
    } else if (this.data.error) {
      text = this.data.error;
      error = true;
    } else if (this.missingPlace) {
      const places = this.filters.places.length ? `; its places are ${this.filters.places.map((p) => `"${p}"`).join(', ')}`
        : '';
      text = `The link's place "${this.missingPlace}" is not a place of ${this.data.job}'s hang${places}`;
      error = true;
    } else if (this.ctx.stream.state === 'live') text = `Live from ${location.host}`;
    else if (this.ctx.stream.state === 'down') {
      text = `Reconnecting to ${location.host} …`;
      error = true;
    } else text = `Connecting to ${location.host} …`;
    setText(this.status, text);
    this.status.title = text;  // the line is cut to the width; the whole sentence on hover
    this.status.classList.toggle('error', error);
  }

  renderRankPanel(fetch) {
    const data = this.data;
    const rank = this.selectedRank;
    const row = data.row(rank);
    this.rankPanel.show(data.job, rank, row, data.rankKinds.get(rank) || [], data.origin, data.horizon);
    if (rank >= 0 && fetch) {
      this.rankPanel.fetch(data.job, rank, data.rankKinds.get(rank) || [], data.origin, data.horizon, row);
    }
  }
}

export function mount(root, ctx) {
  page = new LivePage(root, ctx);
  window.meshscopeLive = page;  // for the browser tests and the benchmark: the page's state, read-only use
}

export function update(params) {
  page?.update(params);
}

export function unmount() {
  page?.destroy();
  page = null;
  window.meshscopeLive = null;
}
