// The Planner's exports: plan JSON, LlamaFactory YAML and torchrun exactly as `meshscope plan --format ...`
// prints them (GET /api/v1/plan/export), and the grid as PNG and SVG, drawn here by the same scene as the
// screen. Files are handed over as blob: downloads (the page's CSP allows no other origin).
import {el, setText} from './planner_dom.js';

const kinds = {
  json: {label: 'Plan JSON…', file: 'plan.json', type: 'application/json', name: 'plan JSON'},
  yaml: {label: 'YAML…', file: 'llamafactory.yaml', type: 'application/yaml', name: 'LlamaFactory YAML'},
  torchrun: {label: 'torchrun…', file: 'torchrun.sh', type: 'text/plain', name: 'torchrun command'},
};

export function download(blob, file) {
  const url = URL.createObjectURL(blob);
  const link = el('a', {href: url, download: file, hidden: true});
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class PlanExports {
  // fetchText(format) -> Promise<{status, text}>; grid: the MeshCanvas; describe(): title and description.
  constructor({fetchText, grid, describe}) {
    this.fetchText = fetchText;
    this.grid = grid;
    this.describe = describe;
    this.yaml = el('pre', {class: 'planner-export-text', id: 'planner-yaml', tabindex: '0'});
    this.torchrun = el('pre', {class: 'planner-export-text', id: 'planner-torchrun', tabindex: '0'});
    this.status = el('p', {class: 'planner-muted', role: 'status'});
    const button = (label, action) => {
      const b = el('button', {type: 'button', class: 'planner-button'}, label);
      b.addEventListener('click', action);
      return b;
    };
    const buttons = [
      button('Copy YAML', () => this.copy('yaml')),
      button('Copy torchrun', () => this.copy('torchrun')),
      button('Copy JSON', () => this.copy('json')),
      ...Object.entries(kinds).map(([kind, k]) => button(k.label, () => this.save(kind))),
      button('Grid PNG…', () => this.savePng()),
      button('Grid SVG…', () => this.saveSvg()),
    ];
    this.root = el('section', {class: 'planner-exports', 'aria-labelledby': 'planner-exports-heading'},
      el('h2', {class: 'planner-heading', id: 'planner-exports-heading'}, 'Export'),
      el('h3', {class: 'planner-subheading'}, 'LlamaFactory config'), this.yaml,
      el('h3', {class: 'planner-subheading'}, 'torchrun'), this.torchrun,
      el('div', {class: 'planner-export-buttons'}, ...buttons), this.status);
  }

  // Shows the YAML and torchrun of the plan now on screen.
  async refresh() {
    for (const [kind, pre] of [['yaml', this.yaml], ['torchrun', this.torchrun]]) {
      const {status, text} = await this.fetchText(kind);
      setText(pre, status === 200 ? text : '');
    }
  }

  async text(kind) {
    const {status, text} = await this.fetchText(kind);
    if (status !== 200) {
      let message = text;
      try {
        message = JSON.parse(text).error;
      } catch { /* the body is the message */ }
      setText(this.status, `Could not export the ${kinds[kind].name}: ${message}`);
      return null;
    }
    return text;
  }

  async save(kind) {
    const text = await this.text(kind);
    if (text === null) return;
    download(new Blob([text], {type: kinds[kind].type}), kinds[kind].file);
    setText(this.status, `Saved ${kinds[kind].file}`);
  }

  async copy(kind) {
    const text = await this.text(kind);
    if (text === null) return;
    try {
      await navigator.clipboard.writeText(text);
      setText(this.status, `Copied the ${kinds[kind].name} to the clipboard`);
    } catch {
      setText(this.status, `The browser did not allow copying; use ${kinds[kind].label} instead`);
    }
  }

  svgText() {
    const {title, description} = this.describe();
    return this.grid.toSvg(title, description);
  }

  saveSvg() {
    download(new Blob([this.svgText()], {type: 'image/svg+xml'}), 'plan-grid.svg');
    setText(this.status, 'Saved plan-grid.svg');
  }

  async savePng() {
    const blob = await this.grid.toPng();
    download(blob, 'plan-grid.png');
    setText(this.status, 'Saved plan-grid.png');
  }
}
