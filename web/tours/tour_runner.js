// The tour runner: one tour at a time, over the real pages (docs/tours.md). Opening step K asks the collector
// for the step as core resolved it (GET /api/v1/tours/NAME/steps/K), routes to its page with its values
// (#/plan?..., #/live/tour-NAME after starting the tour's job, #/sandbox, #/peers?...), highlights the part of
// the screen the step names (the element with its data-anchor) and shows its text, as text. A task's answer
// comes from the page (a rank chosen, the Planner's layout, the sandbox history) or the panel, goes to core
// (POST .../steps/K/check) and core's message is shown; Next opens once core said right. Progress is
// remembered per tour (tour_progress.js); the panel docks on the right so it covers nothing it points at.
import {el, replaceChildren, setText} from '../shared/dom.js';
import {onRank, onSandbox} from '../shared/learner.js';
import {ensureStylesheet} from '../shared/stylesheet.js';
import {sandboxCalls} from '../sandbox/sandbox_history.js';
import {AnswerControl, answerKind} from './tour_answer.js';
import {activeTour, forget, markFinished, markReached, progressOf, setActiveTour} from './tour_progress.js';

const anchorWaitMs = 8000;

function path(name, ...rest) {
  return ['/api/v1/tours', encodeURIComponent(name), ...rest].join('/');
}

// "#/plan?dp=8&cp=2..." from core's resolved planner state.
function plannerHash(p) {
  const query = new URLSearchParams();
  for (const key of ['dp', 'world', 'cp', 'ep', 'gpus_per_node', 'order', 'mesh', 'rank']) {
    if (p[key] !== undefined && p[key] !== null) query.set(key, String(p[key]));
  }
  return `#/plan?${query}`;
}

function peersHash(p) {
  const query = new URLSearchParams();
  for (const key of ['world', 'cp', 'ep', 'gpus_per_node', 'rank']) {
    if (p[key] !== undefined && p[key] !== null) query.set(key, String(p[key]));
  }
  return `#/peers?${query}`;
}

// Paragraphs separated by a blank line; never HTML.
function paragraphs(text) {
  return String(text || '').split(/\n\s*\n/).filter((p) => p.trim() !== '')
    .map((p) => el('p', {class: 'tour-text'}, p.trim()));
}

export class TourRunner {
  // api: the shell's ({get, post}); navigate(hash); routed() -> Promise once the route has mounted.
  constructor({api, navigate, routed}) {
    this.api = api;
    this.navigate = navigate;
    this.routed = routed;
    this.tours = new Map();  // name -> the tour file
    this.tour = null;
    this.k = 0;
    this.seq = 0;            // the step being opened; older answers and routes are dropped
    this.solved = new Set();
    this.highlighted = null;
    ensureStylesheet(new URL('./tours.css', import.meta.url));
    this.panel = el('aside', {id: 'tour-panel', class: 'tour-panel', 'aria-labelledby': 'tour-step-title',
      hidden: true});
    document.body.append(this.panel);
    this.stopRank = onRank(({page, rank}) => this.pageRank(page, rank));
    this.stopSandbox = onSandbox(({calls}) => this.sandboxCalls(calls));
  }

  // The tour this tab had open before a reload.
  restore() {
    const active = activeTour();
    if (active) this.start(active.name, active.step);
  }

  // restart: forget the progress first (Start over, or a finished tour started again).
  async start(name, k = 1, {restart = false} = {}) {
    const seq = ++this.seq;
    if (restart) forget(name);
    let tour = this.tours.get(name);
    if (!tour) {
      try {
        tour = await this.api.get(path(name));
      } catch (error) {
        if (seq !== this.seq) return;
        this.showProblem(`The tour "${name}" could not be loaded: ${error.message}`);
        return;
      }
      this.tours.set(name, tour);
    }
    if (seq !== this.seq) return;
    this.tour = tour;
    // Steps before the one reached were solved on the way there.
    this.solved = new Set();
    const reached = progressOf(name).reached;
    for (let i = 1; i < reached; ++i) this.solved.add(i);
    await this.open(Math.min(Math.max(1, k), tour.steps.length));
  }

  get step() {
    return this.tour ? this.tour.steps[this.k - 1] : null;
  }

