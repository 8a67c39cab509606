// Browser tests of the nnscope web UI (tests/browser/run.sh starts the servers).
// One PASS/FAIL/SKIP line per check; exit status 1 on any FAIL.
// env: NNS_URL, NNS_URL_EMPTY, NNS_SHOTS, NNS_KINETO (set when the shared
// Kineto samples are in the logdir), NNS_KINETO_DIR, NNS_CHROMIUM, NNS_ROOT,
// NNS_CONF_DIR (the tb_plugin conformance cases: the expected values of the
// dist/ and memory/ runs that tests/browser/gen_runs.mjs wrote).
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';
import { traceChecks, traceSelectionChecks } from './trace_checks.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);

const URL0 = process.env.NNS_URL;
const URL_EMPTY = process.env.NNS_URL_EMPTY;
const SHOTS = process.env.NNS_SHOTS;
const HAVE_KINETO = process.env.NNS_KINETO === '1';
const LOAD_MS = 120000;

const T = checker();
const { check, skip } = T;
// what tests/browser/trace_checks.mjs's checks use of this file
const TC = { check, api, shoot, loadMs: LOAD_MS };

/* ---------------------------------------------------------------- API */

async function api(p, params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const url = `${URL0}${p}${q.toString() ? '?' + q : ''}`;
  for (let i = 0; i < 600; i++) {
    const r = await fetch(url);
    if (r.status === 202) { await r.arrayBuffer(); await new Promise((res) => setTimeout(res, 200)); continue; }
    const body = await r.json();
    if (!r.ok) throw new Error(`${url}: ${r.status} ${body.error || ''}`);
    return body;
  }
  throw new Error(`${url}: still analysing after 120 s`);
}

/* ---------------------------------------------------------------- pages */

const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });

function hashOf(view, sel, extra) {
  const q = new URLSearchParams();
  q.set('view', view);
  if (sel.run) q.set('run', sel.run);
  if (sel.worker) q.set('worker', sel.worker);
  if (sel.span) q.set('span', sel.span);
  for (const [k, v] of Object.entries(extra || {})) q.set(k, v);
  return '#' + q.toString();
}

/** Opens a fresh page at view/selection, waits until the view root is loaded. */
async function open(view, sel, { base = URL0, extra } = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  try {
    await page.goto(`${base}/${hashOf(view, sel, extra)}`);
    await waitLoaded(page, view);
  } catch (e) {
    errors.push(`view-${view} did not load: ${String(e.message).split('\n')[0]}`);
  }
  return { page, errors };
}

async function waitLoaded(page, view) {
  await page.waitForSelector(`[data-testid="view-${view}"][data-loaded="1"]`, { timeout: LOAD_MS, state: 'attached' });
}

const inView = (view, testid) => `[data-testid="view-${view}"] [data-testid="${testid}"]`;

async function rowCount(page, table) {
  return page.$$eval(`[data-testid="table-${table}"] tbody tr:not(.tbl-none)`, (trs) => trs.length);
}
/** the column titles of a table, in order */
async function heads(page, table) {
  return page.$$eval(`[data-testid="table-${table}"] thead th .th-label`, (ths) => ths.map((t) => t.textContent));
}
/** a table's column titles are the ones the page has always shown (now from /api/schema) */
async function assertHeads(page, table, want) {
  assert.deepEqual(await heads(page, table), want, `${table} column titles`);
}
/** the cells of the first `n` body rows of a table: [[text...]] */
async function cells(page, table, n = 1000) {
  return page.$$eval(`[data-testid="table-${table}"] tbody tr:not(.tbl-none)`, (trs, n) =>
    trs.slice(0, n).map((tr) => [...tr.children].map((td) => td.textContent.trim())), n);
}
async function colIndex(page, table, key) {
  const ids = await page.$$eval(`[data-testid="table-${table}"] thead th`, (ths) => ths.map((t) => t.dataset.testid));
  const i = ids.indexOf(`th-${table}-${key}`);
  assert.ok(i >= 0, `column th-${table}-${key} not in ${ids.join(',')}`);
  return i;
}
/** raw numeric values (td title) of a column over the visible rows */
async function colValues(page, table, key) {
  const i = await colIndex(page, table, key);
  return page.$$eval(`[data-testid="table-${table}"] tbody tr:not(.tbl-none)`, (trs, i) =>
    trs.map((tr) => { const td = tr.children[i]; const v = td.title !== '' ? Number(td.title) : NaN; return Number.isNaN(v) ? null : v; }), i);
}

/** The ECharts instance in a chart box has at least one series with data. */
async function assertChart(page, testid, minPoints = 1) {
  const info = await page.$eval(`[data-testid="${testid}"]`, (el) => {
    const c = el.querySelector('canvas');
    const inst = window.echarts && window.echarts.getInstanceByDom(el);
    const opt = inst ? inst.getOption() : null;
    const pts = opt ? (opt.series || []).reduce((s, x) => s + ((x.data || []).length), 0) : 0;
    return { canvas: !!c && c.width > 0 && c.height > 0, inst: !!inst, series: opt ? (opt.series || []).length : 0, pts };
  }).catch(() => null);
  assert.ok(info, `chart ${testid} not found`);
  assert.ok(info.canvas, `chart ${testid} has no drawn canvas`);
  assert.ok(info.inst && info.series > 0, `chart ${testid} has no series`);
  assert.ok(info.pts >= minPoints, `chart ${testid} has ${info.pts} data points, want >= ${minPoints}`);
  return info;
}

async function assertEmptyState(page, view) {
  const txt = await page.$eval(inView(view, 'empty-state'), (e) => e.textContent.trim()).catch(() => null);
  assert.ok(txt !== null, `view-${view} shows neither data nor an empty-state`);
  assert.ok(txt.length > 20, `empty-state of ${view} has no explanation: "${txt}"`);
  return txt;
}

async function assertNoErrorBox(page, view) {
  const err = await page.$eval(inView(view, 'error'), (e) => e.textContent.trim()).catch(() => null);
  assert.equal(err, null, `view-${view} shows an error: ${err}`);
}

async function shoot(page, view, run) {
  const file = path.join(SHOTS, `${view}-${run.replace(/[^A-Za-z0-9_.-]/g, '_')}.png`);
  await page.screenshot({ path: file, fullPage: true });
}

/** the page had no uncaught errors / console errors; closes it */
async function finish(name, o, { allowResourceErrors = false } = {}) {
  await check(`${name}: no page or console errors`, async () => {
    const errs = o.errors.filter((e) => !(allowResourceErrors && /Failed to load resource|^console: (Error|ApiError)/.test(e)));
    assert.deepEqual(errs, []);
  });
  await o.page.close();
}

/* ------------------------------------- displayed values, conformance cases */

