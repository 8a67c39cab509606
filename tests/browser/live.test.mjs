// Browser test of a live run (issue 24, item 2): while the C example
// (build/examples/mlp) writes its trace into the served logdir, the page
// shows a LIVE badge, the Overview's live line counts the completed steps
// up without a reload, and a table sort and a chart zoom the test set stay
// set across the refreshes (as does the scroll position); once the test
// stops the program (SIGTERM: the collector writes the END chunk) the
// badge goes away and the Overview shows the final documents by itself.
// The Trace view, while live, follows the end of the trace as the server's
// snapshots of it grow, and stays where the user moved it otherwise.
// One PASS/FAIL line per check; exit status 1 on any FAIL.
// env: NNS_URL (a server on NNS_LIVE_DIR, empty at start), NNS_LIVE_DIR,
// NNS_MLP (the example), NNS_SHOTS, NNS_CHROMIUM, NNS_ROOT.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);
const URL0 = process.env.NNS_URL;
const SHOTS = process.env.NNS_SHOTS;
const T = checker();
const { check } = T;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const runs = async () => (await fetch(`${URL0}/api/runs`)).json();

// the program: a data stall of 20 ms per step, far more steps than the test
// waits for; stopped by the test
const env = { ...process.env, NNSCOPE_OPTIONS: '{"cpu_sampling_interval_ms":100}' };
for (const k of ['RANK', 'WORLD_SIZE', 'LOCAL_RANK', 'NNS_MLP_DELAY_MS']) delete env[k];
const prog = spawn(process.env.NNS_MLP, ['--steps', '100000', '--stall-ms', '20', '--out', path.join(process.env.NNS_LIVE_DIR, 'train'), '--quiet'],
  { env, stdio: ['ignore', 'ignore', 'pipe'] });
let progErr = '';
prog.stderr.on('data', (d) => { progErr += d; });
const progExit = new Promise((r) => prog.on('exit', (code, sig) => r({ code, sig })));
process.on('exit', () => { try { prog.kill('SIGKILL'); } catch { /* gone */ } });

const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));

// the step count of the Overview's live line
const liveSteps = () => page.evaluate(() => Number(document.querySelector('[data-testid="live-line"]')?.dataset.steps ?? -1));
// how many times the view was swapped in by a live refresh
const refreshes = () => page.evaluate(() => Number(document.querySelector('#content > .view')?.dataset.refreshes ?? 0));
const waitRefreshes = async (n) => {
  const r0 = await refreshes();
  await page.waitForFunction((want) => Number(document.querySelector('#content > .view')?.dataset.refreshes ?? 0) >= want, r0 + n, { timeout: 20000 });
};

