// Browser test of the live Cluster view and the alert badge (issue 24): four ranks of the C
// example (build/examples/mlp, RANK / WORLD_SIZE as tests/e2e/live_ranks.sh launches them) write
// one run directory of the served logdir (the server has --alert 'rank_pct > 20'); rank SLOW
// sleeps DELAY_MS more per step from step FROM on. With the Cluster view of that run open:
//   - the live header ("Live: 4 ranks, window of steps lo..hi") shows;
//   - while the verdict's window holds no slowed step (hi < FROM - 1), no slow rank is named
//     (observed on the page; SKIP when the page opened too late to see such a window);
//   - after the slowdown the slow-rank banner names rank SLOW, without a reload;
//   - the "⚠ N alerts" badge shows, its tooltip and the line under the selectors naming rank
//     SLOW, and the view's alert list does too;
//   - a sort of the ranks table set by the test stays set across the refreshes;
//   - after every rank exited, the view shows the finished cluster (no live header) by itself,
//     and the alert badge stays, until another run is selected;
//   - no page errors.
// One PASS/FAIL/SKIP line per check; exit status 1 on any FAIL.
// env: NNS_URL (a server on NNS_LIVE_DIR, empty at start, --alert 'rank_pct > 20'),
// NNS_LIVE_DIR, NNS_MLP (the example), NNS_SHOTS, NNS_CHROMIUM, NNS_ROOT.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);
const URL0 = process.env.NNS_URL;
const SHOTS = process.env.NNS_SHOTS;
const T = checker();
const { check, skip } = T;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const runs = async () => (await fetch(`${URL0}/api/runs`)).json();

// the job: steps of ~STALL_MS (the loader's stall, a small model: the sleep sets the step time,
// not the 2 shared cores), rank SLOW slowed by DELAY_MS per step from step FROM on
const STEPS = 400;
const FROM = 300;
const STALL_MS = 20;
const DELAY_MS = 60;
const SLOW = 2;
const RUN = 'job';
const runDir = path.join(process.env.NNS_LIVE_DIR, RUN);
fs.mkdirSync(runDir, { recursive: true });

const procs = [];
for (let r = 0; r < 4; r++) {
  const env = { ...process.env, RANK: String(r), WORLD_SIZE: '4', LOCAL_RANK: String(r) };
  for (const k of ['NNS_MLP_DELAY_MS', 'NNS_MLP_DELAY_FROM', 'NNSCOPE_OPTIONS']) delete env[k];
  const args = ['--quiet', '--steps', String(STEPS), '--stall-ms', String(STALL_MS), '--batch', '32', '--in', '64', '--hidden', '64', '--out', runDir];
  if (r === SLOW) args.push('--delay-ms', String(DELAY_MS), '--delay-from-step', String(FROM));
  const p = spawn(process.env.NNS_MLP, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const rec = { p, err: '', exit: null };
  p.stderr.on('data', (d) => { rec.err += d; });
  rec.exit = new Promise((res) => p.on('exit', (code, sig) => res({ code, sig })));
  procs.push(rec);
}
process.on('exit', () => { for (const x of procs) try { x.p.kill('SIGKILL'); } catch { /* gone */ } });

const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));

// how many times the view was swapped in by a live refresh
const refreshes = () => page.evaluate(() => Number(document.querySelector('#content > .view')?.dataset.refreshes ?? 0));
const waitRefreshes = async (n, timeout = 20000) => {
  const r0 = await refreshes();
  await page.waitForFunction((want) => Number(document.querySelector('#content > .view')?.dataset.refreshes ?? 0) >= want, r0 + n, { timeout });
};
// what the live view shows now: the window and the rank the banner names (null: none)
const shown = () => page.evaluate(() => {
  const v = document.querySelector('[data-testid="view-cluster"]');
  const head = v?.querySelector('[data-testid="cluster-live"]');
  const slow = v?.querySelector('[data-testid="cluster-slow-rank"]')?.textContent ?? null;
  return {
    live: !!head,
    hi: head && head.dataset.hi !== '' ? Number(head.dataset.hi) : null,
    slow,
    verdict: v?.querySelector('[data-testid="cluster-live-verdict"]')?.textContent ?? null,
  };
});
const rankIn = (text, rank) => new RegExp(`\\brank ${rank}\\b`).test(text || '');