/** a displayed duration ("1.169 ms", "75 µs", "0") in µs */
function parseUs(s) {
  const t = String(s).trim().replace(/,/g, '');
  if (t === '0') return 0;
  const m = /^(-?[\d.]+)\s*(ns|µs|us|ms|s)$/.exec(t);
  assert.ok(m, `"${s}" is not a duration`);
  return Number(m[1]) * { ns: 1e-3, 'µs': 1, us: 1, ms: 1e3, s: 1e6 }[m[2]];
}
/** a displayed size ("207.5 KB", "104 B") in bytes */
function parseBytes(s) {
  const m = /^(-?[\d.]+)\s*(B|KB|MB|GB|TB)$/.exec(String(s).trim().replace(/,/g, ''));
  assert.ok(m, `"${s}" is not a size`);
  return Number(m[1]) * 1024 ** ['B', 'KB', 'MB', 'GB', 'TB'].indexOf(m[2]);
}
/**
 * A table cell against an expected integer from tb_plugin (which truncates
 * its averages with int()): the raw value (td title) truncates to it, the
 * displayed text is it up to the display rounding.
 */
function assertCell(cell, want, kind, what) {
  assert.ok(cell.raw !== null && cell.raw !== undefined, `${what}: no raw value (text "${cell.text}")`);
  assert.ok(Math.trunc(cell.raw + 1e-9) === want || Math.abs(cell.raw - want) < 1e-6,
    `${what}: value ${cell.raw}, tb_plugin expects ${want}`);
  const shown = kind === 'us' ? parseUs(cell.text) : kind === 'bytes' ? parseBytes(cell.text) : Number(cell.text.replace(/,/g, ''));
  assert.ok(Math.abs(shown - want) <= Math.abs(want) * 0.006 + 1, `${what}: shows "${cell.text}", tb_plugin expects ${want}`);
}
/** the rows of a table as [{key: {text, raw}}] for the given column keys */
async function tableRows(page, table, keys) {
  const idx = {};
  for (const k of keys) idx[k] = await colIndex(page, table, k);
  return page.$$eval(`[data-testid="table-${table}"] tbody tr:not(.tbl-none)`, (trs, idx) => trs.map((tr) => {
    const o = {};
    for (const [k, i] of Object.entries(idx)) {
      const td = tr.children[i];
      const raw = td.title !== '' && !Number.isNaN(Number(td.title)) ? Number(td.title) : null;
      o[k] = { text: td.textContent.trim(), raw };
    }
    return o;
  }), idx);
}
const CONF_DIR = process.env.NNS_CONF_DIR || '';
/** a tb_plugin conformance case (JSON), or null when it is absent */
async function loadCase(name) {
  const fs = await import('node:fs');
  const f = path.join(CONF_DIR, name);
  return CONF_DIR && fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null;
}

/* ------------------------------------------------------------- the checks */

const R0 = { run: 'resnet50_num_workers_0', worker: 'worker0', span: '1' };
const R0s2 = { ...R0, span: '2' };
const R4 = { run: 'resnet50_num_workers_4', worker: 'worker0', span: '1' };
const MODERN = { run: 'modern', worker: 'after_fix_trace' };
const runs = await api('/api/runs');
const mlpRun = runs.runs.find((r) => r.name === 'mlp');
const MLP = { run: 'mlp', worker: mlpRun ? mlpRun.workers[0].name : '' };
const DAMAGED = { run: 'damaged', worker: 'truncated' };

async function overviewChecks(o, sel, label) {
  const doc = await api('/api/view', { ...sel, view: 'overview' });
  const steps = doc.steps || [];
  await check(`overview ${label}: step table matches /api/view (${steps.length} steps)`, async () => {
    assert.ok(steps.length > 0, 'API has no steps');
    assert.equal(await rowCount(o.page, 'steps'), Math.min(steps.length, 50));
    const c = await cells(o.page, 'steps');
    assert.equal(c[0][0], String(steps[0].name));
    assert.equal(c[Math.min(steps.length, 50) - 1][0], String(steps[Math.min(steps.length, 50) - 1].name));
  });
  await check(`overview ${label}: step-breakdown chart has one bar per step`, async () => {
    const info = await assertChart(o.page, 'chart-step-breakdown');
    assert.ok(info.pts >= steps.length, `${info.pts} points < ${steps.length} steps`);
    await assertChart(o.page, 'chart-step-pie');
  });
  return doc;
}


