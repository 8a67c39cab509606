// Browser tests of the MindSpore tab and the Step Trace view's MindSpore
// part (tests/browser/run.sh copies MindInsight's fixture profiler
// directories into the logdir and starts the server). The numbers shown are
// checked against MindInsight's own test expectations, read at run time
// from $NNS_MI_CONF (conformance/mindinsight/expected_values.json):
// test_analyse.py (step summary, fp/bp points, training-trace graph of
// run_1) and test_op_analyser.py (run_1's AI Core types and AssignAdd ops).
// One PASS/FAIL/SKIP line per check; exit status 1 on any FAIL.
// The FLOPs, AI CPU and dynamic shape panels (whose upstream tests never ran)
// are checked against values computed here from the raw fixture files.
// env: NNS_URL, NNS_SHOTS, NNS_CHROMIUM, NNS_ROOT, NNS_MI_CONF,
//      NNS_MS_RUN (the run of MindInsight's run_1 profiler directory),
//      NNS_MI_DATA (MindInsight's fixture data, for the hand computations).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const URL0 = process.env.NNS_URL;
const SHOTS = process.env.NNS_SHOTS;
const MI_CONF = process.env.NNS_MI_CONF || '';
const MS_RUN = process.env.NNS_MS_RUN || 'mindspore/run_1';
const MI_DATA = process.env.NNS_MI_DATA || ''; // $NNS_SHARED/data/mindinsight: raw files for hand computations
const LOAD_MS = 60000;

const T = checker();
const { check, skip } = T;

async function api(p, params) {
  const q = new URLSearchParams(params || {});
  const url = `${URL0}${p}${q.toString() ? '?' + q : ''}`;
  for (let i = 0; i < 300; i++) {
    const r = await fetch(url);
    if (r.status === 202) { await r.arrayBuffer(); await new Promise((res) => setTimeout(res, 200)); continue; }
    const body = await r.json();
    if (!r.ok) throw new Error(`${url}: ${r.status} ${body.error || ''}`);
    return body;
  }
  throw new Error(`${url}: still analysing after 60 s`);
}

/* ------------------------------------------ MindInsight's expectations */

