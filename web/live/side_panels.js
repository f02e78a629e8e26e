// The Live page's smaller panels: the jobs, the progress by state and phase, the findings, the filters and
// the legend. Words are the desktop's (ui/live/qml/*.qml); every collector string is set as text. A job with records
// is a post-mortem: its summary's "hang" takes the place of the start-up words (ready counts, states, phases):
// its sentence as the headline, its places as the legend, in the collector's words.
import {el, ranksText, replaceChildren, setText} from '../shared/dom.js';
import {hangOf, phaseNames, rootCauseChoice, stateNames} from './live_data.js';
import {standingVariable} from './live_grid.js';

function swatch(variable) {
  const s = el('span', {class: 'swatch', 'aria-hidden': 'true'});
  if (variable) s.style.background = `var(${variable})`;
  return s;
}

export class JobsList {
  constructor(host, {onOpen}) {
    this.empty = el('p', {class: 'muted'}, 'No job has reported yet.');
    this.list = el('ul', {class: 'job-list', 'aria-labelledby': 'jobs-heading'});
    host.append(el('section', {class: 'panel jobs-panel', 'aria-labelledby': 'jobs-heading'},
      el('h2', {id: 'jobs-heading'}, 'Jobs'), this.empty, this.list));
    this.list.addEventListener('click', (e) => {
      const button = e.target.closest('button[data-job]');
      if (button) onOpen(button.dataset.job);
    });
  }

  render(jobs, current) {
    this.empty.hidden = jobs.length > 0;
    replaceChildren(this.list, ...jobs.map((j) => {
      const findings = j.findings > 0 ? el('span', {class: 'job-findings'},
        j.findings === 1 ? '1 finding' : `${j.findings} findings`) : null;
      const hang = hangOf(j);
      const button = el('button', {type: 'button', class: 'job', 'data-job': j.job,
        'aria-current': j.job === current ? 'true' : null},
      el('span', {class: 'job-name'}, j.job),
      hang ? el('span', {class: 'job-hang', title: hang.text}, hang.text)
        : el('span', {class: 'job-ready'}, `${j.ranks_ready}/${j.world_size} ready`), findings);
      return el('li', {}, button);
    }));
  }
}

export class Progress {
  constructor(host) {
    this.topology = el('p', {class: 'muted'});
    this.bar = el('progress', {'aria-labelledby': 'progress-text', max: '1', value: '0'});
    this.text = el('p', {id: 'progress-text'});
    this.states = el('ul', {class: 'state-counts', 'aria-label': 'Ranks by state'});
    this.phases = el('table', {class: 'phase-histogram', 'aria-labelledby': 'phases-heading'});
    this.heading = el('h2', {id: 'progress-heading'}, 'Progress');
    this.phasesHeading = el('h3', {id: 'phases-heading'}, 'Ranks by phase');
    this.headline = el('p', {class: 'hang-headline', id: 'hang-headline', hidden: true});
    host.append(el('section', {class: 'panel progress-panel', 'aria-labelledby': 'progress-heading',
      'data-anchor': 'live.progress'},
      this.heading, this.topology, this.headline, this.bar, this.text, this.states, this.phasesHeading, this.phases));
  }

  render(data) {
    const t = data.summary?.topology;
    setText(this.topology, t ? `dp ${t.dp} · cp ${t.cp} · ep ${t.ep} · world ${data.world}` : '');
    this.topology.hidden = !t;
    // A post-mortem: the collector's sentence in place of the start-up counts.
    const hang = data.hang;
    setText(this.heading, hang ? 'Post-mortem' : 'Progress');
    setText(this.headline, hang ? hang.text : '');
    this.headline.hidden = !hang;
    for (const node of [this.bar, this.text, this.states, this.phasesHeading, this.phases]) node.hidden = !!hang;
    if (hang) return;
    const ready = data.counts[2];
    this.bar.max = Math.max(1, data.world);
    this.bar.value = ready;
    setText(this.text, data.world > 0 ? `${ready} / ${data.world} ready · ${data.seen()} seen` : 'no ranks yet');
    replaceChildren(this.states, ...stateNames.map((name, i) => (data.counts[i] > 0
      ? el('li', {}, swatch(`--ms-state-${name}`), `${data.counts[i]} ${name}`) : null)));
    const counts = data.phaseCounts();
    const max = Math.max(1, ...counts);
    const rows = counts.map((count, bucket) => {
      const label = bucket === 0 ? 'not seen' : phaseNames[bucket - 1].replace('_', ' ');
      const bar = el('span', {class: 'phase-bar'});
      bar.style.width = count > 0 ? `${Math.max(2, (100 * count) / max)}%` : '0';
      return el('tr', {class: count > 0 ? '' : 'zero'}, el('th', {scope: 'row'}, label),
        el('td', {class: 'phase-track'}, bar), el('td', {class: 'phase-count'}, String(count)));
    });
    replaceChildren(this.phases, el('tbody', {}, ...rows));
  }
}