let run = null;
let worker = null;
try {
  await check('the run being written is listed live', async () => {
    for (let i = 0; i < 150 && !worker; i++) {
      const doc = await runs().catch(() => null);
      const r = doc?.runs?.find((x) => x.live);
      if (r) { run = r.name; worker = r.workers.find((w) => w.live)?.name; }
      if (!worker) await sleep(100);
    }
    assert.ok(worker, `no live worker listed; the program says: ${progErr.slice(0, 300)}`);
  });
  if (!worker) throw new Error('nothing to test: no live run');

  await page.goto(`${URL0}/#view=overview&run=${encodeURIComponent(run)}&worker=${encodeURIComponent(worker)}`);
  await page.waitForSelector('[data-testid="view-overview"][data-loaded="1"]', { timeout: 20000, state: 'attached' });
  await page.evaluate(() => { window.__sameDocument = 1; });

  await check('the LIVE badge shows, and the run and worker selectors say LIVE', async () => {
    await page.waitForSelector('[data-testid="live-badge"]', { state: 'visible', timeout: 10000 });
    assert.match(await page.textContent('[data-testid="run-select"] option:checked'), /LIVE/);
    assert.match(await page.textContent('[data-testid="worker-select"] option:checked'), /LIVE/);
  });

  await check('the Overview\'s live line counts the completed steps up, without a reload', async () => {
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="live-line"]')?.dataset.steps ?? -1) > 0, null, { timeout: 15000 });
    const a = await liveSteps();
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="live-line"]')?.dataset.steps ?? -1) > n, a, { timeout: 15000 });
    const b = await liveSteps();
    assert.ok(b > a, `${a} -> ${b}`);
    assert.equal(await page.evaluate(() => window.__sameDocument), 1, 'the page was reloaded');
    const line = await page.textContent('[data-testid="live-line"]');
    assert.match(line, /steps completed/);
    assert.match(line, /steps\/s/);
    assert.match(line, /last refresh read \d+(\.\d+)? (B|KB|MB)/, line);
  });

  await check('a zoom of the step chart and the scroll position stay across refreshes', async () => {
    // more than 30 steps: the step chart has a data zoom
    await page.waitForFunction(() => Number(document.querySelector('[data-testid="live-line"]')?.dataset.steps ?? -1) > 40, null, { timeout: 20000 });
    await waitRefreshes(1);
    await page.evaluate(() => {
      const c = window.echarts.getInstanceByDom(document.querySelector('[data-testid="chart-step-breakdown"]'));
      c.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: 5, endValue: 15 });
      window.scrollTo(0, 300);
    });
    const y0 = await page.evaluate(() => window.scrollY);
    await waitRefreshes(2);
    const z = await page.evaluate(() => {
      const c = window.echarts.getInstanceByDom(document.querySelector('[data-testid="chart-step-breakdown"]'));
      const d = c.getOption().dataZoom[0];
      return { startValue: d.startValue, endValue: d.endValue };
    });
    assert.deepEqual(z, { startValue: 5, endValue: 15 });
    assert.ok(y0 > 0, 'the page did not scroll');
    assert.equal(await page.evaluate(() => window.scrollY), y0);
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'live-overview.png'), fullPage: true });

  await check('Operator view: a sort the user set stays set across refreshes', async () => {
    await page.click('[data-testid="nav-operator"]');
    await page.waitForSelector('[data-testid="view-operator"][data-loaded="1"] [data-testid="table-operators"]', { timeout: 20000 });
    await page.click('[data-testid="th-operators-name"]');
    const sortedAsc = async () => page.evaluate(() => {
      const th = document.querySelector('[data-testid="th-operators-name"]');
      const names = [...document.querySelectorAll('[data-testid="table-operators"] tbody tr td:first-child')].map((td) => td.textContent);
      const sorted = [...names].sort((x, y) => x.localeCompare(y, undefined, { numeric: true }));
      return { aria: th.getAttribute('aria-sort'), ok: names.length > 1 && names.join('\n') === sorted.join('\n'), names };
    });
    const before = await sortedAsc();
    assert.equal(before.aria, 'ascending');
    assert.ok(before.ok, before.names.join(', '));
    await waitRefreshes(2);
    const after = await sortedAsc();
    assert.equal(after.aria, 'ascending', 'the sort was lost');
    assert.ok(after.ok, after.names.join(', '));
    assert.equal(await page.evaluate(() => window.__sameDocument), 1, 'the page was reloaded');
  });

  await check('GPU Kernel, Memory, CPU and Data Pipeline views render a live run and refresh it without errors', async () => {
    for (const v of ['kernel', 'memory', 'cpu', 'datapipe']) {
      await page.click(`[data-testid="nav-${v}"]`);
      await page.waitForSelector(`[data-testid="view-${v}"][data-loaded="1"]`, { timeout: 20000, state: 'attached' });
      await waitRefreshes(1);
      assert.equal(await page.$(`[data-testid="view-${v}"] [data-testid="error"]`), null, `${v}: ${await page.textContent(`[data-testid="view-${v}"]`)}`);
      assert.ok(await page.$(`[data-testid="view-${v}"] [data-testid="live-note"]`), `${v}: no live note`);
    }
    // with samples: the CPU view draws them
    await page.click('[data-testid="nav-cpu"]');
    await page.waitForSelector('[data-testid="view-cpu"][data-loaded="1"] [data-testid="chart-cpu"]', { timeout: 20000 });
  });

  await check('a view only the whole trace gives says it comes when the run ends (409)', async () => {
    await page.click('[data-testid="nav-module"]');
    await page.waitForSelector('[data-testid="view-module"][data-loaded="1"] [data-testid="error"]', { timeout: 20000 });
    assert.match(await page.textContent('[data-testid="view-module"] [data-testid="error"]'), /409.*available when the run ends/);
  });

  await check('Trace view: follows the end of the trace while it grows, stays where the user moved it', async () => {
    await page.click('[data-testid="nav-trace"]');
    await page.waitForSelector('[data-testid="view-trace"][data-loaded="1"] [data-testid="trace-live"]', { timeout: 30000 });
    const state = () => page.evaluate(() => ({
      stats: document.querySelector('[data-testid="trace-stats"]').textContent,
      follow: document.querySelector('[data-testid="trace-live"]').dataset.follow,
      v: window.__nnsTrace.visible,
    }));
    const grown = async (stats) => page.waitForFunction((s) => document.querySelector('[data-testid="trace-stats"]')?.textContent !== s, stats, { timeout: 20000 });
    const a = await state();
    assert.equal(a.follow, '1', 'a first view of the whole trace does not follow its end');
    await grown(a.stats);
    const b = await state();
    assert.equal(b.follow, '1');
    assert.ok(b.v.t1 > a.v.t1, `the view did not move with the end: ${JSON.stringify([a.v, b.v])}`);
    assert.ok(Math.abs((b.v.t1 - b.v.t0) - (a.v.t1 - a.v.t0)) < 1e-6 * (a.v.t1 - a.v.t0) + 1, 'the view changed its width');
    // away from the end: it stays
    await page.evaluate((v) => window.__nnsTrace.setView(v.t0, v.t0 + (v.t1 - v.t0) / 4), b.v);
    const c = await state();
    assert.equal(c.follow, '', 'a view away from the end still says it follows');
    await grown(c.stats);
    const d = await state();
    assert.deepEqual(d.v, c.v, 'a view away from the end moved');
    await page.click('[data-testid="trace-live-follow"]');
    assert.equal((await state()).follow, '1', '"Follow the end" did not bring it back');
  });

  await page.click('[data-testid="nav-overview"]');
  await page.waitForSelector('[data-testid="view-overview"][data-loaded="1"] [data-testid="live-line"]', { timeout: 20000 });

  await check('after the program ends the badge goes away and the Overview shows the final documents', async () => {
    prog.kill('SIGTERM');
    const ex = await progExit;
    assert.ok(ex.sig === 'SIGTERM' || ex.code === 143 || ex.code === 0, JSON.stringify(ex));
    await page.waitForSelector('[data-testid="live-badge"]', { state: 'hidden', timeout: 30000 });
    await page.waitForFunction(() => {
      const v = document.querySelector('[data-testid="view-overview"]');
      return v && v.dataset.loaded === '1' && !v.querySelector('[data-testid="live-line"]') && v.querySelector('[data-testid="overview-cards"]');
    }, null, { timeout: 60000 });
    assert.doesNotMatch(await page.textContent('[data-testid="run-select"] option:checked'), /LIVE/);
    assert.equal(await page.evaluate(() => window.__sameDocument), 1, 'the page was reloaded');
    const doc = await runs();
    assert.ok(!doc.runs.find((r) => r.name === run).live, 'the run is still listed live');
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'live-ended.png'), fullPage: true });

  await check('no page errors', async () => assert.deepEqual(errors, []));
} finally {
  prog.kill('SIGKILL');
  await browser.close();
}
console.log(`live: ${T.passed} passed, ${T.failed} failed`);
process.exit(T.failed ? 1 : 0);
