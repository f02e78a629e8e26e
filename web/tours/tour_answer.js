// The answer part of a tour step's task: what the learner gives for each check kind (docs/tours.md, "Checks"),
// as a control on the tour panel that the real pages also fill: a rank chosen on the grid, the Planner's
// layout, the sandbox's history. Every answer is judged by core (the check endpoint); nothing is judged here.
import {el, setText} from '../shared/dom.js';

const rankKinds = new Set(['rank_in_group', 'rank_leaves_node', 'finding_rank', 'peer_group']);
const numberKinds = new Set(['count', 'creation_index']);

export function answerKind(check) {
  if (!check) return 'none';
  if (rankKinds.has(check.kind)) return 'rank';
  if (numberKinds.has(check.kind)) return 'number';
  if (check.kind === 'choice' || check.kind === 'layout' || check.kind === 'sandbox') return check.kind;
  return 'unknown';
}

// What a typed number is sent as: an integer when it is one, else the text as typed, so core's own message
// ("answer needs "rank", a non-negative integer") says what is wrong.
function typed(text) {
  const value = text.trim();
  return /^\d{1,15}$/.test(value) ? Number(value) : value;
}

// task: the step's task; onCheck(answer): judge this answer; pageWord: where the page part of the task is.
export class AnswerControl {
  constructor(task, {onCheck, readLayout, readSandbox}) {
    this.kind = answerKind(task.check);
    this.onCheck = onCheck;
    this.root = el('div', {class: 'tour-answer', 'data-kind': this.kind});
    const check = (label, read) => {
      const button = el('button', {type: 'button', class: 'tour-check'}, label);
      button.addEventListener('click', () => {
        const answer = read();
        if (answer) this.onCheck(answer);
      });
      return button;
    };
    if (this.kind === 'rank' || this.kind === 'number') {
      const field = this.kind === 'rank' ? 'rank' : 'number';
      const label = this.kind === 'rank' ? 'Rank' : 'Number';
      this.input = el('input', {id: 'tour-answer-input', type: 'text', inputmode: 'numeric', autocomplete: 'off',
        spellcheck: 'false', class: 'tour-input', 'aria-describedby': 'tour-prompt'});
      const read = () => ({[field]: typed(this.input.value)});
      this.input.addEventListener('keydown', (event) => {
        if (event.key === 'Enter') {
          event.preventDefault();
          this.onCheck(read());
        }
      });
      this.root.append(el('label', {for: 'tour-answer-input'}, label), this.input, check('Check', read));
      if (this.kind === 'rank') {
        this.root.append(el('p', {class: 'tour-help muted'},
          'Or click the rank on the page (or select it with the keyboard and press Enter).'));
      }
    } else if (this.kind === 'choice') {
      const options = Array.isArray(task.check.options) ? task.check.options : [];
      const group = el('fieldset', {class: 'tour-choices'}, el('legend', {}, 'Your answer'));
      options.forEach((option, i) => {
        const id = `tour-choice-${i}`;
        group.append(el('div', {class: 'tour-choice'},
          el('input', {type: 'radio', name: 'tour-choice', id, value: String(i)}),
          el('label', {for: id}, String(option))));
      });
      const read = () => {
        const chosen = group.querySelector('input[name="tour-choice"]:checked');
        if (!chosen) {
          this.note('Choose one of the answers first.');
          return null;
        }
        return {choice: Number(chosen.value)};
      };
      this.root.append(group, check('Check', read));
    } else if (this.kind === 'layout') {
      const read = () => {
        const layout = readLayout();
        if (layout.error) {
          this.note(layout.error);
          return null;
        }
        return {layout: layout.layout};
      };
      this.root.append(el('p', {class: 'tour-help muted'}, 'Set the layout in the Planner\'s inputs, then:'),
        check('Check the Planner\'s layout', read));
    } else if (this.kind === 'sandbox') {
      this.root.append(el('p', {class: 'tour-help muted'},
        'Make the calls in the sandbox: each call is checked as you make it.'),
      check('Check the sandbox history', () => ({calls: readSandbox()})));
    }
    this.noteText = el('p', {class: 'tour-note muted', hidden: true});
    this.root.append(this.noteText);
  }

  // A rank the learner chose on the page: shown in the field and checked.
  takeRank(rank) {
    if (this.kind !== 'rank') return false;
    this.input.value = String(rank);
    this.onCheck({rank});
    return true;
  }

  note(text) {
    setText(this.noteText, text);
    this.noteText.hidden = !text;
  }
}