export class FindingsList {
  constructor(host, {onToggle}) {
    this.heading = el('h2', {id: 'findings-heading'}, 'Findings (0)');
    this.empty = el('p', {class: 'muted'});
    this.list = el('ul', {class: 'finding-list', 'aria-labelledby': 'findings-heading'});
    host.append(el('section', {class: 'panel findings-panel', 'aria-labelledby': 'findings-heading',
      'data-anchor': 'live.findings'},
      this.heading, this.empty, this.list));
    this.list.addEventListener('click', (e) => {
      const button = e.target.closest('button[data-finding]');
      if (button) onToggle(button.dataset.finding);
    });
  }

  render(findings, selectedId, hasJob) {
    setText(this.heading, `Findings (${findings.length})`);
    this.empty.hidden = findings.length > 0;
    setText(this.empty, hasJob ? 'No findings: every rank agrees so far.' : 'No job selected.');
    // Rebuilt only when something changed: a finding's button keeps its focus across updates otherwise.
    const key = JSON.stringify([findings, selectedId]);
    if (key === this.key) return;
    this.key = key;
    const focused = document.activeElement?.closest?.('button[data-finding]')?.dataset.finding;
    replaceChildren(this.list, ...findings.map((f) => el('li', {},
      el('button', {type: 'button', class: 'finding', 'data-finding': f.id, 'data-kind': f.kind,
        'aria-pressed': f.id === selectedId ? 'true' : 'false'},
      el('span', {class: 'finding-head'}, el('span', {class: 'finding-kind'}, f.kind),
        el('span', {class: 'finding-ranks'}, `${f.ranks.length === 1 ? 'rank ' : 'ranks '}${ranksText(f.ranks)}`)),
      el('span', {class: 'finding-message'}, f.message),
      f.fix ? el('span', {class: 'finding-fix'}, `Fix: ${f.fix}`) : null,
      f.from ? el('span', {class: 'finding-from'}, f.from) : null))));
    if (focused !== undefined) {
      for (const b of this.list.querySelectorAll('button[data-finding]')) if (b.dataset.finding === focused) b.focus();
    }
  }
}

// The filters: a state, a host and, for a post-mortem, a place of its hang (a place's text of the summary, or
// "root cause"); '' or -1: any.
export class Filters {
  constructor(host, {onChange}) {
    this.state = el('select', {id: 'state-filter'});
    this.state.append(el('option', {value: '-1'}, 'any state'),
      ...stateNames.map((name, i) => el('option', {value: String(i)}, name)));
    this.host = el('select', {id: 'host-filter'});
    this.place = el('select', {id: 'place-filter'});
    this.placeLabel = el('label', {for: 'place-filter'}, 'Place');
    this.clear = el('button', {type: 'button', id: 'clear-filters'}, 'Clear');
    this.axes = el('span', {class: 'axes muted'});
    host.append(el('div', {class: 'filter-bar', role: 'group', 'aria-label': 'Filters'},
      el('label', {for: 'state-filter'}, 'State'), this.state,
      el('label', {for: 'host-filter'}, 'Host'), this.host, this.placeLabel, this.place, this.clear, this.axes));
    this.hosts = null;  // none yet: the first setHosts fills the list, "any host" at least
    this.places = null;
    this.setPlaces([]);
    this.state.addEventListener('change', () => onChange());
    this.host.addEventListener('change', () => onChange());
    this.place.addEventListener('change', () => onChange());
    this.clear.addEventListener('click', () => {
      this.state.value = '-1';
      this.host.value = '';
      this.place.value = '';
      onChange({clear: true});
    });
  }

  get stateFilter() {
    return Number(this.state.value);
  }

  get hostFilter() {
    return this.host.value;
  }

  get placeFilter() {
    return this.place.value;
  }

  get active() {
    return this.stateFilter >= 0 || this.hostFilter !== '' || this.placeFilter !== '';
  }

