// The Live page's smaller panels: the jobs, the progress by state and phase, the findings, the filters and
// the legend. Words are the desktop's (qml/live/*.qml); every collector string is set as text.
import {el, ranksText, replaceChildren, setText} from '../shared/dom.js';
import {phaseNames, stateNames} from './live_data.js';

function swatch(variable) {
  const s = el('span', {class: 'swatch', 'aria-hidden': 'true'});
  s.style.background = `var(${variable})`;
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
      const button = el('button', {type: 'button', class: 'job', 'data-job': j.job,
        'aria-current': j.job === current ? 'true' : null},
      el('span', {class: 'job-name'}, j.job),
      el('span', {class: 'job-ready'}, `${j.ranks_ready}/${j.world_size} ready`), findings);
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
    host.append(el('section', {class: 'panel progress-panel', 'aria-labelledby': 'progress-heading',
      'data-anchor': 'live.progress'},
      el('h2', {id: 'progress-heading'}, 'Progress'), this.topology, this.bar, this.text, this.states,
      el('h3', {id: 'phases-heading'}, 'Ranks by phase'), this.phases));
  }

  render(data) {
    const t = data.summary?.topology;
    setText(this.topology, t ? `dp ${t.dp} · cp ${t.cp} · ep ${t.ep} · world ${data.world}` : '');
    this.topology.hidden = !t;
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

export class Filters {
  constructor(host, {onChange}) {
    this.state = el('select', {id: 'state-filter'});
    this.state.append(el('option', {value: '-1'}, 'any state'),
      ...stateNames.map((name, i) => el('option', {value: String(i)}, name)));
    this.host = el('select', {id: 'host-filter'});
    this.clear = el('button', {type: 'button', id: 'clear-filters'}, 'Clear');
    this.axes = el('span', {class: 'axes muted'});
    host.append(el('div', {class: 'filter-bar', role: 'group', 'aria-label': 'Filters'},
      el('label', {for: 'state-filter'}, 'State'), this.state,
      el('label', {for: 'host-filter'}, 'Host'), this.host, this.clear, this.axes));
    this.hosts = [];
    this.state.addEventListener('change', () => onChange());
    this.host.addEventListener('change', () => onChange());
    this.clear.addEventListener('click', () => {
      this.state.value = '-1';
      this.host.value = '';
      onChange({clear: true});
    });
  }

  get stateFilter() {
    return Number(this.state.value);
  }

  get hostFilter() {
    return this.host.value;
  }

  setHosts(hosts) {
    if (hosts.length === this.hosts.length && hosts.every((h, i) => h === this.hosts[i])) return;
    const keep = this.host.value;
    this.hosts = hosts;
    replaceChildren(this.host, el('option', {value: ''}, 'any host'), ...hosts.map((h) => el('option', {value: h}, h)));
    this.host.value = hosts.includes(keep) ? keep : '';
  }

  render(active, axes) {
    this.clear.disabled = !active;
    setText(this.axes, axes);
  }
}

export function legend() {
  const items = stateNames.map((name) => el('li', {}, swatch(`--ms-state-${name}`), name));
  items.push(el('li', {}, el('span', {class: 'swatch mark-swatch', 'aria-hidden': 'true'}), 'named by a finding'));
  items.push(el('li', {}, el('span', {class: 'swatch outline-swatch', 'aria-hidden': 'true'}),
    'ranks of the selected finding'));
  return el('ul', {class: 'legend', 'aria-label': 'Legend'}, ...items);
}