let worker = null;
const samples = []; // what the page showed, sampled while the job ran
try {
  await check('the job\'s four ranks are listed live in one run', async () => {
    for (let i = 0; i < 200; i++) {
      const doc = await runs().catch(() => null);
      const r = doc?.runs?.find((x) => x.name === RUN);
      if (r && r.live && (r.workers || []).filter((w) => w.live).length === 4) { worker = r.workers[0].name; break; }
      await sleep(100);
    }
    assert.ok(worker, `run ${RUN} not listed with 4 live workers; rank 0 says: ${procs[0].err.slice(0, 300)}`);
  });
  if (!worker) throw new Error('nothing to test: no live job');

  await page.goto(`${URL0}/#view=cluster&run=${encodeURIComponent(RUN)}`);
  await page.evaluate(() => { window.__sameDocument = 1; });

  await check('the live header shows: 4 ranks, and the LIVE badge', async () => {
    await page.waitForSelector('[data-testid="view-cluster"][data-loaded="1"] [data-testid="cluster-live"]', { timeout: 20000 });
    assert.match(await page.textContent('[data-testid="cluster-live"]'), /Live: 4 ranks, (window of steps \d+\.\.\d+|no window of steps yet)/);
    await page.waitForSelector('[data-testid="live-badge"]', { state: 'visible', timeout: 5000 });
    assert.equal(await page.$('[data-testid="view-cluster"] [data-testid="error"]'), null);
    assert.equal(await page.$$eval('[data-testid="table-cluster-live-ranks"] tbody tr', (trs) => trs.length), 4);
  });

  // sample the page until it names a slow rank (or the job is long past the slowdown)
  let named = null;
  await check(`the slow-rank banner names rank ${SLOW} after the slowdown, without a reload`, async () => {
    const t0 = Date.now();
    while (Date.now() - t0 < 60000) {
      const s = await shown();
      samples.push(s);
      if (s.slow !== null) { named = s; break; }
      await sleep(250);
    }
    assert.ok(named, `no slow rank named; last verdict: ${samples.at(-1)?.verdict}`);
    assert.equal(named.slow, `Slow rank: ${SLOW}`);
    assert.ok(named.hi === null || named.hi >= FROM - 1, `a slow rank named over a window ending at step ${named.hi}, before the slowdown (step ${FROM})`);
    assert.match(await page.textContent('[data-testid="view-cluster"] .banner-warn'), /% above the ranks' mean step time/);
    assert.match(named.verdict, new RegExp(`rank ${SLOW}\\b`));
    assert.equal(await page.evaluate(() => window.__sameDocument), 1, 'the page was reloaded');
    // the table marks it, the chart outlines it
    const hl = await page.$$eval('[data-testid="table-cluster-live-ranks"] tbody tr.hl td:first-child', (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(hl, [String(SLOW)]);
    const border = await page.evaluate(() => {
      const o = window.echarts.getInstanceByDom(document.querySelector('[data-testid="chart-cluster-live"]')).getOption();
      return o.series[0].data.map((x, i) => [o.xAxis[0].data[i], x?.itemStyle?.borderWidth || 0]).filter((x) => x[1] > 0).map((x) => x[0]);
    });
    assert.deepEqual(border, [`rank ${SLOW}`]);
  });

  const before = samples.filter((s) => s.live && s.hi !== null && s.hi < FROM - 1);
  if (!before.length) skip('no slow rank is named before the slowdown', 'the page saw no verdict window before the slowed steps (it opened too late)');
  else {
    await check(`no slow rank is named while the window holds no slowed step (${before.length} samples)`, async () => {
      const bad = before.filter((s) => s.slow !== null);
      assert.deepEqual(bad, []);
    });
  }

  await check(`the alert badge shows, naming rank ${SLOW} (tooltip, the line under the selectors, the view's list)`, async () => {
    await page.waitForSelector('[data-testid="live-alerts"]', { state: 'visible', timeout: 20000 });
    assert.match(await page.textContent('[data-testid="live-alerts"]'), /^⚠ \d+ alerts?$/);
    const title = await page.getAttribute('[data-testid="live-alerts"]', 'title');
    assert.ok(rankIn(title, SLOW), title);
    assert.match(title, /rank_pct > 20/);
    const line = await page.textContent('[data-testid="live-alert-last"]');
    assert.ok(await page.isVisible('[data-testid="live-alert-last"]'));
    assert.ok(rankIn(line, SLOW), line);
    await page.waitForSelector('[data-testid="cluster-alerts"] [data-testid="cluster-alert-hit"]', { timeout: 10000 });
    const hits = await page.$$eval('[data-testid="cluster-alert-hit"]', (lis) => lis.map((li) => li.textContent));
    assert.ok(hits.length >= 1 && hits.length <= 20, String(hits.length));
    assert.ok(rankIn(hits[0], SLOW), hits[0]);
    // the server's own account agrees: a rank_pct hit naming rank SLOW
    const doc = await (await fetch(`${URL0}/api/live_alerts?run=${RUN}`)).json();
    assert.ok(doc.alerts.hits.some((x) => x.text === 'rank_pct > 20' && x.rank === SLOW && x.value > 20), JSON.stringify(doc.alerts.hits.slice(0, 3)));
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'live-cluster.png'), fullPage: true });

  await check('a sort of the ranks table set by the test stays set across refreshes', async () => {
    await page.click('[data-testid="th-cluster-live-ranks-window_ms"]');
    const sorted = () => page.evaluate(() => {
      const th = document.querySelector('[data-testid="th-cluster-live-ranks-window_ms"]');
      const idx = [...th.parentElement.children].indexOf(th);
      const vals = [...document.querySelectorAll('[data-testid="table-cluster-live-ranks"] tbody tr')]
        .map((tr) => tr.children[idx].textContent.replace(/,/g, '')).map((t) => (t === '–' ? null : Number(t)));
      // descending, unknown values last
      const known = vals.filter((v) => v !== null);
      const ok = vals.length === 4 && known.every((v, i) => i === 0 || known[i - 1] >= v) && vals.slice(known.length).every((v) => v === null);
      return { aria: th.getAttribute('aria-sort'), ok, vals };
    });
    const a = await sorted();
    assert.equal(a.aria, 'descending');
    assert.ok(a.ok, JSON.stringify(a.vals));
    await waitRefreshes(2);
    const b = await sorted();
    assert.equal(b.aria, 'descending', 'the sort was lost');
    assert.ok(b.ok, JSON.stringify(b.vals));
    assert.equal(await page.$('[data-testid="th-cluster-live-ranks-rank"][aria-sort="ascending"]'), null, 'back to the default sort');
  });

  await check('after every rank exited the view shows the finished cluster by itself; the alert badge stays', async () => {
    const ex = await Promise.all(procs.map((x) => x.exit));
    assert.ok(ex.every((e) => e.code === 0), JSON.stringify(ex));
    await page.waitForFunction(() => {
      const v = document.querySelector('[data-testid="view-cluster"]');
      return v && v.dataset.loaded === '1' && !v.querySelector('[data-testid="cluster-live"]') && v.querySelector('[data-testid="table-cluster-ranks"]');
    }, null, { timeout: 90000 });
    assert.equal(await page.$$eval('[data-testid="table-cluster-ranks"] tbody tr', (trs) => trs.length), 4);
    await page.waitForSelector('[data-testid="live-badge"]', { state: 'hidden', timeout: 10000 });
    assert.ok(await page.isVisible('[data-testid="live-alerts"]'), 'the alert badge went with the run\'s end');
    assert.match(await page.textContent('[data-testid="live-alerts"]'), /^⚠ \d+ alerts?$/);
    assert.equal(await page.evaluate(() => window.__sameDocument), 1, 'the page was reloaded');
    const doc = await runs();
    assert.ok(!doc.runs.find((r) => r.name === RUN).live, 'the run is still listed live');
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'live-cluster-ended.png'), fullPage: true });

  await check('selecting another run takes the alert badge and its line away', async () => {
    // another run: a copy of rank 0's finished trace
    const src = fs.readdirSync(runDir).find((f) => f.endsWith('.nnst'));
    fs.mkdirSync(path.join(process.env.NNS_LIVE_DIR, 'other'), { recursive: true });
    fs.copyFileSync(path.join(runDir, src), path.join(process.env.NNS_LIVE_DIR, 'other', src));
    await page.waitForSelector('[data-testid="run-select"] option[value="other"]', { state: 'attached', timeout: 20000 });
    await page.selectOption('[data-testid="run-select"]', 'other');
    await page.waitForSelector('[data-testid="live-alerts"]', { state: 'hidden', timeout: 5000 });
    assert.ok(!(await page.isVisible('[data-testid="live-alert-last"]')), 'the alert line stayed');
  });

  await check('no page errors', async () => assert.deepEqual(errors, []));
} finally {
  for (const x of procs) x.p.kill('SIGKILL');
  await browser.close();
}
console.log(`live_cluster: ${T.passed} passed, ${T.failed} failed`);
process.exit(T.failed ? 1 : 0);
