// The ranks that pass the filters as a list: the accessible equivalent of the grid's canvas. A listbox with
// one option per rank, drawn virtually (only the rows in view exist; a job has up to 16,384 ranks), moved by
// the keyboard with aria-activedescendant: arrows, Page Up/Down, Home/End; Enter opens the rank.
import {el} from '../shared/dom.js';

const rowHeight = 24;

export class RankList {
  // row(rank) -> {state, host, findings, alert}: texts for the option's columns; onOpen(rank)
  constructor(host, {labelledBy, row, onOpen}) {
    this.row = row;
    this.onOpen = onOpen;
    this.ranks = [];
    this.active = -1;   // index into ranks
    this.box = el('div', {class: 'rank-list', role: 'listbox', tabindex: '0', 'aria-labelledby': labelledBy});
    this.spacer = el('div', {class: 'rank-list-spacer', role: 'none'});
    this.box.append(this.spacer);
    host.append(this.box);
    this.box.addEventListener('scroll', () => this.render());
    this.box.addEventListener('keydown', (e) => this.key(e));
    this.box.addEventListener('click', (e) => {
      const option = e.target.closest('[role="option"]');
      if (!option) return;
      const rank = Number(option.dataset.rank);
      this.setActiveRank(rank);
      this.onOpen(rank);
    });
    new ResizeObserver(() => this.render()).observe(this.box);
  }

  // ranks: the rank numbers to list, in order.
  setRanks(ranks) {
    const activeRank = this.ranks[this.active];
    this.ranks = ranks;
    this.active = activeRank === undefined ? -1 : ranks.indexOf(activeRank);
    this.spacer.style.height = `${ranks.length * rowHeight}px`;
    this.render();
  }

  setActiveRank(rank) {
    const index = this.ranks.indexOf(rank);
    this.active = index;
    if (index >= 0) this.scrollTo(index);
    this.render();
  }

  scrollTo(index) {
    const top = index * rowHeight;
    if (top < this.box.scrollTop) this.box.scrollTop = top;
    else if (top + rowHeight > this.box.scrollTop + this.box.clientHeight) {
      this.box.scrollTop = top + rowHeight - this.box.clientHeight;
    }
  }

  key(event) {
    const n = this.ranks.length;
    if (!n) return;
    const page = Math.max(1, Math.floor(this.box.clientHeight / rowHeight) - 1);
    const moves = {ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page};
    let next;
    if (event.key in moves) next = this.active < 0 ? 0 : this.active + moves[event.key];
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = n - 1;
    else if ((event.key === 'Enter' || event.key === ' ') && this.active >= 0) {
      event.preventDefault();
      this.onOpen(this.ranks[this.active]);
      return;
    } else return;
    event.preventDefault();
    this.active = Math.max(0, Math.min(n - 1, next));
    this.scrollTo(this.active);
    this.render();
  }

  // The rows in view (plus a few), rebuilt from the data: cheap at any list length.
  render() {
    const n = this.ranks.length;
    const first = Math.max(0, Math.floor(this.box.scrollTop / rowHeight) - 4);
    const last = Math.min(n, Math.ceil((this.box.scrollTop + this.box.clientHeight) / rowHeight) + 4);
    const rows = [];
    for (let i = first; i < last; ++i) {
      const rank = this.ranks[i];
      const info = this.row(rank);
      const option = el('div', {
        class: info.alert ? 'rank-option alert' : 'rank-option',
        role: 'option',
        id: `rank-option-${rank}`,
        'aria-selected': i === this.active ? 'true' : 'false',
        'aria-setsize': n,
        'aria-posinset': i + 1,
        'data-rank': rank,
      }, el('span', {class: 'rank-number'}, String(rank)), el('span', {class: 'rank-state'}, info.state),
      el('span', {class: 'rank-host'}, info.host), el('span', {class: 'rank-findings'}, info.findings));
      option.style.top = `${i * rowHeight}px`;
      rows.push(option);
    }
    this.spacer.replaceChildren(...rows);
    if (this.active >= first && this.active < last) {
      this.box.setAttribute('aria-activedescendant', `rank-option-${this.ranks[this.active]}`);
    } else {
      this.box.removeAttribute('aria-activedescendant');
    }
  }
}

export function rankListHeader(filtered, total, active) {
  return active ? `Ranks (${filtered} of ${total} match)` : `Ranks (${total})`;
}