if (!HAVE_KINETO) {
  skip('ResNet-50 views, span/run selection, modern trace', `${process.env.NNS_KINETO_DIR || '../shared/data/kineto'} not found`);
} else {
  const L = 'resnet50_num_workers_0';

  // A span nobody opened yet (resnet50_num_workers_4 span 2): the page shows
  // the analysis progress, then the view.
  await check('first open of a span: its requests ask to be held while it loads, a 202 shows the progress bar, then the view', async () => {
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__sawProgress = '';
      const look = () => {
        const p = document.querySelector('[data-testid="progress"]');
        if (p && !p.hidden && p.textContent.trim()) window.__sawProgress = p.textContent.trim();
      };
      document.addEventListener('DOMContentLoaded', () =>
        new MutationObserver(look).observe(document.body, { subtree: true, attributes: true, childList: true, characterData: true }));
    });
    const waits = [];
    let n202 = 0;
    page.on('request', (r) => { if (r.url().includes('/api/view?')) waits.push(r.headers()['x-nnscope-wait']); });
    page.on('response', (r) => { if (r.url().includes('/api/view?') && r.status() === 202) n202++; });
    await page.goto(`${URL0}/${hashOf('overview', { ...R4, span: '2' })}`);
    await waitLoaded(page, 'overview');
    const saw = await page.evaluate(() => window.__sawProgress);
    assert.ok(waits.length > 0 && waits.every((w) => w === '300'), `requests without X-Nnscope-Wait: 300 (${JSON.stringify(waits)})`);
    // the server held the first request (hold.h): a span that loads within
    // 300 ms shows no progress bar at all; a slower one shows it for each 202
    if (n202) assert.ok(/analys|pars|queued|index/i.test(saw), `${n202} answers 202 and no progress text seen (got "${saw}")`);
    else assert.equal(saw, '', 'a progress bar with no 202 answer');
    assert.ok(await rowCount(page, 'steps') > 0, 'no steps after the progress');
    assert.equal(await page.evaluate(() => document.querySelector('[data-testid="progress"]').hidden), true, 'progress bar still shown');
    await page.close();
  });

  // Overview
  {
    const o = await open('overview', R0);
    await overviewChecks(o, R0, L);
    await assertNoErrorBox(o.page, 'overview');
    await shoot(o.page, 'overview', L);
    await finish(`overview ${L}`, o);
  }

  // Operator
  {
    const o = await open('operator', R0);
    const doc = await api('/api/view', { ...R0, view: 'operators' });
    await check(`operator ${L}: table rows`, async () => {
      const n = await rowCount(o.page, 'operators');
      assert.ok(n > 0, 'no rows');
      assert.equal(n, Math.min(50, doc.by_name.length));
    });
    await check(`operator ${L}: column titles are /api/schema's page titles`, async () => {
      const schema = await api('/api/schema');
      const page = Object.fromEntries(schema.tables.operators.columns.map((c) => [c.name, c.page]));
      const heads = await o.page.$$eval('[data-testid="table-operators"] thead th',
        (ths) => ths.map((t) => [t.dataset.testid.replace('th-operators-', ''), t.querySelector('.th-label').textContent]));
      assert.ok(heads.length >= 5, `${heads.length} columns`);
      for (const [col, text] of heads) assert.equal(text, page[col], `column ${col}`);
      // the titles the page has always shown
      for (const t of ['Name', 'Calls', 'Host Self', 'Host Total']) assert.ok(heads.some((x) => x[1] === t), `no column "${t}"`);
    });
    await check(`operator ${L}: sort by a numeric column (desc, then asc)`, async () => {
      await o.page.click('[data-testid="th-operators-host_total_us"]');
      let v = await colValues(o.page, 'operators', 'host_total_us');
      assert.ok(v.length >= 2 && v[0] !== null && v[1] !== null, `values ${v.slice(0, 3)}`);
      assert.ok(v.every((x, i) => i === 0 || x <= v[i - 1]), `not descending: ${v.slice(0, 5)}`);
      const maxApi = Math.max(...doc.by_name.map((r) => r.host_total_us));
      assert.ok(Math.abs(v[0] - maxApi) <= 1e-6 * Math.abs(maxApi) + 1e-9, `first ${v[0]} != API max ${maxApi}`);
      await o.page.click('[data-testid="th-operators-host_total_us"]');
      v = await colValues(o.page, 'operators', 'host_total_us');
      assert.ok(v[0] <= v[1], `ascending: ${v[0]} > ${v[1]}`);
      assert.ok(v.every((x, i) => i === 0 || x >= v[i - 1]), `not ascending: ${v.slice(0, 5)}`);
    });
    await check(`operator ${L}: search "conv" filters the rows`, async () => {
      await o.page.fill('[data-testid="search-operators"]', 'conv');
      const nameI = await colIndex(o.page, 'operators', 'name');
      const rows = await cells(o.page, 'operators');
      const want = doc.by_name.filter((r) => r.name.toLowerCase().includes('conv')).length;
      assert.ok(rows.length > 0, 'no row contains conv');
      assert.equal(rows.length, Math.min(50, want));
      for (const r of rows) assert.ok(r[nameI].toLowerCase().includes('conv'), `row "${r[nameI]}" has no conv`);
      await o.page.fill('[data-testid="search-operators"]', '');
    });
    await check(`operator ${L}: group by name + input shape`, async () => {
      await o.page.selectOption('[data-testid="op-group"]', 'shape');
      await o.page.waitForSelector('[data-testid="th-operators-input_shape"]', { timeout: 5000 });
      const n = await rowCount(o.page, 'operators');
      assert.equal(n, Math.min(50, (doc.by_name_shape || []).length));
      const shapes = await colIndex(o.page, 'operators', 'input_shape');
      const c = await cells(o.page, 'operators');
      assert.ok(c.some((r) => /\[/.test(r[shapes])), 'no input shape shown');
      assert.match(await o.page.evaluate(() => location.hash), /group=shape/);
    });
    await o.page.selectOption('[data-testid="op-group"]', 'name');
    await shoot(o.page, 'operator', L);
    await finish(`operator ${L}`, o);
  }

  // GPU Kernel
  {
    const o = await open('kernel', R0);
    const doc = await api('/api/view', { ...R0, view: 'kernels' });
    await check(`kernel ${L}: kernel table, kernel pie and tensor-core pie`, async () => {
      assert.equal(await rowCount(o.page, 'kernels'), Math.min(50, doc.by_name.length));
      const c = await cells(o.page, 'kernels', 1);
      const top = [...doc.by_name].sort((a, b) => b.total_us - a.total_us)[0];
      assert.equal(c[0][0], top.name);
      await assertChart(o.page, 'chart-kernel-pie', 2);
      await assertChart(o.page, 'chart-tc-pie', 2);
    });
    await shoot(o.page, 'kernel', L);
    await finish(`kernel ${L}`, o);
  }

  await check('trace first open: web/boot.js asks for the runs before the modules and the meta once (the view takes its answer), held; the chart library waits for the first draw', async () => {
    const page = await context.newPage();
    const metas = [];
    const order = [];
    let meta202 = 0;
    page.on('request', (r) => { if (r.url().includes('/api/trace/meta?')) metas.push({ url: r.url(), wait: r.headers()['x-nnscope-wait'] }); });
    page.on('request', (r) => { if (/\/api\/runs$|\/static\/(views|trace|lib)\//.test(r.url())) order.push(new URL(r.url()).pathname); });
    page.on('response', (r) => { if (r.url().includes('/api/trace/meta?') && r.status() === 202) meta202++; });
    await page.goto(`${URL0}/${hashOf('trace', R0s2)}`);
    await waitLoaded(page, 'trace');
    await page.waitForFunction(() => performance.getEntriesByName('nns-trace-first-draw').length > 0, null, { timeout: LOAD_MS });
    assert.ok(metas.length >= 1, 'no /api/trace/meta request');
    assert.ok(metas.every((m) => m.wait === '300'), `a meta request without X-Nnscope-Wait: 300: ${JSON.stringify(metas)}`);
    assert.ok(metas.every((m) => new URL(m.url).searchParams.get('span') === '2'), `meta of another span: ${metas.map((m) => m.url)}`);
    // every request after the first follows a 202: boot's answer was taken,
    // not asked for again
    assert.equal(metas.length, meta202 + 1, `${metas.length} meta requests for ${meta202} answers 202`);
    // the browser sends 6 requests at a time: the runs (and so the meta,
    // and the server's read of the trace) must not queue behind 12 modules
    assert.equal(order[0], '/api/runs', `requests in this order: ${order.join(' ')}`);
    assert.ok(order.includes('/static/views/trace.js'), `the Trace view's module was not preloaded: ${order.join(' ')}`);
    const t = await page.evaluate(() => ({
      draw: performance.getEntriesByName('nns-trace-first-draw')[0].startTime,
      charts: performance.getEntriesByType('resource').filter((e) => e.name.includes('/static/vendor/echarts')).map((e) => e.startTime),
    }));
    assert.ok(t.charts.every((at) => at >= t.draw), `the chart library was fetched at ${t.charts} ms, before the first draw at ${t.draw} ms`);
    await page.close();
  });

  // Trace
  {
    const o = await open('trace', R0);
    await traceChecks(TC, o, R0, L, { interact: true });
    await check(`trace ${L}: first-draw performance mark`, async () => {
      const n = await o.page.evaluate(() => performance.getEntriesByName('nns-trace-first-draw').length);
      assert.ok(n >= 1, 'no nns-trace-first-draw mark');
    });
    await shoot(o.page, 'trace', L);
    await traceSelectionChecks(TC, o, R0, L);
    await finish(`trace ${L}`, o);
  }

  // Memory
  {
    const o = await open('memory', R0);
    const doc = await api('/api/view', { ...R0, view: 'memory' });
    await check(`memory ${L}: memory curve and statistics`, async () => {
      const devs = Object.keys(doc.devices || {});
      assert.ok(devs.length > 0, 'API has no memory devices');
      const dev = await o.page.$eval('[data-testid="memory-device-select"]', (s) => s.value);
      const d = doc.devices[dev];
      assert.ok(d, `device ${dev} not in the API answer`);
      // this (PyTorch 1.8) trace has no allocator totals: a curve only when the API has one
      if ((d.curve || []).length > 1) await assertChart(o.page, 'chart-memory-curve', 2);
      else assert.equal(await o.page.$$eval('[data-testid="chart-memory-curve"]', (e) => e.length), 0, 'curve drawn without data');
      assert.equal(await rowCount(o.page, 'memory-stats'), Math.min(50, (d.ops || []).length), 'memory-stats rows != API ops');
      assert.ok((d.ops || []).length > 0, 'API has no memory ops');
    });
    await shoot(o.page, 'memory', L);
    await finish(`memory ${L}`, o);
  }

  // Distributed (one worker: explanation), Module (no module tree: explanation)
  for (const view of ['distributed', 'module']) {
    const o = await open(view, R0);
    await check(`${view} ${L}: empty-state explains why there is no data`, async () => {
      if (view === 'module') {
        const doc = await api('/api/view', { ...R0, view: 'modules' });
        assert.equal((doc.modules || []).length, 0, 'API has modules but the test expects none');
      }
      await assertEmptyState(o.page, view);
      await assertNoErrorBox(o.page, view);
    });
    await shoot(o.page, view, L);
    await finish(`${view} ${L}`, o);
  }

  // Step Trace
  {
    const o = await open('steptrace', R0);
    const doc = await api('/api/view', { ...R0, view: 'steptrace' });
    await check(`steptrace ${L}: table and chart match /api/view`, async () => {
      assert.ok(doc.steps.length > 0);
      assert.equal(await rowCount(o.page, 'steptrace'), Math.min(50, doc.steps.length));
      assert.equal((await cells(o.page, 'steptrace', 1))[0][0], String(doc.steps[0].name));
      await assertChart(o.page, 'chart-steptrace', doc.steps.length);
    });
    await shoot(o.page, 'steptrace', L);
    await finish(`steptrace ${L}`, o);
  }

  // Data Pipeline (a Kineto trace has no queues), CPU (no samples)
  {
    const o = await open('datapipe', R0);
    await check(`datapipe ${L}: verdict shown, empty-state for queues`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'datapipe' });
      assert.ok(!(doc.queues || []).length);
      const v = await o.page.$eval(inView('datapipe', 'datapipe-verdict'), (e) => e.textContent.trim());
      assert.ok(v.length > 0, 'empty verdict');
      await assertEmptyState(o.page, 'datapipe');
    });
    await shoot(o.page, 'datapipe', L);
    await finish(`datapipe ${L}`, o);
  }
  {
    const o = await open('cpu', R0);
    await check(`cpu ${L}: empty-state explains the missing samples`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'cpu' });
      assert.equal(doc.available, false);
      await assertEmptyState(o.page, 'cpu');
    });
    await shoot(o.page, 'cpu', L);
    await finish(`cpu ${L}`, o);
  }

  // HTA tab: each panel's tables hold the API's rows, charts are drawn
  {
    const o = await open('hta', R0);
    await check(`hta ${L}: temporal breakdown table and chart match /api/view`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'temporal' });
      assert.ok(doc.devices.length > 0, 'API: no devices');
      const d = doc.devices[0];
      assert.ok(Math.abs(d.compute_us + d.non_compute_us + d.idle_us - d.total_us) < 1, 'API parts do not sum to total');
      await o.page.waitForSelector(inView('hta', 'table-hta-temporal'), { timeout: LOAD_MS });
      assert.equal(await rowCount(o.page, 'hta-temporal'), doc.devices.length);
      await assertChart(o.page, 'hta-temporal-chart', 1);
    });
    await check(`hta ${L}: idle time per stream, queue length and bandwidth`, async () => {
      const idle = await api('/api/view', { ...R0, view: 'idle' });
      const queue = await api('/api/view', { ...R0, view: 'queue' });
      assert.equal(await rowCount(o.page, 'hta-idle'), idle.streams.length);
      assert.equal(await rowCount(o.page, 'hta-queue'), queue.streams.length);
      await assertChart(o.page, 'hta-idle-chart', 1);
      await assertChart(o.page, 'hta-queue-chart', 2);
      await assertChart(o.page, 'hta-membw-chart', 1);
      await assertHeads(o.page, 'hta-idle', ['Stream', 'Ops', 'Idle', 'Host Wait', 'Kernel Wait', 'Other',
        'Host Wait Gaps', 'Host Wait p50', 'Host Wait Max', 'Other Gaps', 'Other p50', 'Other Max']);
      await assertHeads(o.page, 'hta-queue', ['Stream', 'Launches', 'Mean', 'Std', 'Min', 'p25', 'p50', 'p75', 'Max', 'At Max', 'At Max %']);
      await assertHeads(o.page, 'hta-membw', ['Kind', 'Ops', 'Bytes', 'Time', 'Bytes / Time', 'Per-op Mean', 'Per-op Max', 'Series Mean', 'Series p50', 'Peak']);
    });
    await check(`hta ${L}: kernel launch delay histogram, scatter and outlier table`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'launches' });
      assert.ok(doc.counts.launch_delay_outliers > 0, 'API: no long-delay launches');
      await o.page.waitForSelector(inView('hta', 'hta-launch-hist'), { timeout: LOAD_MS });
      await assertChart(o.page, 'hta-launch-hist', 2);
      await assertChart(o.page, 'hta-launch-scatter', 2);
      assert.ok(await rowCount(o.page, 'hta-launch-outliers') > 0, 'no outlier rows');
      await assertHeads(o.page, 'hta-launch-outliers', ['Kernel', 'Operator', 'Launch', 'At', 'CPU', 'GPU', 'Delay', 'Start delay']);
    });
    await check(`hta ${L}: kernel sequences table`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'sequences' });
      assert.ok(doc.ops.length > 0, 'API: no operators with sequences');
      assert.ok(await rowCount(o.page, 'hta-sequences') > 0, 'no sequence rows');
      await assertHeads(o.page, 'hta-sequences', ['Operator', 'Kernels', 'Length', 'Count', 'Calls', 'GPU time', 'CPU time']);
      const annos = await api('/api/view', { ...R0, view: 'annotations' });
      if ((annos.gpu || []).length) {
        await assertHeads(o.page, 'hta-anno-kernels', ['Annotation', 'Kernel', 'Count', 'Time', 'Of annotation kernels']);
      }
    });
    await check(`hta ${L}: critical path breakdown and segments of the API's step`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'critical_path' });
      assert.ok(doc.ok && doc.total_us > 0, 'API: no critical path');
      const sum = Object.values(doc.breakdown).reduce((a, b) => a + (typeof b === 'number' ? b : (b.us || 0)), 0);
      assert.ok(sum > 0, 'API: empty breakdown');
      await assertChart(o.page, 'hta-critpath-chart', 1);
      assert.ok(await rowCount(o.page, 'hta-critpath-segments') > 0, 'no segment rows');
      await assertHeads(o.page, 'hta-critpath-segments', ['#', 'At', 'Edge', 'Class', 'Event', 'Kind', 'Thread / stream', 'Weight', 'Span']);
      await assertHeads(o.page, 'hta-critpath-top', ['Event', 'Class', 'Edges', 'Time on path', 'Share']);
      assert.ok(await o.page.$(inView('hta', 'hta-critpath-open-trace')), 'no link to the Trace view');
    });
    await shoot(o.page, 'hta', L);
    await finish(`hta ${L}`, o);
  }
  {
    const o = await open('overview', R0);
    await check(`overview ${L}: says how launches were attributed to operators`, async () => {
      const doc = await api('/api/view', { ...R0, view: 'overview' });
      const a = doc.diagnostics.attribution;
      const txt = await o.page.$eval(inView('overview', 'attribution'), (e) => e.textContent);
      assert.ok(txt.includes(a.launches.toLocaleString('en-US')) || txt.includes(String(a.launches)), txt);
      assert.ok(/by external id/.test(txt), txt);
    });
    await finish(`overview attribution ${L}`, o);
  }

  // Diff: span 1 vs span 2 of the same worker
  {
    const o = await open('diff', R0, { extra: { run2: R0.run, worker2: R0.worker, span2: '2' } });
    await check(`diff ${L}: span 1 vs span 2 operator deltas`, async () => {
      const doc = await api('/api/diff', { ...R0, run2: R0.run, worker2: R0.worker, span2: '2' });
      assert.ok(doc, 'no diff');
      const n = await rowCount(o.page, 'diff');
      assert.ok(n > 0, 'diff table empty');
      const dev = doc.ops.some((r) => r.base_device_total_us || r.exp_device_total_us)
        ? ['Base Device Total', 'Exp Device Total', 'Δ Device Total', 'Δ Device Self'] : [];
      await assertHeads(o.page, 'diff', ['Operator', 'Base Calls', 'Exp Calls', 'Δ Calls', ...dev,
        'Base Host Total', 'Exp Host Total', 'Δ Host Total', 'Δ Host Self']);
      if (doc.trace_diff) {
        await assertHeads(o.page, 'diff-hta-kernels', ['Kernel', 'Change', 'Base Count', 'Exp Count', 'Δ Count',
          'Base Duration', 'Exp Duration', 'Δ Duration']);
      }
      await assertChart(o.page, 'chart-diff');
      await assertNoErrorBox(o.page, 'diff');
    });
    await shoot(o.page, 'diff', L);
    await finish(`diff ${L}`, o);
  }

  // span and run selection
  {
    const o = await open('overview', R0);
    const s2 = await api('/api/view', { ...R0s2, view: 'overview' });
    const s1 = await api('/api/view', { ...R0, view: 'overview' });
    await check('span-select 1 -> 2 shows the steps of span 2', async () => {
      assert.notEqual(s1.steps[0].name, s2.steps[0].name, 'spans 1 and 2 have the same first step: test data changed');
      assert.equal(await o.page.$eval('[data-testid="span-select"]', (s) => s.value), '1');
      await o.page.selectOption('[data-testid="span-select"]', '2');
      await o.page.waitForFunction(({ first, n }) => {
        const root = document.querySelector('[data-testid="view-overview"][data-loaded="1"]');
        const rows = root && root.querySelectorAll('[data-testid="table-steps"] tbody tr:not(.tbl-none)');
        return rows && rows.length === n && rows[0].children[0].textContent.trim() === first;
      }, { first: String(s2.steps[0].name), n: Math.min(50, s2.steps.length) }, { timeout: LOAD_MS });
      assert.match(await o.page.evaluate(() => location.hash), /span=2/);
    });
    await check('run-select switches to resnet50_num_workers_4', async () => {
      const r4 = await api('/api/view', { ...R4, view: 'overview' });
      await o.page.selectOption('[data-testid="run-select"]', R4.run);
      await o.page.waitForFunction(({ first, n }) => {
        const root = document.querySelector('[data-testid="view-overview"][data-loaded="1"]');
        const rows = root && root.querySelectorAll('[data-testid="table-steps"] tbody tr:not(.tbl-none)');
        return /run=resnet50_num_workers_4/.test(location.hash) && rows && rows.length === n && rows[0].children[0].textContent.trim() === first;
      }, { first: String(r4.steps[0].name), n: Math.min(50, r4.steps.length) }, { timeout: LOAD_MS });
      assert.equal(await o.page.$eval('[data-testid="worker-select"]', (s) => s.value), 'worker0');
    });
    await shoot(o.page, 'overview', R4.run);
    await finish('span/run selection', o);
  }

  // the modern (recent PyTorch) trace: overview, operator and trace open
  {
    const o = await open('overview', MODERN);
    await check('overview modern: loads without an error box', async () => {
      await assertNoErrorBox(o.page, 'overview');
      const doc = await api('/api/view', { ...MODERN, view: 'overview' });
      if ((doc.steps || []).length) assert.equal(await rowCount(o.page, 'steps'), Math.min(50, doc.steps.length));
      else await assertEmptyState(o.page, 'overview');
    });
    await shoot(o.page, 'overview', 'modern');
    await finish('overview modern', o);
    const t = await open('trace', MODERN);
    await traceChecks(TC, t, MODERN, 'modern', { interact: false });
    await shoot(t.page, 'trace', 'modern');
    await finish('trace modern', t);
  }
}

