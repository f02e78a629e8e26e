// The main thread's side of parse_worker.js: parseStream(text) and ranks(path, token) return promises that
// resolve in the order they were asked (one worker, one queue), so the stream's messages are handled in the
// order they came. Should the worker not start (a browser without module workers, a policy that refuses
// it), the same functions run here instead: slower, same answers.
import {fetchJson} from './fetch_json.js';
import {parseStreamText, ranksColumns} from './rank_columns.js';

async function ranksHere(path, token) {
  const got = await fetchJson(path, {token});
  if (got.status !== 200 || got.body === null) return got;
  return {status: 200, ...ranksColumns(got.body)};
}

export class Parser {
  constructor() {
    this.next = 1;
    this.waiting = new Map();  // id -> {request, resolve}
    this.worker = null;
    this.tail = Promise.resolve();  // what runs here runs in order too
    this.lastAnswerAt = 0;
    try {
      this.worker = new Worker(new URL('./parse_worker.js', import.meta.url), {type: 'module', name: 'meshscope-parser'});
    } catch {
      this.worker = null;
    }
    if (!this.worker) return;
    this.worker.addEventListener('message', (event) => {
      this.lastAnswerAt = performance.now();  // read by bench/web/live_render.mjs (before event.data is read)
      const entry = this.waiting.get(event.data.id);
      if (!entry) return;
      this.waiting.delete(event.data.id);
      entry.resolve(event.data);
    });
    // The worker could not load or run: answer what it was asked, and everything after, here.
    this.worker.addEventListener('error', (event) => {
      event.preventDefault();
      this.fallBack();
    });
  }

  get inWorker() {
    return this.worker !== null;
  }

  fallBack() {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const {request, resolve} of waiting) this.inOrder(request).then(resolve);
  }

  inOrder(request) {
    const answer = this.tail.then(() => this.here(request));
    this.tail = answer.catch(() => {});
    return answer;
  }

  async here(request) {
    if (request.op === 'stream') return {id: request.id, result: parseStreamText(request.text)};
    return {id: request.id, ...(await ranksHere(request.path, request.token))};
  }

  ask(request) {
    const id = this.next++;
    const full = {...request, id};
    if (!this.worker) return this.inOrder(full);
    return new Promise((resolve) => {
      this.waiting.set(id, {request: full, resolve});
      this.worker.postMessage(full);
    });
  }

  // -> parseStreamText(text)'s result (rank_columns.js)
  async parseStream(text) {
    return (await this.ask({op: 'stream', text})).result;
  }

  // -> {status: 200, total, columns} | {status, body} | {status: 0, error}
  ranks(path, token) {
    return this.ask({op: 'ranks', path, token});
  }
}
