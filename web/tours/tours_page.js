// The Tours page (#/tours): every shipped tour (GET /api/v1/tours) with "Start" or "Resume at step K" (the
// progress this browser remembers) and, once begun, "Start over". A tour then runs over the real pages
// (tour_runner.js). Contract (web/app.js): mount(root, ctx), unmount(); ctx.tours is the runner.
import {el, replaceChildren, setText} from '../shared/dom.js';
import {ensureStylesheet} from '../shared/stylesheet.js';
import {progressOf} from './tour_progress.js';

let page = null;

class ToursPage {
  constructor(root, ctx) {
    this.ctx = ctx;
    ensureStylesheet(new URL('./tours.css', import.meta.url));
    this.status = el('p', {class: 'muted', role: 'status'}, 'Loading the tours …');
    this.list = el('ul', {class: 'tour-list', 'aria-labelledby': 'tours-heading'});
    this.root = el('div', {class: 'tours-page'},
      el('h1', {id: 'tours-heading'}, 'Tours'),
      el('p', {class: 'tours-intro'},
        'Each tour drives the real Planner, Live page, sandbox and peers view: read a step, do its task on the ' +
        'page, and MeshScope\'s core checks your answer. Leave a tour at any step; it resumes where you left it.'),
      this.status, this.list);
    root.append(this.root);
    this.load();
  }

  async load() {
    try {
      const body = await this.ctx.api.get('/api/v1/tours');
      this.tours = body.tours;
      this.render();
      setText(this.status, '');
      this.status.hidden = true;
    } catch (error) {
      setText(this.status, `The tours could not be loaded: ${error.message}`);
      this.status.classList.add('error');
    }
  }

  render() {
    if (!this.tours) return;
    replaceChildren(this.list, ...this.tours.map((tour) => this.item(tour)));
  }

  item(tour) {
    const progress = progressOf(tour.name);
    const headingId = `tour-${tour.name}-title`;
    const resumable = progress.reached >= 1 && !progress.finished;
    const start = el('button', {type: 'button', class: 'tour-start', 'data-tour': tour.name,
      'aria-describedby': headingId},
    resumable ? `Resume at step ${progress.reached}` : 'Start');
    // A finished tour starts afresh; an unfinished one resumes where it was left.
    start.addEventListener('click', () => this.ctx.tours.start(tour.name, resumable ? progress.reached : 1,
      {restart: !resumable}));
    const again = progress.reached >= 1 ? el('button', {type: 'button', class: 'tour-restart',
      'aria-describedby': headingId}, 'Start over') : null;
    again?.addEventListener('click', () => this.ctx.tours.start(tour.name, 1, {restart: true}));
    const state = progress.finished ? 'finished' : resumable ? `step ${progress.reached} of ${tour.steps} reached`
      : 'not started';
    return el('li', {class: 'tour-item', 'data-tour': tour.name},
      el('h2', {id: headingId}, tour.title),
      el('p', {class: 'tour-summary'}, tour.summary),
      el('p', {class: 'tour-meta muted'}, `${tour.steps} steps · ${state}`),
      el('div', {class: 'tour-buttons'}, start, again));
  }
}

export function mount(root, ctx) {
  unmount();
  page = new ToursPage(root, ctx);
  // The runner finished or left a tour while this page is shown: its buttons follow.
  page.onProgress = () => page?.render();
  window.addEventListener('meshscope-tour-progress', page.onProgress);
}

export function unmount() {
  if (page) {
    window.removeEventListener('meshscope-tour-progress', page.onProgress);
    page.root.remove();
  }
  page = null;
}