// our own nnscope run (examples/mlp)
if (!mlpRun) {
  await check('mlp run discovered', async () => assert.fail('run "mlp" not in /api/runs'));
} else {
  {
    const o = await open('overview', MLP);
    await overviewChecks(o, MLP, 'mlp');
    await shoot(o.page, 'overview', 'mlp');
    await finish('overview mlp', o);
  }
  {
    const o = await open('datapipe', MLP);
    await check('datapipe mlp: batch_queue in the queue table and chart', async () => {
      const doc = await api('/api/view', { ...MLP, view: 'datapipe' });
      assert.ok((doc.queues || []).length > 0, 'API has no queues');
      const rows = await cells(o.page, 'queues');
      assert.equal(rows.length, doc.queues.length);
      assert.ok(rows.some((r) => r[0].includes('batch_queue')), `rows: ${rows.map((r) => r[0])}`);
      await assertChart(o.page, 'chart-queue', 2);
    });
    await shoot(o.page, 'datapipe', 'mlp');
    await finish('datapipe mlp', o);
  }
  {
    const o = await open('cpu', MLP);
    await check('cpu mlp: utilization chart and thread table', async () => {
      const doc = await api('/api/view', { ...MLP, view: 'cpu' });
      assert.ok(doc.available, 'API: no CPU samples in the mlp run');
      await assertChart(o.page, 'chart-cpu', 2);
      assert.ok(await rowCount(o.page, 'cpu-threads') > 0, 'no thread rows');
    });
    await check('cpu mlp: framework host info (profile_framework) rows match the API', async () => {
      const host = await api('/api/view', { ...MLP, view: 'hostinfo' });
      assert.ok(host.available && host.events.length > 0, 'API: no host_info rows in the mlp run');
      const n = await rowCount(o.page, 'hostinfo');
      assert.equal(n, Math.min(50, host.events.length), 'host info table rows');
      const first = await o.page.$eval('[data-testid="table-hostinfo"] tbody tr td:nth-child(2)', (td) => td.textContent.trim());
      assert.equal(first, host.events[0].event, 'the stage with the largest total comes first');
      await assertChart(o.page, 'chart-hostinfo-memory', 1);
    });
    await shoot(o.page, 'cpu', 'mlp');
    await finish('cpu mlp', o);
  }
  {
    const o = await open('trace', MLP);
    await traceChecks(TC, o, MLP, 'mlp', { interact: true });
    await shoot(o.page, 'trace', 'mlp');
    await finish('trace mlp', o);
  }
  // the other views open on the nnscope run: data or an explanation, never an error
  for (const view of ['operator', 'kernel', 'memory', 'distributed', 'module', 'steptrace', 'diff', 'hta']) {
    const o = await open(view, MLP);
    await check(`${view} mlp: data or an empty-state, no error`, async () => {
      await assertNoErrorBox(o.page, view);
      const hasData = await o.page.$$eval(`[data-testid="view-${view}"] [data-testid^="table-"], [data-testid="view-${view}"] [data-testid^="chart-"]`, (e) => e.length);
      if (!hasData) await assertEmptyState(o.page, view);
    });
    await shoot(o.page, view, 'mlp');
    await finish(`${view} mlp`, o);
  }
}