  async open(k) {
    const seq = ++this.seq;
    this.k = k;
    const tour = this.tour;
    setActiveTour({name: tour.name, step: k});
    markReached(tour.name, k);
    window.dispatchEvent(new Event('meshscope-tour-progress'));
    this.verdict = null;
    let resolved = null;
    let problem = '';
    try {
      resolved = await this.api.get(path(tour.name, 'steps', k));
    } catch (error) {
      problem = `Step ${k} could not be set up: ${error.message}`;
    }
    if (seq !== this.seq) return;
    this.resolved = resolved;
    this.render(problem);
    if (resolved) await this.showPage(seq);
  }

  // Routes to the step's page with its values, then highlights its anchor.
  async showPage(seq = this.seq) {
    const step = this.step;
    const r = this.resolved;
    const view = step.view || {};
    let hash = '';
    if (r.page === 'planner') {
      hash = plannerHash(r.planner);
    } else if (r.page === 'peers') {
      hash = peersHash(r.peers);
    } else if (r.page === 'sandbox') {
      if (view.fresh === true) (await import('../sandbox/sandbox_page.js')).freshSandbox();
      hash = '#/sandbox';
    } else if (r.page === 'live') {
      let job = r.job ? r.job.job : '';
      if (view.simulate || view.records) {  // a simulated job, or a shipped job's records imported
        try {
          job = (await this.api.post(path(this.tour.name, 'job'), {step: this.k})).job;
        } catch (error) {
          if (seq === this.seq) this.setVerdict(`The tour's job could not be started: ${error.message}`, 'error');
          return;
        }
      }
      hash = job ? `#/live/${encodeURIComponent(job)}` : '#/live';
    }
    if (seq !== this.seq) return;
    await (hash && location.hash !== hash ? this.navigate(hash) : this.routed());
    if (seq !== this.seq) return;
    this.highlight(step.anchor || '', seq);
  }

  highlight(anchor, seq) {
    this.unhighlight();
    if (!anchor) return;
    const until = performance.now() + anchorWaitMs;
    const find = () => {
      if (seq !== this.seq) return;
      const node = document.querySelector(`[data-anchor="${CSS.escape(anchor)}"]`);
      if (node && !node.closest('[hidden]')) {
        node.classList.add('tour-highlight');
        node.setAttribute('data-tour-highlight', 'true');
        node.scrollIntoView({block: 'nearest', inline: 'nearest'});
        this.highlighted = node;
      } else if (performance.now() < until) {
        requestAnimationFrame(find);
      }
    };
    find();
  }

  unhighlight() {
    for (const node of document.querySelectorAll('.tour-highlight')) {
      node.classList.remove('tour-highlight');
      node.removeAttribute('data-tour-highlight');
    }
    this.highlighted = null;
  }

  render(problem = '') {
    const tour = this.tour;
    const step = this.step;
    const n = tour.steps.length;
    const k = this.k;
    document.body.classList.add('touring');
    this.panel.hidden = false;
    this.title = el('h2', {id: 'tour-step-title', class: 'tour-step-title', tabindex: '-1'}, step.title);
    const parts = [
      el('p', {class: 'tour-name muted'}, tour.title),
      el('p', {class: 'tour-count', 'data-step': String(k)}, `Step ${k} of ${n}`),
      this.title,
      ...paragraphs(step.text),
    ];
    const finding = this.resolved?.finding;
    if (finding) {
      parts.push(el('figure', {class: 'tour-finding'},
        el('figcaption', {}, `Finding ${finding.kind}`),
        el('p', {class: 'tour-finding-message'}, finding.message),
        finding.fix ? el('p', {class: 'tour-finding-fix muted'}, finding.fix) : null));
    }
    if (problem) parts.push(el('p', {class: 'tour-problem error', role: 'alert'}, problem));
    this.answer = null;
    this.verdictText = el('p', {id: 'tour-verdict', class: 'tour-verdict', role: 'status', 'aria-live': 'polite'});
    this.hintText = el('p', {class: 'tour-hint', hidden: true});
    if (step.task) {
      this.answer = new AnswerControl(step.task, {
        onCheck: (answer) => this.check(answer),
        readLayout: () => this.readLayout(),
        readSandbox: () => this.readSandbox(),
      });
      parts.push(el('section', {class: 'tour-task', 'aria-labelledby': 'tour-task-heading'},
        el('h3', {id: 'tour-task-heading'}, 'Your task'),
        el('p', {id: 'tour-prompt', class: 'tour-prompt'}, step.task.prompt),
        this.answer.root, this.verdictText, this.hintText));
      if (this.solved.has(k)) this.setVerdict('You solved this step already.', 'right');
    }
    this.back = el('button', {type: 'button', class: 'tour-back'}, 'Back');
    this.back.disabled = k <= 1;
    this.back.addEventListener('click', () => this.open(k - 1));
    this.next = el('button', {type: 'button', class: 'tour-next'}, k < n ? 'Next' : 'Finish');
    this.next.addEventListener('click', () => this.forward());
    const leave = el('button', {type: 'button', class: 'tour-leave'}, 'Leave tour');
    leave.addEventListener('click', () => this.leave());
    const again = el('button', {type: 'button', class: 'tour-again'}, 'Show the step\'s page');
    again.addEventListener('click', () => {
      if (this.resolved) this.showPage();
    });
    this.updateNext();
    parts.push(el('div', {class: 'tour-buttons', role: 'group', 'aria-label': 'Tour steps'},
      this.back, this.next, leave), el('div', {class: 'tour-buttons'}, again));
    replaceChildren(this.panel, ...parts);
    this.title.focus({preventScroll: true});
  }

