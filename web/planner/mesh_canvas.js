// The Planner's grid on a canvas: the base layer (cells, node frames, labels) painted once per plan, mesh, size
// and theme into an offscreen canvas; the selection and hover drawn over a copy of it. Click or arrow keys
// select a rank, Enter opens it (the inspector), Home/End jump to the first/last rank.
import {PlanGridLayout} from './grid_layout.js';
import {paintBase, paintOverlay, readColours} from './grid_scene.js';
import {CanvasSink, SvgSink} from './grid_sinks.js';
import {el, setText} from './planner_dom.js';

const minCellPixels = 2;  // the smallest cell drawn; a bigger world scrolls instead of vanishing
const maxZoom = 2;
const maxCanvasPixels = 64e6;  // well inside every browser's canvas limit
const zoomStep = 1.5;

export class MeshCanvas {
  // onSelect(rank), onOpen(rank)
  constructor({onSelect, onOpen}) {
    this.onSelect = onSelect;
    this.onOpen = onOpen;
    this.canvas = el('canvas', {class: 'planner-canvas', tabindex: '0', role: 'img',
      'aria-roledescription': 'rank grid', 'aria-describedby': 'planner-grid-help planner-grid-status'});
    this.help = el('p', {id: 'planner-grid-help', class: 'planner-help'},
      'Click a rank, or focus the grid (Tab) and use the arrow keys; Enter opens the rank in the inspector; ' +
      '+ and - zoom, 0 fits the grid.');
    this.status = el('p', {id: 'planner-grid-status', class: 'planner-grid-status', 'aria-live': 'polite'});
    this.scroller = el('div', {class: 'planner-canvas-scroller'}, this.canvas);
    this.zoomSteps = 0;  // 0: the whole grid fits the width (at most 100%)
    const tool = (label, name, action) => {
      const b = el('button', {type: 'button', class: 'planner-button', 'aria-label': name, title: name}, label);
      b.addEventListener('click', action);
      return b;
    };
    this.zoomText = el('span', {class: 'planner-muted', 'aria-live': 'polite'});
    const tools = el('div', {class: 'planner-zoom', role: 'group', 'aria-label': 'Zoom'},
      tool('−', 'Zoom out (-)', () => this.zoomBy(-1)), this.zoomText, tool('+', 'Zoom in (+)', () => this.zoomBy(1)),
      tool('Fit', 'Fit the whole grid (0)', () => this.zoomBy(0)));
    this.root = el('div', {class: 'planner-grid', 'data-anchor': 'planner.grid'}, tools, this.scroller, this.status,
      this.help);
    this.layout = null;
    this.plan = null;
    this.selected = null;
    this.groups = [];
    this.hover = null;
    this.base = null;
    this.shownDim = null;
    this.canvas.addEventListener('click', (event) => {
      const rank = this.rankAtEvent(event);
      if (rank !== null) this.onSelect(rank);
      this.canvas.focus();
    });
    this.canvas.addEventListener('mousemove', (event) => this.setHover(this.rankAtEvent(event)));
    this.canvas.addEventListener('mouseleave', () => this.setHover(null));
    this.canvas.addEventListener('keydown', (event) => this.onKey(event));
    this.resizeObserver = new ResizeObserver(() => this.relayout());
    this.resizeObserver.observe(this.scroller);
  }

  destroy() {
    this.resizeObserver.disconnect();
  }

  // plan: the compact plan; meshName: "expert", "data" or "model" (the data mesh when the plan has no such mesh).
  setPlan(plan, meshName) {
    this.plan = plan;
    const mesh = plan.meshes.find((m) => m.name === meshName) || plan.meshes.find((m) => m.name === 'data');
    this.layout = new PlanGridLayout(plan, mesh);
    this.canvas.setAttribute('aria-label', `${mesh.name[0].toUpperCase()}${mesh.name.slice(1)} mesh grid of ${plan.topology.world} ranks`);
    this.relayout();
  }

  // Colours every cell by its group along dim (null: by node), as the desktop's legend does.
  setShownDim(dim) {
    this.shownDim = dim;
    this.relayout();
  }

  // steps: +1 in, -1 out, 0 back to the whole grid.
  zoomBy(steps) {
    const before = {steps: this.zoomSteps, zoom: this.zoom};
    this.zoomSteps = steps === 0 ? 0 : this.zoomSteps + steps;
    this.relayout();
    if (steps !== 0 && this.zoom === before.zoom) this.zoomSteps = before.steps;  // at a limit already
    if (this.selected !== null) this.scrollToRank(this.selected);
  }

  meshName() {
    return this.layout ? this.layout.mesh.name : null;
  }

  // groups: the rank endpoint's groups for the shown mesh (or [] while they load).
  setSelection(rank, groups) {
    this.selected = rank;
    this.groups = groups || [];
    this.paintOverlay();
    this.describe();
  }