// Cluster view: the two-worker run (gen_runs) and MindInsight's cluster_propose job
{
  const runsNow = await api('/api/runs');
  if (!runsNow.runs.some((r) => r.name === 'dist')) skip('cluster dist', 'the dist run was not generated');
  else {
    const o = await open('cluster', { run: 'dist' });
    await check('cluster dist: one rank row per worker, chart drawn', async () => {
      const doc = await api('/api/cluster', { run: 'dist' });
      assert.equal(doc.ranks.length, 2, 'API ranks');
      assert.equal(await rowCount(o.page, 'cluster-ranks'), 2);
      await assertChart(o.page, 'chart-cluster', 2);
      await assertHeads(o.page, 'cluster-ranks', ['Rank', 'Host', 'Worker', 'Stage', 'Iteration interval', 'FP + BP',
        'Tail', 'Total', 'Communication']);
    });
    await shoot(o.page, 'cluster', 'dist');
    await finish('cluster dist', o);
  }
  if (!process.env.NNS_MSJOB) skip('cluster msjob', 'MindInsight cluster_propose fixture not found');
  else {
    const job = process.env.NNS_MSJOB;
    const o = await open('cluster', { run: job });
    await check('cluster msjob: 4 ranks, the proposals of /api/cluster shown', async () => {
      const doc = await api('/api/cluster', { run: job });
      assert.equal(doc.ranks.length, 4, 'API ranks');
      assert.equal(await rowCount(o.page, 'cluster-ranks'), 4);
      for (const p of doc.proposals) {
        const el = await o.page.$(`[data-testid="cluster-proposal-${p.id}"]`);
        assert.ok(el, `proposal ${p.id} not shown`);
      }
      await assertChart(o.page, 'chart-cluster', 4);
      await assertHeads(o.page, 'cluster-ranks', ['Rank', 'Host', 'Stage', 'Iteration interval', 'FP + BP', 'Tail',
        'Total', 'Communication', 'Wait']);
      if ((doc.links || []).length) {
        await assertHeads(o.page, 'cluster-links', ['Reported by', 'Src', 'Dst', 'Type', 'Time', 'Size (KB)', 'Bandwidth (KB/s)']);
      }
    });
    await shoot(o.page, 'cluster', 'msjob');
    await finish('cluster msjob', o);
  }
}

