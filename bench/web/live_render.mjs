#!/usr/bin/env node
// The Live page under a 16,384-rank job in headless Chromium (not in ctest: figures, not pass/fail):
//  1. first full render after navigation: from navigation start to the grid's first paint of all 16,384
//     ranks (ranks snapshot fetched and parsed, panels and canvas drawn); target <= 1.5 s;
//  2. a burst of 16,384 rank changes (one {"type":"changes"} message, every rank's whole row, as the stream
//     sends it): main-thread time to parse and apply it plus the frame that draws it; target <= 100 ms;
//  3. hover and keyboard selection: time of one mousemove / arrow key, overlay repaint included; <= 16 ms.
// Usage: bash scripts/bootstrap.sh web; MESHSCOPE_BIN=build/bin/meshscope node bench/web/live_render.mjs [runs]
// (figures in docs/benchmarks.md, "Web dashboard").
import {launchBrowser, meshscope, postBigJob, startServe, tempDir} from '../../tests/web/harness.mjs';

const runs = Number(process.argv[2] || 5);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (xs) => `median ${median(xs).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length} runs)`;

const dir = tempDir();
const serve = await startServe({db: dir.file('h.db')});
const browser = await launchBrowser();
try {
  const {world} = await postBigJob(serve.url, 'big');
  const {page} = browser;
  const firstRender = [];
  for (let i = 0; i < runs; ++i) {
    await page.goto('about:blank');
    await page.goto(`${serve.url}/#/live/big`);
    const ms = await page.evaluate((w) => new Promise((resolve) => {
      const look = () => {
        const mark = performance.getEntriesByName('meshscope-grid-painted').find((e) => e.detail.world === w);
        if (mark) resolve(mark.startTime);
        else setTimeout(look, 20);
      };
      look();
    }), world);
    firstRender.push(ms);
  }

  const burst = [];
  for (let i = 0; i < runs; ++i) {
    burst.push(await page.evaluate(async ({w, i}) => {
      const live = window.meshscopeLive;
      const states = ['initializing', 'ready', 'failed', 'stale'];
      const changes = [];
      for (let rank = 0; rank < w; ++rank) {
        const row = live.data.ranks[rank];
        changes.push({...row, type: 'rank_changed', job: 'big', state: states[(rank + i) % states.length],
          phase: 'ready', timings: row.timings || {}});
      }
      const message = JSON.stringify({type: 'changes', seq: i + 1, changes});
      await new Promise((r) => requestAnimationFrame(() => r()));
      const t0 = performance.now();
      const parsed = JSON.parse(message).changes;  // what the WebSocket's message handler does first
      const t1 = performance.now();
      live.data.apply(parsed);
      const applyMs = performance.now() - t1;
      const parseMs = t1 - t0;
      await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
      return {total: parseMs + applyMs + live.lastRenderMs + live.grid.lastPaintMs, parseMs, applyMs, renderMs: live.lastRenderMs,
        paintMs: live.grid.lastPaintMs};
    }, {w: world, i}));
  }

  const hover = await page.evaluate(() => {
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
  console.log(`meshscope: ${meshscope}; ${world} ranks; chromium headless`);
  console.log(`first full render after navigation: ${fmt(firstRender)}`);
  console.log(`burst of ${world} rank changes (parse + apply + frame): ${fmt(burst.map((b) => b.total))}`);
  console.log(`  of which JSON.parse ${fmt(burst.map((b) => b.parseMs))}; apply ${fmt(burst.map((b) => b.applyMs))}; panels ${fmt(burst.map((b) => b.renderMs))}; ` +
    `grid paint ${fmt(burst.map((b) => b.paintMs))}`);
  console.log(`hover (mousemove + overlay): ${fmt(hover.times)}`);
  console.log(`selection by arrow key (+ overlay, announce): ${fmt(hover.keys)}`);
} finally {
  await browser.close();
  await serve.stop();
  dir.remove();
}
