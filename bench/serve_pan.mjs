// bench/serve_pan.mjs - the Trace view in chromium on a running server
// (bench/serve calls it with the >= 10M-event trace loaded): page load ->
// first drawn timeline, then W/A/S/D held down (zoom in, pan right, pan
// left, zoom out; 1.5 s each) while counting animation frames (fps), main-
// thread tasks over 50 ms, new LOD windows drawn and the window answers'
// latency as the page saw it.
//
//   node bench/serve_pan.mjs URL RUN WORKER
import { launchChromium, chromiumArgs } from './chromium.mjs';

const [url, run, worker] = process.argv.slice(2);

const browser = await launchChromium();
console.log(`chromium ${chromiumArgs.join(' ')} (bench/chromium.mjs)`);
const page = await browser.newPage({ viewport: { width: 1920, height: 1000 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.addInitScript(() => {
  window.__long = 0;
  new PerformanceObserver((l) => { window.__long += l.getEntries().length; }).observe({ type: 'longtask', buffered: true });
});
await page.goto(`${url}/#view=trace&${new URLSearchParams({ run, worker })}`);
await page.waitForFunction(() => performance.getEntriesByName('nns-trace-first-draw').length > 0, null, { timeout: 300000 });
const first = await page.evaluate(() => performance.getEntriesByName('nns-trace-first-draw')[0].startTime);
const events = await page.evaluate(async () => (await (await fetch(`/api/trace/meta?${new URLSearchParams(location.hash.slice(1))}`)).json()).events);
await page.click('[data-testid="trace-canvas"]', { position: { x: 5, y: 5 } }).catch(() => {});

const res = [];
for (const [key, label] of [['w', 'zoom in (W)'], ['d', 'pan right (D)'], ['a', 'pan left (A)'], ['s', 'zoom out (S)']]) {
  await page.evaluate(() => {
    window.__frames = 0; window.__run = true; window.__long0 = window.__long; window.__q = [];
    window.__drawn0 = window.__nnsTrace.drawn;
    const tick = () => { if (!window.__run) return; window.__frames++; requestAnimationFrame(tick); };
    requestAnimationFrame(tick);
    window.__sampler = setInterval(() => window.__q.push(window.__nnsTrace.lastQueryMs), 50);
  });
  const t0 = Date.now();
  await page.keyboard.down(key);
  await page.waitForTimeout(1500);
  await page.keyboard.up(key);
  const secs = (Date.now() - t0) / 1000;
  const r = await page.evaluate(() => {
    window.__run = false; clearInterval(window.__sampler);
    const q = window.__q.filter((x) => typeof x === 'number').sort((a, b) => a - b);
    return { frames: window.__frames, long: window.__long - window.__long0, drawn: window.__nnsTrace.drawn - window.__drawn0, q: q.length ? q[Math.floor(q.length / 2)] : null, vis: window.__nnsTrace.visible };
  });
  res.push({ label, fps: r.frames / secs, long: r.long, drawn: r.drawn, q: r.q });
  await page.waitForTimeout(300);
}
await browser.close();
console.log(`trace view on ${events} events: page load -> first drawn timeline ${first.toFixed(0)} ms`);
for (const r of res) {
  console.log(`  ${r.label.padEnd(16)} ${r.fps.toFixed(1).padStart(5)} fps, ${String(r.long).padStart(2)} tasks > 50 ms, ${String(r.drawn).padStart(3)} new windows drawn, window answer ${r.q == null ? '-' : r.q.toFixed(1)} ms (median as the page saw it)`);
}
const fps = Math.min(...res.map((r) => r.fps));
console.log(`RESULT pan_first_draw_ms=${first.toFixed(0)} pan_min_fps=${fps.toFixed(1)} pan_events=${events} page_errors=${errors.length}`);
if (errors.length) console.log('page errors:', errors.slice(0, 3).join(' | '));