  relayout() {
    if (!this.layout) return;
    const width = Math.max(200, this.scroller.clientWidth - 2);
    const fit = width / this.layout.width;
    const minZoom = minCellPixels / 44;
    const ratio = window.devicePixelRatio || 1;
    const largest = Math.sqrt(maxCanvasPixels / (this.layout.width * this.layout.height)) / ratio;
    this.zoom = Math.min(1, Math.max(fit, minZoom)) * zoomStep ** this.zoomSteps;
    this.zoom = Math.max(minZoom, Math.min(this.zoom, maxZoom, largest));
    setText(this.zoomText, `${Math.round(this.zoom * 100)}%`);
    const cssWidth = Math.ceil(this.layout.width * this.zoom);
    const cssHeight = Math.ceil(this.layout.height * this.zoom);
    this.canvas.style.width = `${cssWidth}px`;
    this.canvas.style.height = `${cssHeight}px`;
    this.canvas.width = Math.ceil(cssWidth * ratio);
    this.canvas.height = Math.ceil(cssHeight * ratio);
    this.colours = readColours(this.root);
    this.base = document.createElement('canvas');
    this.base.width = this.canvas.width;
    this.base.height = this.canvas.height;
    const context = this.base.getContext('2d');
    context.setTransform(ratio * this.zoom, 0, 0, ratio * this.zoom, 0, 0);
    paintBase(new CanvasSink(context), this.view());
    this.paintOverlay();
  }

  view() {
    return {layout: this.layout, colours: this.colours, zoom: this.zoom, selected: this.selected,
      groups: this.groups, hover: this.hover, shownDim: this.shownDim};
  }

  paintOverlay() {
    if (!this.base) return;
    const context = this.canvas.getContext('2d');
    context.setTransform(1, 0, 0, 1, 0, 0);
    context.drawImage(this.base, 0, 0);
    const ratio = window.devicePixelRatio || 1;
    context.setTransform(ratio * this.zoom, 0, 0, ratio * this.zoom, 0, 0);
    paintOverlay(new CanvasSink(context), this.view());
  }

  setHover(rank) {
    if (rank === this.hover) return;
    this.hover = rank;
    this.paintOverlay();
    if (rank !== null) setText(this.status, this.describeRank(rank, 'hover'));
    else this.describe();
  }

  describeRank(rank) {
    const node = this.layout.nodeOf(rank);
    return `rank ${rank} · node ${node} · local rank ${rank - node * this.layout.gpusPerNode}`;
  }

  describe() {
    if (!this.layout) return;
    setText(this.status, this.selected === null ? `${this.layout.axesText()}` :
      `Selected ${this.describeRank(this.selected)} · ${this.layout.axesText()}`);
  }

  rankAtEvent(event) {
    if (!this.layout) return null;
    const box = this.canvas.getBoundingClientRect();
    return this.layout.hit((event.clientX - box.left) / this.zoom, (event.clientY - box.top) / this.zoom);
  }

  onKey(event) {
    if (!this.layout) return;
    const moves = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
    let rank = null;
    if (event.key in moves) {
      const [dx, dy] = moves[event.key];
      rank = this.selected === null ? 0 : this.layout.neighbour(this.selected, dx, dy);
    } else if (event.key === 'Home') {
      rank = 0;
    } else if (event.key === 'End') {
      rank = this.layout.world - 1;
    } else if (event.key === '+' || event.key === '=' || event.key === '-' || event.key === '0') {
      event.preventDefault();
      this.zoomBy(event.key === '0' ? 0 : event.key === '-' ? -1 : 1);
      return;
    } else if (event.key === 'Enter' || event.key === ' ') {
      if (this.selected !== null) this.onOpen(this.selected);
      event.preventDefault();
      return;
    } else {
      return;
    }
    event.preventDefault();
    this.onSelect(rank);
    this.scrollToRank(rank);
  }

  scrollToRank(rank) {
    const c = this.layout.cellRect(rank);
    const x = c.x * this.zoom;
    const y = c.y * this.zoom;
    const s = this.scroller;
    if (y < s.scrollTop || y > s.scrollTop + s.clientHeight - 20) s.scrollTop = Math.max(0, y - s.clientHeight / 2);
    if (x < s.scrollLeft || x > s.scrollLeft + s.clientWidth - 20) s.scrollLeft = Math.max(0, x - s.clientWidth / 2);
  }

  // The whole grid at zoom 1 as a standalone SVG document, painted by the same scene as the screen.
  toSvg(title, description) {
    const sink = new SvgSink();
    // Coordinates stay in content units; the zoom only decides what is written: rank numbers up to 4,096
    // ranks, block labels always.
    const view = {...this.view(), zoom: this.layout.world > 4096 ? 0.45 : 1, hover: null};
    paintBase(sink, view);
    paintOverlay(sink, view);
    return sink.document(this.layout.width, this.layout.height, title, description);
  }

  // The grid as on screen (without the hover), as a PNG blob.
  toPng() {
    const hover = this.hover;
    this.hover = null;
    this.paintOverlay();
    this.hover = hover;
    return new Promise((resolve) => this.canvas.toBlob((blob) => {
      this.paintOverlay();
      resolve(blob);
    }, 'image/png'));
  }
}
