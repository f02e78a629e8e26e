#!/usr/bin/env node
// The Live page under a 16,384-rank job in headless Chromium (not in ctest: figures, not pass/fail):
//  1. first full render after navigation: from navigation start to the grid's first paint of all 16,384
//     ranks (ranks snapshot fetched and parsed, panels and canvas drawn); target <= 1.5 s;
//  2. a burst of 16,384 rank changes in one {"type":"changes"} message, of two kinds: as the collector sends
//     them ({"type":"rank_changed","job","rank","state","phase"}, 1.3 MB) and every rank's whole row (the
//     snapshot's rows, 4 MB: the worst a message can be); main-thread time from the message's text to the
//     frame that draws it; target <= 100 ms;
//  3. hover and keyboard selection: time of one mousemove / arrow key, overlay repaint included; <= 16 ms.
// The message goes in where the WebSocket's text does (Stream.receive: the text to the parser's worker,
// then the answer applied), so the figures are the page's own path. A page from before the worker (no
// window.meshscope.parser) gets the same text through JSON.parse + LiveData.apply, as its socket did.
// MESHSCOPE_BIN_OLD=<an older meshscope> measures that one too, run for run in turn with MESHSCOPE_BIN,
// and prints the ratio old / new of the medians (same machine, same moment).
// Usage: bash scripts/bootstrap.sh web; MESHSCOPE_BIN=build/bin/meshscope node bench/web/live_render.mjs [runs]
// (figures in docs/benchmarks.md, "Web Live page").
import {loadavg} from 'node:os';
import {launchBrowser, postBigJob, startServe, tempDir} from '../../tests/web/harness.mjs';

const runs = Number(process.argv[2] || 5);
const binaries = [['new', process.env.MESHSCOPE_BIN || 'meshscope']];
if (process.env.MESHSCOPE_BIN_OLD) binaries.unshift(['old', process.env.MESHSCOPE_BIN_OLD]);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

// The two bursts' texts, built here from the collector's own snapshot (the same bytes for every page).
async function bursts(url, world) {
  const rows = (await (await fetch(`${url}/api/v1/jobs/big/ranks`)).json()).ranks;
  const states = ['initializing', 'ready', 'failed', 'stale'];
  const partial = (i) => JSON.stringify({type: 'changes', seq: 0, changes: rows.map((row, rank) => ({
    type: 'rank_changed', job: 'big', rank, state: states[(rank + i) % states.length], phase: 'ready'}))});
  const whole = (i) => JSON.stringify({type: 'changes', seq: 0, changes: rows.map((row, rank) => ({
    ...row, type: 'rank_changed', job: 'big', state: states[(rank + i + 1) % states.length], phase: 'ready'}))});
  if (rows.length !== world) throw new Error(`the snapshot has ${rows.length} rows, not ${world}`);
  return {partial, whole};
}

async function setUp(name, bin) {
  const dir = tempDir();
  const serve = await startServe({db: dir.file('h.db'), bin});
  const browser = await launchBrowser();
  const {world} = await postBigJob(serve.url, 'big');
  return {name, dir, serve, browser, world, texts: await bursts(serve.url, world),
    figures: {first: [], ranksAt: [], columnsAt: [], partial: [], whole: [], partialParts: [], wholeParts: [],
      latency: [], hover: [], keys: []}};
}

async function firstRender(s) {
  const {page} = s.browser;
  await page.goto('about:blank');
  await page.goto(`${s.serve.url}/#/live/big`);
  const got = await page.evaluate((w) => new Promise((resolve) => {
    const look = () => {
      const mark = performance.getEntriesByName('meshscope-grid-painted').find((e) => e.detail.world === w);
      if (!mark) return setTimeout(look, 20);
      const ranks = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/api/v1/jobs/big/ranks'));
      const columns = performance.getEntriesByName('meshscope-ranks-loaded').find((e) => e.detail.world === w);
      // The ranks answer: in this page's resource timing when the page fetched it, in the worker's otherwise.
      resolve({ms: mark.startTime, ranksAt: ranks ? ranks.responseEnd : NaN, columnsAt: columns ? columns.startTime : NaN});
    };
    look();
  }), s.world);
  s.figures.first.push(got.ms);
  if (Number.isFinite(got.ranksAt)) s.figures.ranksAt.push(got.ranksAt);
  if (Number.isFinite(got.columnsAt)) s.figures.columnsAt.push(got.columnsAt);
}

