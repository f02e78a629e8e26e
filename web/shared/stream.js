// The collector's change stream (GET /api/v1/stream, WebSocket, meshscope.stream/1) with reconnects that
// lose nothing (WEB-CONTRACT.md, docs/collector.md):
//  - hello carries the collector's epoch (one per process) and the seq of its last changes message;
//  - each changes message has seq = previous + 1; the client remembers the last one it applied;
//  - on reconnect it asks for ?since=<seq>&epoch=<epoch>: the collector replays what was missed right after
//    hello, or sends {"type":"reload"} when it cannot (another process, or the ring moved on): the page
//    re-reads its snapshots, then applies the changes after hello's seq (changes are idempotent).
//  - a hello without an epoch (a collector older than the contract) or with another epoch than the one the
//    page knew also means "re-read"; a gap in seq does too.
// With a token, the first message is {"type":"auth","token":T}: a browser cannot set headers on a WebSocket,
// and the token never goes into the URL.
//
// The messages are parsed off the main thread (parser.js, parse_worker.js): only their text crosses over, and
// the answers are handled in the order the messages came, the socket's close after them.
//
// Listeners get {type: 'changes', batch, seq} (batch: {count, jobs: Map job -> rank columns, others: [the other
// changes]}, rank_columns.js), {type: 'resync'} (re-read snapshots) and
// {type: 'state', state: 'connecting' | 'live' | 'down', detail}.
const backoffMs = [250, 500, 1000, 2000, 3000];

// A listener that throws is the page's bug, reported as such; the messages after it are still handled.
const rethrow = (e) => setTimeout(() => {
  throw e;
});

export class Stream {
  constructor({path = '/api/v1/stream', token = () => '', onAuthRefused = async () => {}, parser} = {}) {
    this.path = path;
    this.parser = parser;
    this.token = token;
    this.onAuthRefused = onAuthRefused;
    this.listeners = new Set();
    this.socket = null;
    this.epoch = null;     // the collector process the page's data came from
    this.seq = 0;          // the last changes message applied
    this.helloSeq = 0;
    this.attempt = 0;
    this.state = 'connecting';
    this.everLive = false;
    this.stopped = true;
    this.timer = 0;
  }

  subscribe(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000);
    this.socket = null;
  }

  url() {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const query = this.epoch !== null ? `?since=${this.seq}&epoch=${encodeURIComponent(this.epoch)}` : '';
    return `${scheme}//${location.host}${this.path}${query}`;
  }

  emit(event) {
    for (const listener of [...this.listeners]) listener(event);
  }

  setState(state, detail = '') {
    if (state === this.state && !detail) return;
    this.state = state;
    this.emit({type: 'state', state, detail});
  }

  connect() {
    if (this.stopped) return;
    let socket;
    try {
      socket = new WebSocket(this.url());
    } catch (e) {
      this.retry(String(e.message || e));
      return;
    }
    this.socket = socket;
    const connection = {socket, token: this.token(), hello: false, authRefused: false, replaced: false,
      handled: Promise.resolve()};
    this.connection = connection;  // the benchmark feeds messages through receive() (bench/web/live_render.mjs)
    socket.addEventListener('open', () => {
      if (connection.token) socket.send(JSON.stringify({type: 'auth', token: connection.token}));
    });
    socket.addEventListener('message', (event) => {
      if (typeof event.data === 'string') this.receive(connection, event.data);
    });
    socket.addEventListener('close', (event) => {
      connection.handled = connection.handled.then(() => this.onClose(connection, event)).catch(rethrow);
    });
  }

  // One message's text: parsed in the worker, handled after the messages before it.
  receive(connection, text) {
    const started = performance.now();
    const parsed = this.parser.parseStream(text);
    this.lastPostMs = performance.now() - started;  // read by bench/web/live_render.mjs
    connection.handled = connection.handled.then(() => parsed).then((result) => this.onMessage(connection, result))
      .catch(rethrow);
    return connection.handled;
  }

  onMessage(connection, result) {
    if (result.type === 'hello') {
      connection.hello = true;
      this.onHello(result.message);
    } else if (result.type === 'reload') {
      this.seq = this.helloSeq;
      this.emit({type: 'resync'});
    } else if (result.type === 'changes') {
      this.onChanges(result);
      this.lastHandledAt = performance.now();  // read by bench/web/live_render.mjs
    } else if (result.type === 'error') {
      connection.authRefused = result.message.error === 'missing or wrong bearer token';
    }
    // Anything else (not JSON, another type) is not ours to interpret.
  }

  // The tab got a token (the dialog): a connection opened without it waits for a first message it will
  // never send; open one with it now.
  tokenChanged() {
    const connection = this.connection;
    if (this.stopped || !this.socket || !connection || connection.token === this.token()) return;
    connection.replaced = true;
    this.socket = null;
    connection.socket.close(1000);
    clearTimeout(this.timer);
    this.connect();
  }

  onClose(connection, event) {
    if (connection.replaced || this.socket !== connection.socket) return;
    this.socket = null;
    if (this.stopped) return;
    if (connection.authRefused || event.code === 1008) {
      if (this.token() && this.token() !== connection.token) return this.connect();  // a newer token to try
      this.setState('down', 'missing or wrong bearer token');
      this.onAuthRefused().then(() => this.connect());
      return;
    }
    this.retry(connection.hello ? 'the collector closed the stream' : 'cannot reach the collector');
  }

  retry(detail) {
    this.setState('down', detail);
    const delay = backoffMs[Math.min(this.attempt, backoffMs.length - 1)];
    ++this.attempt;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  onHello(message) {
    this.attempt = 0;
    const epoch = typeof message.epoch === 'string' ? message.epoch : null;
    const seq = Number.isInteger(message.seq) ? message.seq : 0;
    this.helloSeq = seq;
    const resumable = epoch !== null && epoch === this.epoch;
    const first = !this.everLive;
    this.everLive = true;
    this.epoch = epoch;
    this.setState('live');
    // Resuming: the missed messages follow (seq > this.seq), or a reload does. Otherwise the page's data
    // may be behind: start counting from hello and re-read (the first connection reads its snapshots anyway).
    if (!resumable) {
      this.seq = seq;
      if (!first) this.emit({type: 'resync'});
    }
  }

  onChanges(result) {
    const seq = result.seq;
    if (seq !== null && this.epoch !== null) {
      if (seq <= this.seq) return;  // already applied (a replay overlapping what we had)
      if (seq > this.seq + 1) {
        // A hole: something was lost between us and the collector. Re-read, then apply this one too.
        this.emit({type: 'resync'});
      }
      this.seq = seq;
    }
    this.emit({type: 'changes', batch: {count: result.count, jobs: result.jobs, others: result.others}, seq});
  }
}
