// The Planner's inputs (world size, dp, cp, ep, LlamaFactory's model mesh, GPUs per node, group order) and the
// verdict on them: the
// core's exact message, the CLI's hint and the values that fix it as buttons. The page judges nothing itself;
// the collector's 400 says what is wrong and with which field.
import {clear, el, setText} from './planner_dom.js';

const fields = [
  {name: 'world', label: 'World size', help: 'ranks in the job; dp = world / cp'},
  {name: 'dp', label: 'dp (data)', help: 'data-parallel size; world = dp × cp'},
  {name: 'cp', label: 'cp (context)', help: 'context-parallel size'},
  {name: 'ep', label: 'ep (expert)', help: 'dist_config ep_size; must divide dp'},
  {name: 'mp_replicate', label: 'mp_replicate', help: "LlamaFactory's model mesh: replicas (default 1)"},
  {name: 'mp_shard', label: 'mp_shard', help: 'model mesh shard size; empty or 0: world / mp_replicate'},
  {name: 'gpus_per_node', label: 'GPUs per node', help: 'ranks fill nodes consecutively'},
];

// An input is described by its help line and, while it is the wrong one, by the message and the hint.
function describe(name, input, wrong) {
  const ids = [`planner-${name}-help`];
  if (wrong) ids.push('planner-error-message', 'planner-error-hint');
  input.setAttribute('aria-describedby', ids.join(' '));
}

export class PlanForm {
  // onChange(name): an input changed (name: the field); onSuggestion(field, value): a suggestion was chosen.
  constructor({onChange, onSuggestion}) {
    this.inputs = new Map();
    const controls = [];
    for (const field of fields) {
      const id = `planner-${field.name}`;
      const input = el('input', {id, name: field.name, type: 'text', inputmode: 'numeric', autocomplete: 'off',
        spellcheck: 'false', 'aria-describedby': `${id}-help`});
      input.addEventListener('input', () => onChange(field.name));
      this.inputs.set(field.name, input);
      controls.push(el('div', {class: 'planner-field'},
        el('label', {for: id}, field.label), input, el('span', {id: `${id}-help`, class: 'planner-help'}, field.help)));
    }
    const order = el('select', {id: 'planner-order', name: 'order', 'aria-describedby': 'planner-order-help'},
      el('option', {value: 'torch29'}, 'torch29 (≥ 2.9)'),
      el('option', {value: 'torch28'}, 'torch28 (≤ 2.8)'));
    order.addEventListener('change', () => onChange('order'));
    this.inputs.set('order', order);
    controls.push(el('div', {class: 'planner-field', 'data-anchor': 'planner.order'},
      el('label', {for: 'planner-order'}, 'Group order'), order,
      el('span', {id: 'planner-order-help', class: 'planner-help'},
        'PyTorch version: the order every rank creates the groups in')));

    this.message = el('p', {class: 'planner-error-message', id: 'planner-error-message'});
    this.hint = el('p', {class: 'planner-error-hint', id: 'planner-error-hint'});
    this.suggestionTitle = el('span', {class: 'planner-suggestion-title'});
    this.suggestions = el('div', {class: 'planner-suggestions', role: 'group', 'aria-label': 'Suggested values'});
    this.kept = el('p', {class: 'planner-kept'});
    this.errorPanel = el('div', {class: 'planner-error', role: 'alert', hidden: true},
      this.message, this.hint, el('div', {class: 'planner-suggestion-row'}, this.suggestionTitle, this.suggestions),
      this.kept);
    this.onSuggestion = onSuggestion;
    this.root = el('form', {class: 'planner-inputs', 'aria-label': 'Layout', 'data-anchor': 'planner.inputs'},
      el('h2', {class: 'planner-heading'}, 'Layout'), el('div', {class: 'planner-fields'}, ...controls), this.errorPanel);
    this.root.addEventListener('submit', (event) => event.preventDefault());
  }

  value(name) {
    return this.inputs.get(name).value.trim();
  }

  set(name, value) {
    const input = this.inputs.get(name);
    if (input && value !== undefined && value !== null) input.value = String(value);
  }

  // body: the API's 400 {error, hint, field, suggestions}; keptText: what the grid still shows.
  showError(body, keptText) {
    setText(this.message, body.error || 'The collector did not answer.');
    setText(this.hint, body.hint || '');
    this.hint.hidden = !body.hint;
    clear(this.suggestions);
    const suggestions = body.suggestions || {};
    const field = Object.keys(suggestions)[0];
    const values = field ? suggestions[field] : [];
    setText(this.suggestionTitle, values.length ? `valid ${field}:` : '');
    for (const value of values) {
      const button = el('button', {type: 'button', class: 'planner-suggestion', 'aria-label': `Set ${field} to ${value}`},
        String(value));
      button.addEventListener('click', () => this.onSuggestion(field, value));
      this.suggestions.append(button);
    }
    setText(this.kept, keptText ? `The grid still shows the last valid plan, ${keptText}.` : '');
    this.errorPanel.hidden = false;
    for (const [name, input] of this.inputs) {
      const wrong = name === body.field;
      if (wrong) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      describe(name, input, wrong);
    }
  }

  clearError() {
    this.errorPanel.hidden = true;
    for (const [name, input] of this.inputs) {
      input.removeAttribute('aria-invalid');
      describe(name, input, false);
    }
  }
}
