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
// Listeners get {type: 'changes', changes, seq}, {type: 'resync'} (re-read snapshots) and
// {type: 'state', state: 'connecting' | 'live' | 'down', detail}.
const backoffMs = [250, 500, 1000, 2000, 3000];

export class Stream {
  constructor({path = '/api/v1/stream', token = () => '', onAuthRefused = async () => {}} = {}) {
    this.path = path;
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
    let hello = false;
    let authRefused = false;
    socket.addEventListener('open', () => {
      const token = this.token();
      if (token) socket.send(JSON.stringify({type: 'auth', token}));
    });
    socket.addEventListener('message', (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;  // not ours to interpret
      }
      if (message.type === 'hello') {
        hello = true;
        this.onHello(message);
      } else if (message.type === 'reload') {
        this.seq = this.helloSeq;
        this.emit({type: 'resync'});
      } else if (message.type === 'changes') {
        this.onChanges(message);
      } else if (message.type === 'error') {
        authRefused = message.error === 'missing or wrong bearer token';
      }
    });
    socket.addEventListener('close', (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.stopped) return;
      if (authRefused || event.code === 1008) {
        this.setState('down', 'missing or wrong bearer token');
        this.onAuthRefused().then(() => this.connect());
        return;
      }
      this.retry(hello ? 'the collector closed the stream' : 'cannot reach the collector');
    });
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

  onChanges(message) {
    const seq = Number.isInteger(message.seq) ? message.seq : null;
    if (seq !== null && this.epoch !== null) {
      if (seq <= this.seq) return;  // already applied (a replay overlapping what we had)
      if (seq > this.seq + 1) {
        // A hole: something was lost between us and the collector. Re-read, then apply this one too.
        this.emit({type: 'resync'});
      }
      this.seq = seq;
    }
    this.emit({type: 'changes', changes: Array.isArray(message.changes) ? message.changes : [], seq});
  }
}