/** a Python literal of an upstream assert (dicts, lists, strings, numbers) as JS */
function pyLiteral(s) {
  return JSON.parse(s.replace(/'/g, '"').replace(/\bNone\b/g, 'null').replace(/\bTrue\b/g, 'true').replace(/\bFalse\b/g, 'false'));
}
function loadExpected() {
  if (!MI_CONF || !fs.existsSync(MI_CONF)) return null;
  const all = JSON.parse(fs.readFileSync(MI_CONF, 'utf8'));
  const entries = (file) => (all[file] && all[file].entries) || [];
  const assertOf = (file, fn, prefix) => {
    const e = entries(file).find((x) => x.function === fn && typeof x.assert === 'string' && x.assert.startsWith(prefix));
    assert.ok(e, `${file} ${fn}: no assert starting "${prefix}"`);
    return pyLiteral(e.assert.slice(prefix.length).trim());
  };
  const valueOf = (file, fn, name) => {
    const e = entries(file).find((x) => x.function === fn && x.name === name);
    assert.ok(e, `${file} ${fn}: no value ${name}`);
    return e.value;
  };
  const A = 'st/func/profiler/test_analyse.py';
  const O = 'st/func/profiler/test_op_analyser.py';
  const M = 'st/func/profiler/test_minddata_analyse.py';
  return {
    summary: assertOf(A, 'test_summary_for_step_trace', 'assert summary =='),
    points: assertOf(A, 'test_step_trace_point_info', 'assert point_info =='),
    graphSize: assertOf(A, 'test_graph_api', "assert res['size'] =="),
    graphLines: assertOf(A, 'test_graph_api', "assert len(res['training_trace_graph']) =="),
    graphLast: assertOf(A, 'test_graph_api', "assert res['training_trace_graph'][-1] =="),
    types: valueOf(O, 'test_query_aicore_type_1', 'expect_result'),
    typesMul: valueOf(O, 'test_query_aicore_type_2', 'expect_result'),
    assignAdd: valueOf(O, '<module>', 'OP_GATHER_V2_INFO'),
    pipeline: valueOf('st/func/profiler/test_minddata_pipeline_analyser.py', 'test_query', 'expect_result'),
    queueSummary: valueOf(M, 'test_analyse_queue_summary', 'expect_result'),
    getNext: valueOf(M, 'test_analyse_get_next_info', 'expect_result'),
    deviceQueue: valueOf(M, 'test_analyse_device_queue_info', 'expect_result'),
  };
}

/* ---------------------------------------------------------------- pages */

const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);
const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
context.setDefaultTimeout(10000);

// a parameter of the page's address (the hash's query), or null
const hashParam = (page, k) => page.evaluate((key) => new URLSearchParams(location.hash.replace(/^#/, '')).get(key), k);

async function open(view, sel, extra = {}) {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    // the 404 of a document this server does not write (its panel says "no data")
    const url = (m.location() && m.location().url) || '';
    if (/status of 404/.test(m.text()) && /\/api\/view\?/.test(url) && ABSENT.has(new URL(url).searchParams.get('view'))) return;
    errors.push(`console: ${m.text()} ${url}`);
  });
  const q = new URLSearchParams({ view, run: sel.run, worker: sel.worker, ...extra });
  try {
    await page.goto(`${URL0}/#${q}`);
    await page.waitForSelector(`[data-testid="view-${view}"][data-loaded="1"]`, { timeout: LOAD_MS, state: 'attached' });
  } catch (e) {
    errors.push(`view-${view} did not load: ${String(e.message).split('\n')[0]}`);
  }
  return { page, errors };
}
async function finish(name, o) {
  await check(`${name}: no page or console errors`, async () => assert.deepEqual(o.errors, []));
  await o.page.close();
}
async function shoot(page, name) {
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.png`), fullPage: true });
}
const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim());
async function noErrorBox(page, view) {
  const err = await page.$eval(`[data-testid="view-${view}"] [data-testid="error"]`, (e) => e.textContent.trim()).catch(() => null);
  assert.equal(err, null, `view-${view} shows an error: ${err}`);
}
/** the body rows of a table: [{key: {text, raw}}] by column key */
async function tableRows(page, table) {
  return page.$$eval(`[data-testid="table-${table}"]`, (tbls) => {
    const t = tbls[0];
    if (!t) return null;
    const keys = [...t.querySelectorAll('thead th')].map((th) => th.dataset.testid.replace(/^th-.*?-(?=[^-]+$)/, ''));
    return [...t.querySelectorAll('tbody tr:not(.tbl-none)')].map((tr) => {
      const o = {};
      [...tr.children].forEach((td, i) => {
        const raw = td.title !== '' && !Number.isNaN(Number(td.title)) ? Number(td.title) : null;
        o[keys[i]] = { text: td.textContent.trim(), raw };
      });
      return o;
    });
  });
}
/** the number shown in a card value ("205.3809 ms", "1,234") */
const cardNumber = (s) => Number(String(s).replace(/,/g, '').replace(/\s*ms$/, ''));
/** the ECharts option of a chart box (null when none) */
const chartOption = (page, testid) => page.$eval(`[data-testid="${testid}"]`, (el) => {
  const inst = window.echarts && window.echarts.getInstanceByDom(el);
  const c = el.querySelector('canvas');
  if (!inst || !c || !c.width) return null;
  const o = inst.getOption();
  return { yAxis: o.yAxis, legend: o.legend, series: o.series.map((s) => ({ type: s.type, name: s.name, data: s.data })) };
}).catch(() => null);
/** the segments of line i of the training-trace graph as drawn: [{name, start, duration}] (ms) */
function drawnLine(opt, i) {
  let at = 0;
  const out = [];
  for (const s of opt.series) {
    const d = s.data[i];
    const v = typeof d === 'object' && d !== null ? d.value : d;
    if (!/^gap/.test(s.name) && v > 0) out.push({ name: d.name, start: at, duration: v });
    at += v || 0;
  }
  return out;
}
const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a}, want ${b}`);

/* ---------------------------------------------------------------- tests */

const exp = (() => { try { return loadExpected(); } catch (e) { console.log(`FAIL mindspore expectations: ${e.message}`); T.failed++; return null; } })();
const runs = (await api('/api/runs')).runs || [];

// every MindSpore document must be served for a MindSpore device: one the
// server does not know (404 "no view") is a failure, not a reason to skip
const ABSENT = new Set();
{
  const any = runs.find((r) => r.kind === 'mindspore');
  for (const v of ['ms_op_detail', 'ms_flops', 'ms_aicpu', 'ms_minddata', 'ms_dynshape', 'ms_memory']) {
    if (!any) break;
    const r = await fetch(`${URL0}/api/view?${new URLSearchParams({ view: v, run: any.name, worker: any.workers[0].name })}`);
    const body = await r.json().catch(() => ({}));
    if (r.status === 404 && /^no view /.test(body.error || '')) ABSENT.add(v);
  }
  if (ABSENT.size) { console.log(`FAIL mindspore documents: the server writes no ${[...ABSENT].join(', ')}`); failed++; }
}
const msRun = runs.find((r) => r.name === MS_RUN);
const dev = msRun && (msRun.workers.find((w) => w.name === 'device_1') || msRun.workers[0]);

if (!msRun || msRun.kind !== 'mindspore' || !dev) {
  skip('mindspore tab', `no MindSpore run ${MS_RUN} in the logdir (no shared MindInsight data)`);
} else if (!exp) {
  skip('mindspore tab', `no MindInsight expectations at "${MI_CONF}"`);
} else {
  const sel = { run: msRun.name, worker: dev.name };
  const o = await open('mindspore', sel);
  const { page } = o;
  await check('mindspore run_1: step summary = MindInsight test_summary_for_step_trace', async () => {
    await page.waitForSelector('[data-testid="ms-summary"]', { timeout: 10000 });
    const s = exp.summary;
    const card = async (id) => ({ value: await text(page, `[data-testid="${id}"] .card-value`), sub: await text(page, `[data-testid="${id}"] .card-sub`).catch(() => '') });
    const total = await card('ms-total');
    assert.equal(cardNumber(total.value), s.total_time, `total shown "${total.value}"`);
    for (const [id, k] of [['ms-iteration-interval', 'iteration_interval'], ['ms-fp-bp', 'fp_and_bp'], ['ms-tail', 'tail']]) {
      const c = await card(id);
      assert.equal(cardNumber(c.value), s[k], `${k} shown "${c.value}"`);
      assert.equal(c.sub.split(' ')[0], s[`${k}_percent`], `${k} percent shown "${c.sub}"`);
    }
    assert.equal(cardNumber((await card('ms-steps')).value), s.total_steps, 'steps');
  });
  await check('mindspore run_1: fp_start / bp_end = test_step_trace_point_info', async () => {
    assert.equal(await text(page, '[data-testid="ms-fp-start"]'), exp.points.fp_start);
    assert.equal(await text(page, '[data-testid="ms-bp-end"]'), exp.points.bp_end);
  });
  await check('mindspore run_1: training-trace graph lines and last line = test_graph_api', async () => {
    const opt = await chartOption(page, 'ms-trace-graph');
    assert.ok(opt, 'graph chart not drawn');
    assert.equal(opt.yAxis[0].data.length, exp.graphLines, 'lines drawn');
    const last = drawnLine(opt, exp.graphLines - 1);
    assert.equal(last.length, exp.graphLast.length, `segments of the last line: ${JSON.stringify(last)}`);
    exp.graphLast.forEach((w, k) => {
      assert.equal(last[k].name, w.name, `segment ${k} name`);
      near(last[k].start, w.start, 1e-6, `segment ${k} start`);
      near(last[k].duration, w.duration, 1e-6, `segment ${k} duration`);
    });
    const st = await api('/api/view', { view: 'steptrace', run: sel.run, worker: sel.worker });
    assert.equal(st.steps.length, exp.graphSize, 'steps in the document (res[size])');
  });
  await check('mindspore run_1: AI Core types table = test_query_aicore_type_1 (order, total, calls, avg)', async () => {
    const rows = await tableRows(page, 'ms-by-type');
    const want = exp.types.object;
    assert.equal(rows.length, exp.types.size, 'type rows');
    assert.equal(rows[0].kernel_type.text, 'MatMul', 'first row');
    rows.forEach((r, i) => {
      const [type, total, calls, , avg] = want[i];
      assert.equal(r.kernel_type.text, type, `row ${i} type`);
      assert.equal(r.total_time_us.raw, total, `${type} total time`);
      assert.equal(Number(r.execution_frequency.text.replace(/,/g, '')), calls, `${type} calls`);
      assert.equal(r.avg_time_us.raw, avg, `${type} avg time`);
    });
    // the first row as displayed: 2807.82 us -> "2.808 ms"
    assert.equal(rows[0].total_time_us.text, `${(want[0][1] / 1000).toFixed(3)} ms`);
    // share: MindSpore's percent column (upstream total_percent = percent x 100: 5760 -> 57.60 %)
    assert.equal(rows[0].share.text, `${(want[0][3] / 100).toFixed(2)}%`, 'MatMul share');
  });
  await check('mindspore run_1: type search "Mul" = test_query_aicore_type_2', async () => {
    await page.fill('[data-testid="search-ms-by-type"]', 'Mul');
    const rows = await tableRows(page, 'ms-by-type');
    assert.deepEqual(rows.map((r) => [r.kernel_type.text, r.total_time_us.raw]), exp.typesMul.object.map((r) => [r[0], r[1]]));
    await page.fill('[data-testid="search-ms-by-type"]', '');
  });
  await check('mindspore run_1: type pie and bar charts drawn', async () => {
    const pie = await chartOption(page, 'ms-optype-pie');
    assert.ok(pie && pie.series[0].type === 'pie' && pie.series[0].data.length >= 2, 'pie');
    const bar = await chartOption(page, 'ms-optype-bar');
    assert.ok(bar && bar.series[0].type === 'bar', 'bar');
    assert.equal(bar.yAxis[0].data[0], exp.types.object[0][0], 'longest bar');
    assert.equal(bar.series[0].data[0], exp.types.object[0][1], 'longest bar value');
  });
  await check('mindspore run_1: ops of type AssignAdd = test_query_aicore_detail_1 (OP_GATHER_V2_INFO)', async () => {
    await page.selectOption('[data-testid="ms-op-type-select"]', 'AssignAdd');
    const rows = await tableRows(page, 'ms-by-op');
    const want = exp.assignAdd.object;
    assert.equal(rows.length, exp.assignAdd.size, 'rows');
    rows.forEach((r, i) => {
      assert.equal(r.op_name.text, want[i][0], `row ${i} op`);
      assert.equal(r.avg_execution_time_us.raw, want[i][3], `${want[i][0]} avg time`);
      assert.equal(Number(r.execution_frequency.text), want[i][4], `${want[i][0]} calls`);
    });
    if (!ABSENT.has('ms_op_detail')) {
      // the op_info column: each input / output's data type and shape
      rows.forEach((r, i) => {
        for (const [k, v] of Object.entries(want[i][9] || {})) {
          assert.ok(r.op_info.text.includes(`${k}: ${v.data_type}[${v.shape.join(',')}]`), `${want[i][0]} ${k}: "${r.op_info.text}"`);
        }
      });
    }
    // a click on a type row filters too; a second click clears it
    await page.click('[data-testid="table-ms-by-type"] tbody tr:first-child');
    const mm = await tableRows(page, 'ms-by-op');
    assert.ok(mm.length > 0 && mm.every((r) => r.kernel_type.text === 'MatMul'), 'MatMul rows after the click');
    const sum = mm.reduce((s, r) => s + r.total_us.raw, 0);
    near(sum, exp.types.object[0][1], 0.01, 'MatMul ops: sum of avg x calls vs the type total');
  });
  await check('mindspore run_1: every panel shows data or a "no data" line, none an error', async () => {
    await noErrorBox(page, 'mindspore');
    const slots = await page.$$eval('[data-testid$="-slot"]', (ss) => ss.map((s) => ({ id: s.dataset.testid, section: !!s.querySelector('section.ms-section') })));
    // one slot per entry of web/views/mindspore.js's PANELS
    const panels = (fs.readFileSync(path.join(ROOT, 'web/views/mindspore.js'), 'utf8').match(/\{ file: '/g) || []).length;
    assert.equal(slots.length, panels, JSON.stringify(slots));
    for (const s of slots) assert.ok(s.section, `${s.id} is empty`);
    const none = await page.$$eval('.ms-nodata', (ns) => ns.map((n) => n.textContent.trim()));
    for (const t of none) assert.ok(t.length > 10, `no-data line without a reason: "${t}"`);
  });
  await shoot(page, 'mindspore-run_1');
  await finish('mindspore run_1', o);

  // the Step Trace view of the same device
  const st = await open('steptrace', sel);
  await check('steptrace run_1: MindInsight summary, fp_start, graph', async () => {
    await st.page.waitForSelector('[data-testid="steptrace-mindspore"]', { timeout: 10000 });
    assert.equal(await text(st.page, '[data-testid="view-steptrace"] [data-testid="ms-fp-start"]'), exp.points.fp_start);
    assert.equal(await text(st.page, '[data-testid="view-steptrace"] [data-testid="ms-bp-end"]'), exp.points.bp_end);
    const fp = await text(st.page, '[data-testid="steptrace-ms-summary"] [data-testid="ms-fp-bp"] .card-sub');
    assert.equal(fp.split(' ')[0], exp.summary.fp_and_bp_percent);
    const opt = await chartOption(st.page, 'chart-ms-trace-graph');
    assert.ok(opt, 'graph not drawn');
    assert.equal(opt.yAxis[0].data.length, exp.graphLines);
    assert.ok(await chartOption(st.page, 'chart-steptrace'), 'the per-step chart is still drawn');
  });
  await finish('steptrace run_1', st);
}

// the data pipeline panel (when the server writes ms_minddata): MindInsight's
// test_minddata_pipeline_analyser (profiler/, device 0) and
// test_minddata_analyse (run_2's device queue and get_next)
const PROF_RUN = 'mindspore/profiler';
const RUN2 = 'mindspore/run_2';
if (!exp || ABSENT.has('ms_minddata')) skip('mindspore data pipeline', exp ? 'the server writes no ms_minddata document' : 'no expectations');
else if (!runs.some((r) => r.name === PROF_RUN) || !runs.some((r) => r.name === RUN2)) skip('mindspore data pipeline', `no ${PROF_RUN} or ${RUN2} run`);
else {
  const o = await open('mindspore', { run: PROF_RUN, worker: 'device_0' });
  await check('mindspore profiler device_0: pipeline ops = test_minddata_pipeline_analyser test_query', async () => {
    await o.page.waitForSelector('[data-testid="ms-pipeline-graph"]', { timeout: 10000 });
    const rows = await tableRows(o.page, 'ms-pipeline');
    const want = exp.pipeline.object;
    assert.equal(rows.length, exp.pipeline.size, 'ops');
    for (const [id, type, avg, len, rate, , parent, children] of want) {
      const r = rows.find((x) => Number(x.op_id.text) === id);
      assert.ok(r, `op ${id} not shown`);
      assert.equal(r.op_type.text, type, `op ${id} type`);
      assert.equal(r.output_queue_average_size.raw, avg, `op ${id} average queue size`);
      assert.equal(len === null ? r.output_queue_length.text : r.output_queue_length.raw, len === null ? '–' : len, `op ${id} queue length`);
      assert.equal(r.output_queue_usage_rate.raw, rate, `op ${id} usage rate`);
      assert.equal(r.parent_id.text, parent === null ? '–' : String(parent), `op ${id} parent`);
      assert.equal(r.children.text, (children || []).join(', '), `op ${id} children`);
    }
    const nodes = await o.page.$$eval('[data-testid^="ms-pipe-node-"]', (ns) => ns.length);
    assert.equal(nodes, want.length, 'graph nodes');
  });
  await finish('mindspore profiler device_0', o);

  const o2 = await open('mindspore', { run: RUN2, worker: 'device_1' });
  await check('mindspore run_2 device_1: queue verdicts and counts = test_analyse_queue_summary', async () => {
    await o2.page.waitForSelector('[data-testid="ms-md-verdicts"]', { timeout: 10000 });
    const q = exp.queueSummary;
    const shown = await text(o2.page, '[data-testid="ms-md-verdicts"]');
    for (const [label, k] of [['Data processing', 'data_process'], ['Data transmission', 'data_transmission'], ['Host queue', 'device_queue_warning'], ['Chip queue (get_next)', 'get_next']]) {
      assert.ok(shown.includes(`${label}: ${q[k].status}`), `${k}: "${shown}"`);
    }
    const card = (id) => text(o2.page, `[data-testid="${id}"] .card-value`);
    const d = q.device_queue_info.summary;
    const g = q.get_next_queue_info.summary;
    assert.equal(await card('ms-md-host-empty'), `${d.empty_batch_count} / ${d.total_batch}`);
    assert.equal(await card('ms-md-host-full'), `${d.full_batch_count} / ${d.total_batch}`);
    assert.equal(await card('ms-md-chip-empty'), `${g.empty_batch_count} / ${g.total_batch}`);
  });
  await check('mindspore run_2 device_1: get_next and device queue costs = test_analyse_get_next_info / device_queue_info', async () => {
    const gn = await chartOption(o2.page, 'ms-md-get-next');
    assert.ok(gn, 'get_next chart');
    assert.deepEqual(gn.series.find((x) => x.name === 'get_next cost').data, exp.getNext.info.get_next);
    const dq = await chartOption(o2.page, 'ms-md-device-time');
    assert.ok(dq, 'device queue time chart');
    for (const [name, k] of [['Total cost', 'total_cost'], ['Push cost', 'push_cost'], ['Get cost', 'get_cost']]) {
      assert.deepEqual(dq.series.find((x) => x.name === name).data, exp.deviceQueue.info[k], name);
    }
    const t = exp.deviceQueue.summary.time_summary;
    assert.equal(await text(o2.page, '[data-testid="ms-md-host-cost"] .card-value'), `${t.avg_cost} ms`);
    assert.equal(await text(o2.page, '[data-testid="ms-md-host-cost"] .card-sub'), `push ${t.push_cost} ms · get ${t.get_cost} ms`);
  });
  await shoot(o2.page, 'mindspore-run_2');
  await finish('mindspore run_2 device_1', o2);
}

// FLOPs, dynamic shape (profiler/ device 0) and AI CPU (run_2): values
// computed here from the raw files of MindInsight's fixtures
const raw = (...p) => path.join(MI_DATA, ...p);
if (!MI_DATA || !fs.existsSync(raw('profiler', 'flops_summary_0.json'))) skip('mindspore FLOPs / AI CPU / dynamic shape', 'no MindInsight fixture data (NNS_MI_DATA)');
else if (!runs.some((r) => r.name === PROF_RUN) || !runs.some((r) => r.name === RUN2)) skip('mindspore FLOPs / AI CPU / dynamic shape', `no ${PROF_RUN} or ${RUN2} run`);
else {
  const o = await open('mindspore', { run: PROF_RUN, worker: 'device_0' });
  if (ABSENT.has('ms_flops')) skip('mindspore profiler device_0 FLOPs', 'the server writes no ms_flops document');
  else {
    await check('mindspore profiler device_0: FLOPs summary and op rows = flops_summary_0.json / flops_0.txt', async () => {
      await o.page.waitForSelector('[data-testid="ms-flops-cards"]', { timeout: 10000 });
      const sum = JSON.parse(fs.readFileSync(raw('profiler', 'flops_summary_0.json'), 'utf8'));
      const card = async (id) => cardNumber((await text(o.page, `[data-testid="${id}"] .card-value`)).replace(/%$/, ''));
      assert.equal(await card('ms-flops-mflops'), sum.FLOPs, 'MFLOPs');
      assert.equal(await card('ms-flops-gflops'), sum.FLOPS, 'GFLOPS');
      near(await card('ms-flops-util'), sum.FLOPS_Utilization, 0.0051, 'utilization %');
      const lines = fs.readFileSync(raw('profiler', 'flops_0.txt'), 'utf8').split('\n').slice(1).filter((l) => l.trim());
      const rows = await tableRows(o.page, 'ms-flops-ops');
      assert.equal(rows.length, lines.length, 'op rows');
      for (const l of lines) {
        const [name, mflops] = l.split(',').map((x) => x.trim());
        const r = rows.find((x) => x.op_full_name.text === name);
        assert.ok(r, `${name} not shown`);
        assert.equal(r.mflops.raw, Number(mflops), `${name} MFLOPs`);
      }
    });
  }
  if (ABSENT.has('ms_dynshape')) skip('mindspore profiler device_0 dynamic shape', 'the server writes no ms_dynshape document');
  else {
    await check('mindspore profiler device_0: dynamic shape lines = dynamic_shape_info_0.json (first 3 types of step 1, avg per step)', async () => {
      const f = JSON.parse(fs.readFileSync(raw('profiler', 'dynamic_shape_info_0.json'), 'utf8')).operator_type;
      const steps = Object.keys(f).sort((a, b) => Number(a) - Number(b));
      const first = Object.keys(f[steps[0]]).slice(0, 3);
      const opt = await chartOption(o.page, 'ms-dynshape-chart');
      assert.ok(opt, 'chart not drawn');
      assert.deepEqual(opt.legend[0].selected ? Object.entries(opt.legend[0].selected).filter(([, v]) => v).map(([k]) => k).sort() : null, first.slice().sort(), 'types shown');
      for (const t of first) {
        const sr = opt.series.find((x) => x.name === t);
        assert.ok(sr, `no line for ${t}`);
        assert.deepEqual(sr.data, steps.map((st) => (f[st][t] ? f[st][t][2] : 0)), `${t} avg per step`);
      }
      const ops = JSON.parse(fs.readFileSync(raw('profiler', 'dynamic_shape_info_0.json'), 'utf8')).operator;
      const n = Object.values(ops).reduce((a, v) => a + v.length, 0);
      assert.equal(Number((await text(o.page, '[data-testid="table-ms-dynshape-ops"] .tbl-count')).split(' ')[0]), n, 'operator rows');
    });
  }
  await finish('mindspore profiler device_0 FLOPs / dynamic shape', o);

  if (ABSENT.has('ms_aicpu')) skip('mindspore run_2 AI CPU', 'the server writes no ms_aicpu document');
  else {
    const o2 = await open('mindspore', { run: RUN2, worker: 'device_1' });
    await check('mindspore run_2 device_1: AI CPU by type and by kernel = aicpu_intermediate_1.csv summed here', async () => {
      await o2.page.waitForSelector('[data-testid="table-ms-aicpu-type"]', { timeout: 10000 });
      const lines = fs.readFileSync(raw('run_2', 'normal_run', 'profiler', 'aicpu_intermediate_1.csv'), 'utf8').split('\n').filter((l) => l.trim());
      const head = lines[0].split(',');
      const col = (n) => head.indexOf(n);
      const by = new Map();
      let all = 0;
      for (const l of lines.slice(1)) {
        const c = l.split(',');
        const t = c[col('kernel_type')];
        const e = by.get(t) || { total: 0, dispatch: 0, n: 0 };
        e.total += Number(c[col('total_time')]) * 1000; // ms -> us
        e.dispatch += Number(c[col('dispatch_time')]) * 1000;
        e.n++;
        all += Number(c[col('total_time')]) * 1000;
        by.set(t, e);
      }
      const rows = await tableRows(o2.page, 'ms-aicpu-type');
      assert.equal(rows.length, by.size, 'types');
      for (const [t, e] of by) {
        const r = rows.find((x) => x.kernel_type.text === t);
        assert.ok(r, `${t} not shown`);
        near(r.total_time_us.raw, e.total, 1e-6, `${t} total`);
        assert.equal(Number(r.execution_frequency.text), e.n, `${t} calls`);
        assert.equal(r.percent.text, `${(100 * e.total / all).toFixed(2)}%`, `${t} share`);
      }
      const ops = await tableRows(o2.page, 'ms-aicpu-op');
      for (const [t, e] of by) {
        const r = ops.find((x) => x.kernel_name.text === t); // kernel name = type in this file
        assert.ok(r, `${t} kernel not shown`);
        near(r.avg_execution_time_us.raw, e.total / e.n, 1e-6, `${t} avg execution`);
        near(r.avg_dispatch_time_us.raw, e.dispatch / e.n, 1e-6, `${t} avg dispatch`);
      }
      near(cardNumber(await text(o2.page, '[data-testid="ms-aicpu-total"] .card-value')), all / 1000, 1e-9, 'total time card');
    });
    await finish('mindspore run_2 device_1 AI CPU', o2);
  }
}

// device memory: run msmem holds only memory_usage_0.pb, written by
// tests/browser/gen_ms_memory.py after MindSpore's memory_profiling.proto;
// the curve, peak and breakdowns below are that script's hand computation
{
  const MIB = 1 << 20;
  const r = runs.find((x) => x.name === 'msmem');
  if (!r || r.kind !== 'mindspore') skip('mindspore device memory', 'no msmem run (tests/browser/gen_ms_memory.py not run)');
  else {
    const sel = { run: 'msmem', worker: 'device_0' };
    await check('mindspore msmem device memory document: curve, peak, lifetimes', async () => {
      const d = await api('/api/view', { view: 'ms_memory', ...sel });
      assert.deepEqual(d.errors, []);
      assert.equal(d.summary.peak_mem_bytes, 6313 * MIB);
      assert.equal(d.summary.capacity_gb, 32);
      assert.equal(d.summary.allocations, 8);
      assert.equal(d.summary.skipped_graphs, 1);
      assert.equal(d.graphs.length, 1);
      const g = d.graphs[0];
      assert.deepEqual(g.lines_bytes, [6163, 6313, 5730, 5507].map((v) => v * MIB));
      assert.deepEqual(g.nodes.map((n) => n.allocated_bytes), [6063, 150, -583, -223].map((v) => v * MIB));
      assert.deepEqual(g.nodes.map((n) => n.size_bytes), [1050, 200, 430, 7].map((v) => v * MIB));
      assert.equal(g.peak_node, 1);
      assert.deepEqual([g.fp_start, g.bp_end], [10, 12]);
      assert.deepEqual(g.peak_breakdown.map((k) => g.tensors[k].name), ['Conv2D-op1:0', 'ReLU-op2:0']);
      const t4 = g.tensors.find((t) => t.tensor_id === 4);
      assert.deepEqual([t4.life_long, t4.life_start, t4.life_end, t4.live_from, t4.live_to], ['LifeLongGraphEnd', 2, 4, 2, 4]);
    });
    const o = await open('mindspore', sel);
    await check('mindspore msmem: the Device memory panel shows the cards, curve, nodes and the peak breakdown', async () => {
      await noErrorBox(o.page, 'mindspore');
      await o.page.waitForSelector('[data-testid="ms-devmem-breakdown-title"]');
      assert.equal(await text(o.page, '[data-testid="ms-devmem-peak"] .card-value'), '6.17 GB');
      assert.equal(await text(o.page, '[data-testid="ms-devmem-capacity"] .card-value'), '32 GB');
      assert.ok(await o.page.$('[data-testid="ms-devmem-chart"] canvas'), 'no curve');
      const nodes = await tableRows(o.page, 'ms-devmem-nodes');
      assert.deepEqual(nodes.map((x) => x.name.text), ['Conv2D-op1', 'ReLU-op2', 'MatMul-op3', 'Add-op4']);
      assert.match(await text(o.page, '[data-testid="ms-devmem-breakdown-title"]'), /node 1 \(ReLU-op2\): 2,/);
      const bd = await tableRows(o.page, 'ms-devmem-breakdown');
      assert.deepEqual(bd.map((x) => x.name.text), ['Conv2D-op1:0', 'ReLU-op2:0']);
      assert.deepEqual(bd.map((x) => x.life.text), ['0–1', '1–2']);
    });
    await check('mindspore msmem: a click on a node shows the tensors live there', async () => {
      await o.page.click('[data-testid="table-ms-devmem-nodes"] tbody tr:nth-child(4)');
      await o.page.waitForFunction(() => /node 3 \(Add-op4\)/.test(document.querySelector('[data-testid="ms-devmem-breakdown-title"]').textContent));
      const bd = await tableRows(o.page, 'ms-devmem-breakdown');
      assert.deepEqual(bd.map((x) => x.name.text), ['MatMul-op3:0', 'Add-op4:0']);
      await shoot(o.page, 'mindspore-msmem');
    });
    await finish('mindspore msmem', o);
  }
}

// GPU-mode and host CPU op tables: run mshostops is tests/e2e/data/ms_hostops
// (hand-written; values as tests/e2e/ms_tables.sh computes them); run
// mshostinfo is tests/e2e/data/ms_hostinfo (host_info/host_info_0.csv beside a
// host CPU op table: values as tests/e2e/ms_hostinfo.sh computes them)
{
  const r = runs.find((x) => x.name === 'mshostops');
  if (!r || r.kind !== 'mindspore') skip('mindspore GPU and host CPU op tables', 'no mshostops run (tests/browser/run.sh copies tests/e2e/data/ms_hostops)');
  else {
    const o = await open('mindspore', { run: 'mshostops', worker: 'device_0' });
    await check('mindspore mshostops: the GPU operators panel shows the three tables with MindInsight\'s columns', async () => {
      await noErrorBox(o.page, 'mindspore');
      await o.page.waitForSelector('[data-testid="ms-gpu-ops"]');
      const types = await tableRows(o.page, 'ms-gpu_op_type-table');
      assert.deepEqual(types.map((x) => x.op_type.text), ['MatMul', 'ReLU', 'Add']);
      assert.equal(types[0].total_time_us.text, '1,200.5');
      assert.equal(types[0].execution_frequency.text, '4');
      assert.equal(types[0].total_percent.text, '60');
      assert.equal(types[2].total_time_us.text, '0.456789');
      const heads = await o.page.$$eval('[data-testid="table-ms-gpu_op_type-table"] thead th', (t) => t.map((x) => x.textContent.trim()));
      assert.ok(heads.some((x) => /Execution time ratio/.test(x)), heads.join('|'));
      assert.equal((await tableRows(o.page, 'ms-gpu_op_detail-table')).length, 2);
      assert.ok((await tableRows(o.page, 'ms-gpu_activity-table')).length >= 1);
    });
    await check('mindspore mshostops: the host CPU operators panel shows Cast 1500 us, 75 %', async () => {
      await o.page.waitForSelector('[data-testid="ms-cpu-ops"]');
      const t = await tableRows(o.page, 'ms-cpu_op_type-table');
      const cast = t.find((x) => x.op_type.text === 'Cast');
      assert.ok(cast, 'no Cast row');
      assert.equal(cast.total_compute_time_us.text, '1500');
      assert.equal(cast.total_time_proportion.text, '75');
      assert.ok((await tableRows(o.page, 'ms-cpu_op_detail-table')).length >= 1);
      await shoot(o.page, 'mindspore-hostops');
    });
    await finish('mindspore mshostops', o);
  }
  const q = runs.find((x) => x.name === 'mshostinfo');
  if (!q || q.kind !== 'mindspore') skip('mindspore host information', 'no mshostinfo run (tests/browser/run.sh copies tests/e2e/data/ms_hostinfo)');
  else {
    const o = await open('mindspore', { run: 'mshostinfo', worker: 'device_0' });
    await check('mindspore mshostinfo: the host panel shows the stage times, the host memory rows and the timeline counts', async () => {
      await noErrorBox(o.page, 'mindspore');
      await o.page.waitForSelector('[data-testid="ms-host"]');
      assert.equal(await text(o.page, '[data-testid="ms-host-rows"] .card-value'), '6');
      assert.equal(await text(o.page, '[data-testid="ms-host-mem-rows"] .card-value'), '2');
      assert.equal(await text(o.page, '[data-testid="ms-host-peak"] .card-value'), '3,072 kB');
      assert.equal(await text(o.page, '[data-testid="ms-host-spans"] .card-value'), '2');
      const st = await tableRows(o.page, 'ms-host-stage-table');
      assert.deepEqual(st.map((x) => x.stage.text), ['Optimize', 'Parse']);
      const mem = await tableRows(o.page, 'ms-host-memory-table');
      assert.deepEqual(mem.map((x) => x['memory_usage(kB)'].text.replace(/,/g, '')), ['2048', '3072']);
      // MindSpore's dataset table: this host_info has no Dataset start / end pair
      assert.match(await text(o.page, '[data-testid="ms-host-dataset"]'), /dataset_0\.csv[\s\S]*No Dataset start/);
      assert.equal(await text(o.page, '[data-testid="ms-host-ds-rows"] .card-value'), '0');
      // only the host CPU table of this device: no GPU panel
      assert.equal(await o.page.$('[data-testid="ms-gpu-ops"]'), null);
      assert.ok(await o.page.$('[data-testid="ms-cpu-ops"]'));
      await shoot(o.page, 'mindspore-hostinfo');
    });
    await finish('mindspore mshostinfo', o);
  }
  // mshostds is tests/e2e/data/ms_hostds: device 0's host_info_0.csv has Dataset
  // rows; values as MindSpore computes them (tests/e2e/ms_hostinfo.sh compares
  // dataset_0.csv with MindSpore's own code byte for byte)
  const d = runs.find((x) => x.name === 'mshostds');
  if (!d || d.kind !== 'mindspore') skip('mindspore dataset table', 'no mshostds run (tests/browser/run.sh copies tests/e2e/data/ms_hostds)');
  else {
    const o = await open('mindspore', { run: 'mshostds', worker: 'device_0' });
    await check('mindspore mshostds: the host panel shows MindSpore\'s dataset table (Batch::Get 3 x 133.333 us, 6 rows)', async () => {
      await noErrorBox(o.page, 'mindspore');
      await o.page.waitForSelector('[data-testid="ms-host-dataset"]');
      assert.equal(await text(o.page, '[data-testid="ms-host-ds-rows"] .card-value'), '6');
      assert.match(await text(o.page, '[data-testid="ms-host"] h4'), /./);
      const t = await tableRows(o.page, 'ms-host-dataset-table');
      assert.equal(t.length, 6);
      const heads = await o.page.$$eval('[data-testid="table-ms-host-dataset-table"] thead th', (x) => x.map((e) => e.textContent.trim()));
      for (const c of ['Operation', 'Stage', 'Occurrences', 'Avg. time (us)', 'Custom Info']) assert.ok(heads.some((x) => x.startsWith(c)), heads.join('|'));
      const batch = t.find((x) => x.Operation.text === 'Batch');
      assert.ok(batch, 'no Batch row');
      assert.equal(batch.Stage.text, 'Get');
      assert.equal(batch.Occurrences.text, '3');
      assert.equal(batch['Avg. time (us)'].text, '133.333');
      const read = t.find((x) => x.Stage.text === '读取');
      assert.ok(read, 'no Map::读取 row');
      assert.equal(read['Avg. time (us)'].text, '250');
      assert.ok(t.some((x) => x['Custom Info'].text === 'op="resize",size=2'));
      assert.equal(await text(o.page, '[data-testid="ms-host-rows"] .card-value'), '28');
      await shoot(o.page, 'mindspore-host-dataset');
    });
    await finish('mindspore mshostds', o);
  }
}

// every other MindSpore device: the tab renders, panels fail alone, no page errors
{
  const others = [];
  for (const r of runs.filter((x) => x.kind === 'mindspore')) {
    for (const w of r.workers) if (!(r.name === MS_RUN && w === dev)) others.push({ run: r.name, worker: w.name });
  }
  if (!others.length) skip('mindspore other devices', 'no other MindSpore runs');
  for (const sel of others.slice(0, 5)) {
    const name = `mindspore ${sel.run} ${sel.worker}`;
    const o = await open('mindspore', sel);
    await check(`${name}: renders, no error box`, async () => {
      await noErrorBox(o.page, 'mindspore');
      const n = await o.page.$$eval('section.ms-section', (s) => s.length);
      assert.equal(n >= 7, true, `${n} panel sections`);
    });
    await finish(name, o);
  }
}

// the generic Overview and Operator tabs on run_1's Ascend device (issue 22):
// the step trace's 322 steps, one NPU, no GPU advice; the Operator tab points
// to the MindSpore tab's operator tables
if (!msRun || msRun.kind !== 'mindspore' || !dev) {
  skip('overview on Ascend', `no MindSpore run ${MS_RUN} in the logdir`);
} else {
  const sel = { run: msRun.name, worker: dev.name };
  const o = await open('overview', sel);
  await check('overview run_1: 322 steps from the step trace, one NPU, no GPU advice', async () => {
    await noErrorBox(o.page, 'overview');
    const steps = await text(o.page, '[data-testid="view-overview"] .card-value').catch(() => '');
    const body = await o.page.$eval('[data-testid="view-overview"]', (e) => e.textContent);
    assert.match(body, /322/, 'the step count shown');
    assert.match(body, /from the MindSpore step trace/);
    assert.match(body, /NPU summary \(Ascend\)/);
    assert.ok(!/GPU summary/.test(body), 'no GPU summary');
    assert.ok(!/low utilization/.test(body), 'no GPU utilization advice');
    assert.equal(await o.page.$$eval('[data-testid^="npu-"]', (c) => c.length), 1, 'one NPU card');
    assert.equal(await o.page.$$eval('[data-testid^="gpu-"]', (c) => c.length), 0, 'no GPU card');
    void steps;
  });
  await shoot(o.page, 'overview-ascend-run_1');
  await finish('overview run_1', o);
  const o2 = await open('operator', sel);
  await check('operator run_1: points to the MindSpore tab, no PyTorch hints', async () => {
    const t = await text(o2.page, '[data-testid="view-operator"] [data-testid="empty-state"]');
    assert.match(t, /MindSpore tab/);
    assert.ok(!/torch/.test(t), `PyTorch hints: ${t}`);
    await o2.page.click('[data-testid="operator-ms-link"]');
    await o2.page.waitForSelector('[data-testid="view-mindspore"][data-loaded="1"]', { timeout: LOAD_MS, state: 'attached' });
  });
  await shoot(o2.page, 'operator-ascend-run_1');
  await finish('operator run_1', o2);
}

// a worker that is not a MindSpore device
{
  const ok = (x) => x.kind !== 'mindspore' && x.workers.length && x.name !== 'damaged';
  const r = runs.find((x) => ok(x) && x.name === 'mlp') || runs.find(ok);
  if (!r) skip('mindspore non-MindSpore worker', 'no other run');
  else {
    const o = await open('mindspore', { run: r.name, worker: r.workers[0].name });
    await check(`mindspore on ${r.name}: says it is not a MindSpore device`, async () => {
      const t = await text(o.page, '[data-testid="view-mindspore"] [data-testid="empty-state"]');
      assert.match(t, /not a MindSpore device/);
      assert.equal(await o.page.$$eval('section.ms-section', (s) => s.length), 0, 'no panels');
    });
    await finish(`mindspore ${r.name}`, o);
  }
}

// parallel strategy and the stage timeline (web/mindspore/parallel.js):
// MindInsight's parallel_strategy answer (test_parallel_strategy.py) and
// the saved Marey answer of marey_graph, shown in the MindSpore tab
{
  const ps = runs.find((r) => r.name === 'mindspore/parallel_strategy');
  const mg = runs.find((r) => r.name === 'mindspore/marey_graph');
  if (!ps || !mg) skip('mindspore parallel strategy / marey', 'no parallel_strategy or marey_graph fixture in the logdir');
  else {
    const o = await open('mindspore', { run: ps.name, worker: ps.workers[0].name });
    await check('mindspore parallel_strategy: stage 0 ranks 0, 1 and Conv2D-op2 with its strategy and groups 0, 1', async () => {
      await o.page.waitForSelector('[data-testid="ms-parallel-summary"]', { timeout: 10000 });
      const sum = await text(o.page, '[data-testid="ms-parallel-summary"]');
      assert.match(sum, /Stage 0: 2 operators, 1 with a sharding strategy/);
      const rows = await tableRows(o.page, 'ms-parallel-ops');
      const conv = rows.find((r) => r.name.text === 'Default/conv1-Conv2d/Conv2D-op2');
      assert.ok(conv, 'Conv2D-op2 row');
      assert.equal(conv.strategy.text, '[[2, 1, 1, 1], [1, 1, 1, 1]]');
      assert.equal(conv.parallel_group.text, '0, 1');
      assert.equal(conv.input.text, '1');
      assert.ok(rows.find((r) => r.name.text === 'Default/GetNext-op767'), 'GetNext-op767 row');
      assert.ok(await o.page.$('[data-testid="ms-parallel-graph"] canvas'), 'the stage graph is drawn');
      await noErrorBox(o.page, 'mindspore');
    });
    await finish('mindspore parallel_strategy', o);
    const o2 = await open('mindspore', { run: mg.name, worker: mg.workers[0].name });
    await check('mindspore marey_graph: stages 0 and 1 with their devices and operator counts, chart drawn', async () => {
      await o2.page.waitForSelector('[data-testid="ms-marey"]', { timeout: 20000 });
      const rows = await tableRows(o2.page, 'ms-marey-stages');
      const s0 = rows.find((r) => r.stage.text === 'stage0'), s1 = rows.find((r) => r.stage.text === 'stage1');
      assert.ok(s0 && s1, 'both stages');
      assert.equal(s0.devices.text, 'device0, device1');
      assert.equal(Number(s0.ops.text.replace(/,/g, "")), 2937); // len(stage_data.stage0.data) of the saved answer
      assert.equal(Number(s1.ops.text.replace(/,/g, "")), 3760);
      assert.ok(await o2.page.$('[data-testid="ms-marey-chart"] canvas'), 'the Marey chart is drawn');
      await noErrorBox(o2.page, 'mindspore');
    });
    await finish('mindspore marey_graph', o2);
  }
}

// the Marey view's FLOPs / memory lines, blocks and step chooser
// (web/mindspore/parallel.js) on the hand-made job of tests/e2e/gen_ms_marey.py
// (run.sh writes it as msmarey; the values below are computed in its docstring)
{
  const mm = runs.find((r) => r.name === 'msmarey');
  if (!mm) skip('mindspore marey lines', 'no msmarey run (tests/browser/run.sh writes it with tests/e2e/gen_ms_marey.py)');
  else {
    const o = await open('mindspore', { run: 'msmarey', worker: 'device_1' });
    // the chart's line series and y-axis labels as ECharts holds them
    const drawn = () => o.page.evaluate(() => {
      const el = document.querySelector('[data-testid="ms-marey-chart"]');
      const inst = window.echarts && window.echarts.getInstanceByDom(el);
      const opt = inst.getOption();
      const labels = [];
      for (let i = 0; inst.getModel().getComponent('yAxis', i); i++) {
        const ax = inst.getModel().getComponent('yAxis', i);
        if (ax.get('show') === false) continue;
        labels.push(...ax.axis.getViewLabels().map((l) => l.formattedLabel).filter((t) => t));
      }
      return {
        labels,
        lines: opt.series.filter((x) => x.type === 'line').map((x) => ({ name: x.name, device: x.data[0].device, pts: x.data.map((d) => [d.value[0], d.raw]) })),
        step: window.__nnsMarey && window.__nnsMarey.step,
      };
    });
    await check('mindspore msmarey: one y label per device row in stage order; FLOPs and memory lines of step 1 drawn', async () => {
      await o.page.waitForFunction(() => window.__nnsMarey && window.__nnsMarey.chart, null, { timeout: LOAD_MS });
      const d = await drawn();
      assert.deepEqual(d.labels, ['stage0 device0', 'stage0 device1', 'stage1 device2']);
      assert.equal(d.step, 1);
      // x from minT (10 in step 1), y the raw values
      assert.deepEqual(d.lines.map((l) => [l.name, l.device, l.pts]), [
        ['FLOPs', 'device0', [[10, 100], [60, 300]]],
        ['FLOPs', 'device1', [[15, 200], [55, 400]]],
        ['memory', 'device0', [[10, 150], [60, 450]]],
        ['memory', 'device2', [[12.5, 1800], [40, 3300]]],
      ]);
      const stage0 = await text(o.page, '[data-testid="ms-marey-block-stage0"]');
      assert.match(stage0, /500/);
      assert.equal(await o.page.$eval('[data-testid="ms-marey-step"]', (e) => e.value), '1');
      await noErrorBox(o.page, 'mindspore');
    });
    await check('mindspore msmarey: the step chooser asks for step 2, redraws its lines and keeps ms_step in the URL', async () => {
      await Promise.all([
        o.page.waitForResponse((r) => r.url().includes('view=ms_marey') && r.url().includes('step=2') && r.status() === 200, { timeout: LOAD_MS }),
        o.page.selectOption('[data-testid="ms-marey-step"]', '2'),
      ]);
      await o.page.waitForFunction(() => window.__nnsMarey && window.__nnsMarey.step === 2, null, { timeout: LOAD_MS });
      const d = await drawn();
      // step 2: minT 110
      assert.deepEqual(d.lines.find((l) => l.name === 'FLOPs' && l.device === 'device0').pts, [[15, 100], [65, 300]]);
      assert.deepEqual(d.lines.find((l) => l.name === 'memory' && l.device === 'device2').pts, [[12.5, 1800], [30, 3300]]);
      assert.match(await o.page.evaluate(() => location.hash), /ms_step=2/);
      assert.match(await text(o.page, '[data-testid="ms-marey"] h3'), /step 2/);
    });
    await check('mindspore msmarey: a page opened with ms_step=2 shows step 2', async () => {
      const p2 = await context.newPage();
      const q = new URLSearchParams({ view: 'mindspore', run: 'msmarey', worker: 'device_0', ms_step: '2' });
      await p2.goto(`${URL0}/#${q}`);
      await p2.waitForFunction(() => window.__nnsMarey && window.__nnsMarey.chart, null, { timeout: LOAD_MS });
      assert.equal(await p2.evaluate(() => window.__nnsMarey.step), 2);
      assert.equal(await p2.$eval('[data-testid="ms-marey-step"]', (e) => e.value), '2');
      await p2.close();
    });
    await finish('mindspore msmarey', o);
  }
}

// the cluster (msprof) timeline of a rank in the Trace view (web/trace/msprof.js):
// the four planes of the detail view; Summary leaves Step Trace and Overlap
// Analysis only; the choice is kept in the address as timeline= and an address
// with timeline= opens that view (run.sh copies $NNS_SHARED/data/mindinsight/profiler to mindspore/profiler)
{
  const tl = runs.find((r) => r.name === 'mindspore/profiler/msprof');
  if (!tl) skip('msprof timeline in the Trace view', 'no mindspore/profiler/msprof run (no shared MindInsight profiler data)');
  else {
    const o = await open('trace', { run: tl.name, worker: 'rank_0' });
    const groups = () => o.page.evaluate(() => (window.__nnsTrace && window.__nnsTrace.groups) || []);
    await check('trace msprof rank_0: the planes Ascend Hardware, HCCL, Overlap Analysis, Step Trace, and the view controls', async () => {
      await o.page.waitForFunction(() => window.__nnsTrace && window.__nnsTrace.drawn > 0, null, { timeout: LOAD_MS });
      assert.deepEqual([...(await groups())].sort(), ['Ascend Hardware rank0', 'HCCL rank0', 'Overlap Analysis rank0', 'Step Trace rank0']);
      assert.equal(await o.page.$eval('[data-testid="trace-msprof-level"]', (e) => e.value), 'detail');
      const models = await o.page.$$eval('[data-testid="trace-msprof-model"] option', (os) => os.map((x) => x.value));
      assert.deepEqual(models, ['all', '2'], 'rank 0 has sub-graph 2');
    });
    await check('trace msprof rank_0: Summary hides Ascend Hardware and HCCL', async () => {
      await Promise.all([
        o.page.waitForResponse((r) => r.url().includes('/api/trace/meta') && r.url().includes('timeline=summary') && r.status() === 200, { timeout: LOAD_MS }),
        o.page.selectOption('[data-testid="trace-msprof-level"]', 'summary'),
      ]);
      await o.page.waitForFunction(() => window.__nnsTrace && window.__nnsTrace.groups.length && !window.__nnsTrace.groups.includes('HCCL rank0'), null, { timeout: LOAD_MS });
      assert.deepEqual([...(await groups())].sort(), ['Overlap Analysis rank0', 'Step Trace rank0']);
      assert.equal(await o.page.$eval('[data-testid="trace-msprof-level"]', (e) => e.value), 'summary');
      // the choice is kept in the page's address (issue 22 part 4)
      assert.equal(await hashParam(o.page, 'timeline'), 'summary/merged/all');
    });
    await shoot(o.page, 'trace-msprof-rank0-summary');
    await finish('trace msprof rank_0', o);
    // an address with timeline= opens that view: summary, sub-graphs apart,
    // sub-graph 2 (rank 0's Step Trace thread "Model ID:2"); a change of the
    // sub-graph rewrites timeline= in the address
    const o2 = await open('trace', { run: tl.name, worker: 'rank_0' }, { timeline: 'summary/apart/2' });
    await check('trace msprof rank_0 from an address with timeline=summary/apart/2: that view is selected and shown', async () => {
      await o2.page.waitForFunction(() => window.__nnsTrace && window.__nnsTrace.drawn > 0, null, { timeout: LOAD_MS });
      const sel = await o2.page.$$eval('[data-testid="trace-msprof"] select', (ss) => ss.map((x) => x.value));
      assert.deepEqual(sel, ['summary', 'apart', '2']);
      const g = await o2.page.evaluate(() => window.__nnsTrace.groups);
      assert.deepEqual([...g].sort(), ['Overlap Analysis rank0', 'Step Trace rank0']);
    });
    await check('trace msprof rank_0: choosing all sub-graphs writes timeline=summary/apart/all into the address', async () => {
      await Promise.all([
        o2.page.waitForResponse((r) => r.url().includes('/api/trace/meta') && r.url().includes('timeline=summary%2Fapart%2Fall') && r.status() === 200, { timeout: LOAD_MS }),
        o2.page.selectOption('[data-testid="trace-msprof-model"]', 'all'),
      ]);
      assert.equal(await hashParam(o2.page, 'timeline'), 'summary/apart/all');
      // the rest of the address stays
      assert.equal(await hashParam(o2.page, 'worker'), 'rank_0');
      assert.equal(await hashParam(o2.page, 'view'), 'trace');
    });
    await finish('trace msprof rank_0 (timeline= in the address)', o2);
  }
}

await browser.close();
console.log(`mindspore browser tests: ${T.passed} passed, ${T.failed} failed`);
process.exit(T.failed ? 1 : 0);