  // A click on a place (the legend): keep its ranks, or any place when it is the one kept. False: not a choice.
  togglePlace(choice) {
    if (!this.places.includes(choice)) return false;
    this.place.value = this.place.value === choice ? '' : choice;
    return true;
  }

  // A place chosen by name (a link's): false when the job has no such place.
  choosePlace(choice) {
    if (!this.places.includes(choice)) return false;
    this.place.value = choice;
    return true;
  }

  clearPlace() {
    this.place.value = '';
  }

  setHosts(hosts) {
    if (this.hosts && hosts.length === this.hosts.length && hosts.every((h, i) => h === this.hosts[i])) return;
    const keep = this.host.value;
    this.hosts = hosts;
    replaceChildren(this.host, el('option', {value: ''}, 'any host'), ...hosts.map((h) => el('option', {value: h}, h)));
    this.host.value = hosts.includes(keep) ? keep : '';
  }

  // The job's places (hang: its "hang" or null): their texts, then "root cause" when a rank is one. A choice the
  // new places lack is dropped (then true). Hidden for a job without a hang.
  setPlaces(hang, rootCause = []) {
    const choices = [];
    for (const place of hang?.places ?? []) if (typeof place?.text === 'string') choices.push(place.text);
    if (hang && rootCause.length) choices.push(rootCauseChoice);
    if (this.places && choices.length === this.places.length && choices.every((c, i) => c === this.places[i])) {
      return false;
    }
    const keep = this.place.value;
    this.places = choices;
    replaceChildren(this.place, el('option', {value: ''}, 'any place'), ...choices.map((c) => el('option', {value: c}, c)));
    this.place.value = choices.includes(keep) ? keep : '';
    this.place.hidden = this.placeLabel.hidden = choices.length === 0;
    return this.place.value !== keep;
  }

  render(active, axes) {
    this.clear.disabled = !active;
    setText(this.axes, axes);
  }
}

// The grid's legend: the states, or for a post-mortem the places ranks stand in (swatch, the collector's text,
// how many ranks) and the root cause's ring, each a toggle button: a click keeps that place's ranks (the place
// filter), a second click any place; then the finding marks.
export class Legend {
  constructor(host, {onPlace}) {
    this.list = el('ul', {class: 'legend', 'aria-label': 'Legend'});
    host.append(this.list);
    this.key = null;
    this.list.addEventListener('click', (e) => {
      const button = e.target.closest('button[data-place]');
      if (button) onPlace(button.dataset.place);
    });
    this.render(null, [], '');
  }

  // hang: the job's "hang" or null; rootCause: the ranks the positions mark as the root cause; chosen: the place
  // filter's choice ('' for any).
  render(hang, rootCause, chosen) {
    const key = JSON.stringify([hang, rootCause, chosen]);
    if (key === this.key) return;
    this.key = key;
    const focused = document.activeElement?.closest?.('button[data-place]')?.dataset.place;
    const items = [];
    if (hang) {
      for (const place of hang.places) {
        if (!place || typeof place !== 'object') continue;
        const text = String(place.text ?? '');
        items.push(el('li', {class: 'place', 'data-standing': String(place.standing ?? '')},
          el('button', {type: 'button', class: 'place-button', 'data-place': text,
            'aria-pressed': text === chosen ? 'true' : 'false'},
          swatch(standingVariable(place.standing, place.dim)),
          el('span', {class: 'place-text'}, text),
          ': ', el('span', {class: 'place-count'}, String(place.ranks ?? '')))));
      }
      if (rootCause.length) {
        items.push(el('li', {class: 'root-cause-key'},
          el('button', {type: 'button', class: 'place-button', 'data-place': rootCauseChoice,
            'aria-pressed': chosen === rootCauseChoice ? 'true' : 'false'},
          el('span', {class: 'swatch ring-swatch', 'aria-hidden': 'true'}),
          `root cause (${rootCause.length === 1 ? 'rank ' : 'ranks '}${ranksText(rootCause)})`)));
      }
    } else {
      items.push(...stateNames.map((name) => el('li', {}, swatch(`--ms-state-${name}`), name)));
    }
    items.push(el('li', {}, el('span', {class: 'swatch mark-swatch', 'aria-hidden': 'true'}), 'named by a finding'));
    items.push(el('li', {}, el('span', {class: 'swatch outline-swatch', 'aria-hidden': 'true'}),
      'ranks of the selected finding'));
    replaceChildren(this.list, ...items);
    if (focused !== undefined) {
      for (const b of this.list.querySelectorAll('button[data-place]')) if (b.dataset.place === focused) b.focus();
    }
  }
}