// Distributed: tb_plugin's case 10_distributed_nccl (two workers), its expected values
{
  const c = await loadCase('10_distributed_nccl.json');
  if (!c) skip('distributed dist', `${path.join(CONF_DIR, '10_distributed_nccl.json')} not found`);
  else {
    const DIST = { run: 'dist', worker: 'worker0' };
    const exp = c.expected['distributed (RunLoader._process_distributed_profiles([w0, w1], span=0))'];
    const overlap = exp["steps_to_overlap['data']['0']"];
    const wait = exp["steps_to_wait['data']['0']"];
    const commOps = exp["comm_ops['data'][worker]['rows']"];
    const PARTS = ['computation_us', 'overlap_us', 'communication_us', 'other_us'];
    const o = await open('distributed', DIST);
    await check('distributed dist: no straggler banner when both workers are equally busy (160 vs 161 us of 235)', async () => {
      assert.equal(await o.page.$('[data-testid="straggler"]'), null, 'a straggler was reported');
    });
    await check('distributed: straggler rule on hand-computed workers', async () => {
      const r = await o.page.evaluate(async () => {
        const { straggler } = await import('/static/views/distributed.js');
        const w = (worker, c, ov, cm, ot) => ({ worker, computation_us: c, overlap_us: ov, communication_us: cm, other_us: ot });
        return {
          slow: straggler([w('r0', 100, 10, 50, 0), w('r1', 140, 10, 10, 0), w('r2', 100, 10, 50, 0)]),
          even: straggler([w('r0', 100, 10, 50, 0), w('r1', 104, 10, 46, 0)]),
          one: straggler([w('r0', 100, 10, 50, 0)]),
        };
      });
      // r1: busy 150 vs median 110 -> gap 40 > 5% of the 160 us step
      assert.equal(r.slow && r.slow.worker, 'r1');
      assert.equal(r.slow.gap, 40);
      // gap 4 < 8 (5% of 160): not reported; one worker: nothing to compare
      assert.equal(r.even, null);
      assert.equal(r.one, null);
    });
    await check('distributed dist: chart-distributed has 2 workers with the tb_plugin overlap values', async () => {
      await assertNoErrorBox(o.page, 'distributed');
      await assertChart(o.page, 'chart-distributed', 8);
      await assertChart(o.page, 'chart-distributed-sync', 4);
      const opt = await o.page.$eval('[data-testid="chart-distributed"]', (el) => {
        const op = window.echarts.getInstanceByDom(el).getOption();
        return { x: op.xAxis[0].data, series: op.series.map((s) => s.data.map((d) => (typeof d === 'object' && d ? d.value : d))) };
      });
      assert.deepEqual(opt.x, ['worker0', 'worker1']);
      assert.equal(opt.series.length, 4);
      opt.x.forEach((w, wi) => PARTS.forEach((_, pi) =>
        assert.equal(Math.trunc(opt.series[pi][wi]), overlap[w][pi], `bar ${PARTS[pi]} of ${w}: ${opt.series[pi][wi]}, tb_plugin ${overlap[w][pi]}`)));
    });
    await check('distributed dist: workers table = tb_plugin overlap and wait values', async () => {
      const rows = await tableRows(o.page, 'distributed-workers', ['worker', ...PARTS, 'transfer_us', 'synchronizing_us']);
      assert.deepEqual(rows.map((r) => r.worker.text), ['worker0', 'worker1']);
      for (const r of rows) {
        const w = r.worker.text;
        PARTS.forEach((k, i) => assertCell(r[k], overlap[w][i], 'us', `${w} ${k}`));
        assertCell(r.transfer_us, wait[w][0], 'us', `${w} transfer`);
        assertCell(r.synchronizing_us, wait[w][1], 'us', `${w} synchronizing`);
      }
    });
    await check('distributed dist: table-comm-ops rows = tb_plugin comm ops', async () => {
      const keys = ['worker', 'name', 'calls', 'total_bytes', 'avg_bytes', 'total_latency_us', 'avg_latency_us', 'transfer_us', 'avg_transfer_us'];
      const kinds = [null, null, 'int', 'bytes', 'bytes', 'us', 'us', 'us', 'us'];
      const rows = await tableRows(o.page, 'comm-ops', keys);
      const want = Object.entries(commOps).flatMap(([w, rs]) => rs.map((r) => [w, ...r]));
      assert.equal(rows.length, want.length, `${rows.length} rows, tb_plugin has ${want.length}`);
      for (const wr of want) {
        const r = rows.find((x) => x.worker.text === wr[0] && x.name.text === wr[1]);
        assert.ok(r, `no row ${wr[0]} ${wr[1]}`);
        for (let i = 2; i < keys.length; i++) assertCell(r[keys[i]], wr[i], kinds[i], `${wr[0]} ${wr[1]} ${keys[i]}`);
      }
    });
    await shoot(o.page, 'distributed', 'dist');
    await finish('distributed dist', o);
  }
}

