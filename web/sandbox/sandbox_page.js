// The sandbox page (#/sandbox): one simulated training process holding FSDPTurbo's parallel state, run on
// core's ParallelState through the collector (POST /api/v1/sandbox; never a JavaScript copy, docs/tours.md).
// The learner calls initialize(dp, cp, ep), reset (MeshScope's teardown, which FSDPTurbo lacks) or relaunch
// (a new process); the page keeps the call history and shows core's outcome of each call, errors verbatim.
// Contract (web/app.js): mount(root, ctx), unmount().
import {el, replaceChildren, setText} from '../shared/dom.js';
import {announceSandbox} from '../shared/learner.js';
import {ensureStylesheet} from '../shared/stylesheet.js';
import {sandboxCalls, setSandboxCalls} from './sandbox_history.js';

let page = null;

// A fresh process (a tour step's "fresh": true): no calls yet.
export function freshSandbox() {
  setSandboxCalls([]);
  page?.replay();
}

function callText(call) {
  return call.op === 'initialize' ? `initialize(dp=${call.dp}, cp=${call.cp}, ep=${call.ep})` : `${call.op}()`;
}

function stateText(state) {
  if (!state) return 'not initialized';
  return `initialized: (dp, cp, ep) = (${state.dp}, ${state.cp}, ${state.ep}) · efsdp ${state.efsdp} · edp ${state.edp}`;
}

function outcomeText(result) {
  if (result.outcome === 'error' && result.error) return `${result.error.type}: ${result.error.message}`;
  return result.outcome;
}

// The typed value as sent: an integer when it is one, else the text (core's message names what is wrong).
function typed(text) {
  const value = text.trim();
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

class SandboxPage {
  constructor(root, ctx) {
    this.api = ctx.api;
    this.seq = 0;
    ensureStylesheet(new URL('./sandbox.css', import.meta.url));
    const defaults = {dp: 16, cp: 1, ep: 2};
    this.inputs = {};
    const fields = [];
    for (const name of ['dp', 'cp', 'ep']) {
      const id = `sandbox-${name}`;
      const input = el('input', {id, type: 'text', inputmode: 'numeric', autocomplete: 'off', spellcheck: 'false',
        value: String(defaults[name])});
      this.inputs[name] = input;
      fields.push(el('div', {class: 'sandbox-field'}, el('label', {for: id}, name), input));
    }
    const button = (label, cls, description, action) => {
      const b = el('button', {type: 'button', class: `sandbox-call ${cls}`, 'aria-describedby': `${cls}-help`}, label);
      b.addEventListener('click', action);
      return [b, el('p', {id: `${cls}-help`, class: 'sandbox-help muted'}, description)];
    };
    const [initialize, initializeHelp] = button('initialize(dp, cp, ep)', 'sandbox-initialize',
      'FSDPTurbo\'s ParallelState.initialize with these sizes, in this process.',
      () => this.call({op: 'initialize', dp: typed(this.inputs.dp.value), cp: typed(this.inputs.cp.value),
        ep: typed(this.inputs.ep.value)}));
    const [reset, resetHelp] = button('reset()', 'sandbox-reset',
      'MeshScope\'s teardown of the parallel state (FSDPTurbo has none).', () => this.call({op: 'reset'}));
    const [relaunch, relaunchHelp] = button('relaunch', 'sandbox-relaunch',
      'End this process and start a new one (torchrun again).', () => this.call({op: 'relaunch'}));
    const clear = el('button', {type: 'button', class: 'sandbox-clear'}, 'Clear the history');
    clear.addEventListener('click', () => freshSandbox());

    this.state = el('p', {class: 'sandbox-state', id: 'sandbox-state-text'});
    this.last = el('p', {class: 'sandbox-last', role: 'status', 'aria-live': 'polite'});
    this.history = el('ol', {class: 'sandbox-history', 'aria-labelledby': 'sandbox-history-heading'});
    this.error = el('p', {class: 'sandbox-error error', role: 'alert', hidden: true});
    this.root = el('div', {class: 'sandbox-page'},
      el('h1', {}, 'Sandbox: FSDPTurbo\'s parallel state'),
      el('p', {class: 'sandbox-intro'},
        'One simulated training process. Its parallel state is a process-wide singleton: initialized once, ' +
        'it refuses a different topology until the process restarts or the state is reset. Every call runs ' +
        'on MeshScope\'s core, through the collector.'),
      el('div', {class: 'sandbox-columns'},
        el('section', {class: 'sandbox-panel', 'aria-labelledby': 'sandbox-calls-heading',
          'data-anchor': 'sandbox.calls'},
        el('h2', {id: 'sandbox-calls-heading'}, 'Calls'),
        el('form', {class: 'sandbox-form', 'aria-label': 'initialize'}, el('div', {class: 'sandbox-fields'}, ...fields),
          initialize, initializeHelp),
        reset, resetHelp, relaunch, relaunchHelp, clear),
        el('section', {class: 'sandbox-panel', 'aria-labelledby': 'sandbox-state-heading',
          'data-anchor': 'sandbox.state'},
        el('h2', {id: 'sandbox-state-heading'}, 'State'),
        this.state, this.last, this.error,
        el('h3', {id: 'sandbox-history-heading'}, 'Calls so far'), this.history)));
    this.root.querySelector('form').addEventListener('submit', (event) => event.preventDefault());
    root.append(this.root);
    this.replay();
  }

  destroy() {
    ++this.seq;
    this.root.remove();
  }

  async call(call) {
    const calls = [...sandboxCalls(), call];
    const results = await this.post(calls);
    if (!results) return;  // refused: the call is not kept
    setSandboxCalls(calls);
    this.render(calls, results);
    announceSandbox(calls);
  }

  // Core replays the history on a fresh state; null (and the error shown) when it refuses the history.
  async post(calls) {
    const seq = ++this.seq;
    try {
      const body = await this.api.post('/api/v1/sandbox', {calls});
      if (seq !== this.seq) return null;
      this.error.hidden = true;
      return body.results;
    } catch (error) {
      if (seq !== this.seq) return null;
      setText(this.error, error.message);
      this.error.hidden = false;
      return null;
    }
  }

  async replay() {
    const calls = sandboxCalls();
    if (calls.length === 0) {
      ++this.seq;
      this.render([], []);
      return;
    }
    const results = await this.post(calls);
    if (results) this.render(calls, results);
  }

  render(calls, results) {
    const last = results[results.length - 1];
    setText(this.state, `State: ${stateText(last ? last.state : null)}`);
    setText(this.last, last ? `Last call: ${callText(calls[calls.length - 1])} → ${outcomeText(last)}` : 'No calls yet.');
    this.last.dataset.outcome = last ? last.outcome : '';
    replaceChildren(this.history, ...calls.map((call, i) => {
      const result = results[i];
      return el('li', {class: 'sandbox-entry', 'data-outcome': result.outcome},
        el('code', {class: 'sandbox-entry-call'}, callText(call)),
        el('span', {class: 'sandbox-entry-outcome'}, outcomeText(result)));
    }));
  }
}

export function mount(root, ctx) {
  unmount();
  page = new SandboxPage(root, ctx);
}

export function unmount() {
  page?.destroy();
  page = null;
}