  updateNext() {
    const open = !this.step.task || this.solved.has(this.k);
    this.next.disabled = !open;
    if (open) this.next.removeAttribute('aria-describedby');
    else this.next.setAttribute('aria-describedby', 'tour-prompt');
  }

  forward() {
    if (this.k < this.tour.steps.length) {
      this.open(this.k + 1);
      return;
    }
    markFinished(this.tour.name, this.tour.steps.length);
    this.leave();
    this.navigate('#/tours');
  }

  leave() {
    ++this.seq;
    setActiveTour(null);
    this.unhighlight();
    this.tour = null;
    this.panel.hidden = true;
    replaceChildren(this.panel);
    document.body.classList.remove('touring');
    window.dispatchEvent(new Event('meshscope-tour-progress'));
  }

  showProblem(text) {
    document.body.classList.add('touring');
    this.panel.hidden = false;
    const close = el('button', {type: 'button', class: 'tour-leave'}, 'Close');
    close.addEventListener('click', () => this.leave());
    replaceChildren(this.panel, el('h2', {id: 'tour-step-title', class: 'tour-step-title'}, 'Tour'),
      el('p', {class: 'tour-problem error', role: 'alert'}, text), close);
  }

  setVerdict(text, how) {
    setText(this.verdictText, text);
    this.verdictText.dataset.verdict = how;
  }

  async check(answer) {
    const tour = this.tour;
    const k = this.k;
    const seq = this.seq;
    const checkSeq = (this.checkSeq || 0) + 1;
    this.checkSeq = checkSeq;
    const body = {answer};
    if (this.resolved?.job) body.job = this.resolved.job.job;
    let verdict;
    try {
      verdict = await this.api.post(path(tour.name, 'steps', k, 'check'), body);
    } catch (error) {
      verdict = {correct: false, message: error.message, refused: true};
    }
    if (seq !== this.seq || checkSeq !== this.checkSeq) return;
    if (verdict.correct) {
      this.solved.add(k);
      this.setVerdict(verdict.message, 'right');
      this.hintText.hidden = true;
    } else {
      this.setVerdict(verdict.message, verdict.refused ? 'error' : 'wrong');
      const hint = this.step.task.hint;
      setText(this.hintText, hint ? `Hint: ${hint}` : '');
      this.hintText.hidden = !hint;
    }
    this.updateNext();
  }

  // A rank chosen on a page: the answer when the step asks for a rank on that page.
  pageRank(page, rank) {
    const step = this.step;
    if (!step?.task || !this.answer || answerKind(step.task.check) !== 'rank') return;
    if (this.resolved && this.resolved.page !== page) return;
    this.answer.takeRank(rank);
  }

  sandboxCalls(calls) {
    const step = this.step;
    if (!step?.task || answerKind(step.task.check) !== 'sandbox') return;
    this.check({calls});
  }

  readLayout() {
    const layout = window.meshscopePlanner?.layout();
    if (!layout) return {error: 'Open the Planner (Show the step\'s page) and set a valid layout there first.'};
    return {layout};
  }

  readSandbox() {
    return sandboxCalls();
  }
}