async function burst(s, kind, i) {
  const text = s.texts[kind](i).replace('"seq":0', `"seq":${i + 1000}`);
  const b = await s.browser.page.evaluate(async ({text, seq}) => {
    const live = window.meshscopeLive;
    const stream = window.meshscope.stream;
    const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
    // Nothing else in flight: no snapshot being read, none scheduled.
    while (live.data.loading) await frame();
    clearTimeout(live.data.ranksTimer);
    live.data.ranksTimer = 0;
    await frame();
    const painted = () => performance.getEntriesByName('meshscope-grid-painted').filter((e) => e.startTime > t0);
    const t0 = performance.now();
    let post;
    let handler;
    if (window.meshscope.parser) {
      stream.seq = seq - 1;  // the message follows what the page applied
      await stream.receive(stream.connection, text);
      post = stream.lastPostMs;
      handler = stream.lastHandledAt - window.meshscope.parser.lastAnswerAt;
    } else {
      const parsed = JSON.parse(text).changes;  // what the old page's message handler did first
      post = performance.now() - t0;
      const t1 = performance.now();
      live.data.apply(parsed);
      handler = performance.now() - t1;
    }
    // The page draws its panels in one frame and the grid in the next: wait for the grid's paint.
    while (!painted().length) await frame();
    const mark = painted()[0];
    const latency = mark.startTime - t0;
    clearTimeout(live.data.ranksTimer);
    live.data.ranksTimer = 0;
    return {total: post + handler + live.lastRenderMs + mark.detail.ms, post, handler,
      render: live.lastRenderMs, paint: mark.detail.ms, latency};
  }, {text, seq: i + 1000});
  s.figures[kind].push(b.total);
  s.figures[`${kind}Parts`].push(b);
  if (kind === 'partial') s.figures.latency.push(b.latency);
}

async function pointer(s) {
  const got = await s.browser.page.evaluate(() => {
    const grid = window.meshscopeLive.grid;
    const box = grid.base.getBoundingClientRect();
    const times = [];
    for (let k = 0; k < 400; ++k) {
      const r = (k * 97) % grid.layout.world;
      const x = box.left + (grid.origins[2 * r] + 20) * grid.scale;
      const y = box.top + (grid.origins[2 * r + 1] + 20) * grid.scale;
      const t0 = performance.now();
      grid.wrapper.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true}));
      times.push(performance.now() - t0);
    }
    const keys = [];
    for (let k = 0; k < 400; ++k) {
      const t0 = performance.now();
      grid.wrapper.dispatchEvent(new KeyboardEvent('keydown', {key: k % 40 < 20 ? 'ArrowRight' : 'ArrowDown', bubbles: true}));
      keys.push(performance.now() - t0);
    }
    return {times, keys};
  });
  s.figures.hover.push(...got.times);
  s.figures.keys.push(...got.keys);
}

function report(s) {
  const f = s.figures;
  const parts = (list) => ['post', 'handler', 'render', 'paint'].map((k) => `${k} ${median(list.map((b) => b[k])).toFixed(1)}`)
    .join(', ');
  console.log(`[${s.name}] ${s.serve.bin || ''}`);
  const after = [f.ranksAt.length ? `ranks answer in: ${fmt(f.ranksAt)}` : '',
    f.columnsAt.length ? `ranks' columns on the main thread: ${fmt(f.columnsAt)}` : ''].filter(Boolean).join('; ');
  console.log(`  first full render after navigation: ${fmt(f.first)} (${after})`);
  console.log(`  burst as the collector sends it (state, phase), main thread: ${fmt(f.partial)} (medians: ${parts(f.partialParts)})`);
  console.log(`    text in -> grid painted, wall clock: ${fmt(f.latency)}`);
  console.log(`  burst of whole rows, main thread: ${fmt(f.whole)} (medians: ${parts(f.wholeParts)})`);
  console.log(`  hover (mousemove + overlay): ${fmt(f.hover)}; selection by arrow key: ${fmt(f.keys)}`);
}

const setups = [];
try {
  for (const [name, bin] of binaries) setups.push(await setUp(name, bin));
  const load = [loadavg()[0]];
  for (let i = 0; i < runs; ++i) for (const s of setups) await firstRender(s);
  for (let i = 0; i < runs; ++i) {
    for (const s of setups) {
      await burst(s, 'partial', 2 * i);
      await burst(s, 'whole', 2 * i + 1);
    }
  }
  for (const s of setups) await pointer(s);
  load.push(loadavg()[0]);
  console.log(`${setups[0].world} ranks; chromium headless; ${runs} runs each; load average (1 min) ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
  for (const s of setups) report(s);
  if (setups.length === 2) {
    const [o, n] = setups.map((s) => s.figures);
    const ratio = (k) => (median(o[k]) / median(n[k])).toFixed(2);
    console.log(`old / new (medians): first render ${ratio('first')}, burst as sent ${ratio('partial')}, ` +
      `whole-row burst ${ratio('whole')}`);
  }
} finally {
  for (const s of setups) {
    await s.browser.close();
    await s.serve.stop();
    s.dir.remove();
  }
}