// Memory: tb_plugin's case 08_memory_view (+ allocator totals for the curve)
{
  const c = await loadCase('08_memory_view.json');
  if (!c) skip('memory memory', `${path.join(CONF_DIR, '08_memory_view.json')} not found`);
  else {
    const MEM = { run: 'memory', worker: 'w' };
    const o = await open('memory', MEM);
    const doc = await api('/api/view', { ...MEM, view: 'memory' });
    const gpuEvents = doc.devices && doc.devices.GPU0 ? doc.devices.GPU0.events || [] : [];
    // tb_plugin columns -> the UI's
    const COLS = { SelfIncreaseSize: 'self_size_increase', SelfAllocationSize: 'self_alloc_size', SelfAllocationCount: 'self_alloc_count',
      IncreaseSize: 'size_increase', AllocationSize: 'alloc_size', AllocationCount: 'alloc_count', Calls: 'calls' };
    await check('memory memory: device select offers CPU and GPU0', async () => {
      await assertNoErrorBox(o.page, 'memory');
      const opts = await o.page.$$eval('[data-testid="memory-device-select"] option', (os) => os.map((x) => x.value));
      assert.deepEqual([...opts].sort(), [...c.expected.devices].sort());
      await o.page.selectOption('[data-testid="memory-device-select"]', 'GPU0');
      await o.page.waitForFunction(() => /device=GPU0/.test(location.hash) || document.querySelector('[data-testid="memory-device-select"]').value === 'GPU0');
    });
    await check('memory memory: table-memory-stats (GPU0) = tb_plugin expected rows', async () => {
      const want = c.expected.GPU0;
      const keys = c.expected.columns.map((k) => { assert.ok(COLS[k], `unknown expected column ${k}`); return COLS[k]; });
      const rows = await tableRows(o.page, 'memory-stats', ['name', ...keys]);
      assert.deepEqual(rows.map((r) => r.name.text).sort(), Object.keys(want).sort());
      for (const r of rows) {
        want[r.name.text].forEach((v, i) => assertCell(r[keys[i]], v, /count|calls/.test(keys[i]) ? 'int' : 'bytes', `${r.name.text} ${c.expected.columns[i]}`));
      }
    });
    await check('memory memory: chart-memory-curve drawn', async () => {
      await assertChart(o.page, 'chart-memory-curve', 4);
      assert.equal(await rowCount(o.page, 'memory-events'), gpuEvents.length);
      assert.ok(gpuEvents.length > 4, `API: ${gpuEvents.length} GPU0 events`);
    });
    const curve = doc.devices.GPU0.curve || [];
    await check('memory memory: zooming the curve filters table-memory-events, reset restores', async () => {
      assert.ok(curve.length > 1, 'API: no GPU0 curve');
      const full0 = curve[0][0], full1 = curve[curve.length - 1][0];
      const [start, end] = [40, 70];
      const t0 = full0 + (full1 - full0) * start / 100, t1 = full0 + (full1 - full0) * end / 100;
      await o.page.$eval('[data-testid="chart-memory-curve"]', (el, [start, end]) =>
        window.echarts.getInstanceByDom(el).dispatchAction({ type: 'dataZoom', start, end }), [start, end]);
      await o.page.waitForFunction(() => /^Range/.test(document.querySelector('[data-testid="memory-range"]').textContent), null, { timeout: 10000 });
      const range = await o.page.$eval('[data-testid="view-memory"]', (e) => e.dataset.range);
      const [r0, r1] = range.split(',').map(Number);
      assert.ok(Math.abs(r0 - t0) <= 1 && Math.abs(r1 - t1) <= 1, `range ${range}, want ${t0},${t1}`);
      const inR = (t) => t !== null && t !== undefined && t >= r0 && t <= r1;
      const want = gpuEvents.filter((e) => inR(e.alloc_us) || inR(e.free_us));
      assert.ok(want.length > 0 && want.length < gpuEvents.length, `test range has ${want.length} of ${gpuEvents.length} events`);
      const a = await colValues(o.page, 'memory-events', 'alloc_us');
      const f = await colValues(o.page, 'memory-events', 'free_us');
      assert.equal(a.length, want.length, `${a.length} rows in the range, want ${want.length}`);
      a.forEach((x, i) => assert.ok(inR(x) || inR(f[i]), `row ${i}: alloc ${x} free ${f[i]} outside ${range}`));
      await o.page.click('[data-testid="memory-reset-zoom"]');
      await o.page.waitForFunction((n) => document.querySelector('[data-testid="memory-range"]').textContent === 'Full range' &&
        document.querySelectorAll('[data-testid="table-memory-events"] tbody tr:not(.tbl-none)').length === n, gpuEvents.length, { timeout: 10000 });
    });
    await shoot(o.page, 'memory', 'memory');
    await finish('memory memory', o);
  }
}

// Module: the hand-written module trace of gen_runs.mjs
{
  const MOD = { run: 'modules', worker: 'w' };
  // name, parent, depth, occurrences, operators, host total / self (µs): as gen_runs.mjs builds it
  const MODULE_EXPECT = [
    ['Net_0', '', 0, 1, 0, 1900, 800],
    ['Linear_0', 'Net_0', 1, 1, 1, 400, 100],
    ['ReLU_0', 'Net_0', 1, 2, 2, 200, 90],
    ['Linear_1', 'Net_0', 1, 1, 1, 500, 100],
  ];
  const strip = (s) => String(s).replace(/^nn\.Module: /, '');
  const o = await open('module', MOD);
  await check('module modules: chart-module-flame nests the child modules under Net_0', async () => {
    await assertNoErrorBox(o.page, 'module');
    await assertChart(o.page, 'chart-module-flame', MODULE_EXPECT.length);
    const bars = await o.page.$eval('[data-testid="chart-module-flame"]', (el) =>
      window.echarts.getInstanceByDom(el).getOption().series[0].data.map((d) => d.value));
    const doc = await api('/api/view', { ...MOD, view: 'modules' });
    const byName = Object.fromEntries(bars.map(([x0, x1, d, i]) => [strip(doc.modules[i].name), { x0, x1, d }]));
    for (const [n, p, d] of MODULE_EXPECT) {
      assert.ok(byName[n], `no flame bar for ${n}`);
      assert.equal(byName[n].d, d, `${n} at depth ${byName[n].d}`);
      if (p) assert.ok(byName[n].x0 >= byName[p].x0 && byName[n].x1 <= byName[p].x1 + 1e-9, `${n} not inside ${p}`);
    }
  });
  await check('module modules: table-modules lists the modules with nesting and occurrences', async () => {
    const rows = await tableRows(o.page, 'modules', ['name', 'parent', 'occurrences', 'operators', 'host_total_us', 'host_self_us']);
    const pads = await o.page.$$eval('[data-testid="table-modules"] tbody tr:not(.tbl-none)', (trs) =>
      trs.map((tr) => { const s = tr.querySelector('span[style]'); return s ? parseFloat(s.style.paddingLeft) || 0 : 0; }));
    assert.deepEqual(rows.map((r) => strip(r.name.text)), MODULE_EXPECT.map((e) => e[0]));
    rows.forEach((r, i) => {
      const [n, p, d, occ, ops, tot, self] = MODULE_EXPECT[i];
      assert.equal(strip(r.parent.text), p, `${n} parent`);
      assert.equal(Number(r.occurrences.text), occ, `${n} occurrences`);
      assert.equal(Number(r.operators.text), ops, `${n} operators`);
      assertCell(r.host_total_us, tot, 'us', `${n} host total`);
      assertCell(r.host_self_us, self, 'us', `${n} host self`);
      assert.ok(d === 0 ? pads[i] === 0 : pads[i] > 0, `${n} indent ${pads[i]}px at depth ${d}`);
    });
  });
  await shoot(o.page, 'module', 'modules');
  await finish('module modules', o);
}

// the damaged (truncated) trace: the diagnostic is shown, nothing breaks
{
  const o = await open('overview', DAMAGED);
  await check('overview damaged: truncation diagnostic shown', async () => {
    const doc = await api('/api/view', { ...DAMAGED, view: 'overview' });
    assert.ok(doc.diagnostics && doc.diagnostics.truncated, 'API does not report truncation');
    const txt = await o.page.$eval(inView('overview', 'diagnostics'), (e) => e.textContent).catch(() => null);
    assert.ok(txt, 'no diagnostics banner');
    assert.match(txt, /truncated/i);
    assert.ok(txt.includes(String(doc.diagnostics.first_problem).slice(-40)), 'first problem not shown');
  });
  await shoot(o.page, 'overview', 'damaged');
  const odd = await open('overview', { run: 'damaged', worker: 'odd' });
  await check('overview odd: the odd spot is counted and the first one shown', async () => {
    const doc = await api('/api/view', { run: 'damaged', worker: 'odd', view: 'overview' });
    assert.equal(doc.diagnostics.odd_spots, 1, 'one repeated key');
    assert.match(String(doc.diagnostics.first_odd_spot), /repeated|twice|again|duplicate/i);
    const txt = await odd.page.$eval(inView('overview', 'odd-spots'), (e) => e.textContent).catch(() => null);
    assert.ok(txt, 'no odd-spots line in the banner');
    assert.ok(txt.includes('1 odd spot') && txt.includes(String(doc.diagnostics.first_odd_spot).slice(-30)), txt);
  });
  await finish('overview odd', odd);
  await finish('overview damaged', o, { allowResourceErrors: true });
  for (const view of ['operator', 'trace']) {
    const p = await open(view, DAMAGED);
    await check(`${view} damaged: renders data, an empty-state or an error message`, async () => {
      const st = await p.page.evaluate((view) => {
        const root = document.querySelector(`[data-testid="view-${view}"]`);
        return {
          data: root.querySelectorAll('[data-testid^="table-"] tbody tr, [data-testid="trace-canvas"]').length,
          empty: (root.querySelector('[data-testid="empty-state"]') || {}).textContent || '',
          error: (root.querySelector('[data-testid="error"], .nns-trace-error') || {}).textContent || '',
        };
      }, view);
      assert.ok(st.data > 0 || st.empty.trim().length > 10 || st.error.trim().length > 10, JSON.stringify(st));
    });
    await shoot(p.page, view, 'damaged');
    await finish(`${view} damaged`, p, { allowResourceErrors: true });
  }
}

// empty logdir
{
  const o = await open('overview', {}, { base: URL_EMPTY });
  await check('empty logdir: "no runs" explanation', async () => {
    const txt = await assertEmptyState(o.page, 'overview');
    assert.match(txt, /No runs/i);
    assert.equal(await o.page.$eval('[data-testid="run-select"]', (s) => s.disabled), true);
  });
  await shoot(o.page, 'overview', 'empty-logdir');
  await finish('empty logdir', o);
}

await browser.close();
console.log(`browser tests: ${T.passed} passed, ${T.failed} failed; screenshots in ${SHOTS}`);
process.exit(T.failed ? 1 : 0);
