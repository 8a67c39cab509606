// Browser tests of what the views choose and show on their own (issue 18): the Cluster tab
// shows the selected run's cluster and nothing else, Diff's default base is the older trace,
// the Trace view opens on the trace's extent, long pie legend labels are truncated beside the
// pie with the full name as tooltip, and the unattributed-device-time warning gives a count
// and a % in the Overview and the Operator view. Runs: tests/browser/gen_runs.mjs (attr/,
// pair/, order/, dist/, modules/) and, when present, the MindSpore job $NNS_MSJOB.
// One PASS/FAIL/SKIP line per check; exit status 1 on any FAIL.
// env: NNS_URL (tests/browser/run.sh's server), NNS_SHOTS, NNS_CHROMIUM, NNS_ROOT, NNS_MSJOB.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);
const URL0 = process.env.NNS_URL;
const SHOTS = process.env.NNS_SHOTS;
const LOAD_MS = +(process.env.NNS_LOAD_MS || 120000);
const T = checker();
const { check, skip } = T;

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

const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });

/** Opens view/selection in a fresh page (viewport width `width`) and waits for the view;
 * `until`: a hash the page must reach first (a view that changes the selection re-renders). */
async function open(view, sel, { extra, width = 1440, until } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  const q = new URLSearchParams({ view, ...sel, ...(extra || {}) });
  try {
    await page.goto(`${URL0}/#${q}`);
    if (until) await page.waitForFunction((re) => new RegExp(re).test(decodeURIComponent(location.hash)), until.source, { timeout: LOAD_MS });
    await page.waitForSelector(`[data-testid="view-${view}"][data-loaded="1"]`, { timeout: LOAD_MS, state: 'attached' });
  } catch (e) {
    errors.push(`view-${view} did not load${until ? ` (or the hash never matched ${until})` : ''}: ${String(e.message).split('\n')[0]}`);
  }
  return { page, errors, context };
}

async function finish(name, o, shot) {
  if (SHOTS && shot) await o.page.screenshot({ path: path.join(SHOTS, `${shot}.png`), fullPage: true });
  await check(`${name}: no page or console errors`, async () => assert.deepEqual(o.errors, []));
  await o.context.close();
}

const text = (page, sel) => page.$eval(sel, (e) => e.textContent.trim()).catch(() => null);
const runs = (await api('/api/runs')).runs;
const have = (name) => runs.some((r) => r.name === name);

/* ---------------------------------------------------------------- Cluster */

if (!have('modules')) skip('cluster one-worker run', 'the modules run was not generated');
else {
  const o = await open('cluster', { run: 'modules' });
  await check('cluster modules (1 worker): an empty state that says why, no other run\'s job', async () => {
    const t = await text(o.page, '[data-testid="view-cluster"] [data-testid="empty-state"]');
    assert.ok(t, 'no empty state');
    assert.match(t, /"modules" has no cluster/);
    assert.match(t, /1 worker/);
    assert.equal(await o.page.$('[data-testid="table-cluster-ranks"]'), null, 'a rank table is shown');
    assert.equal(await o.page.$('[data-testid="cluster-source"]'), null, 'a cluster source is shown');
    assert.match(await o.page.evaluate(() => location.hash), /run=modules(&|$)/, 'the selection changed');
  });
  await check('cluster modules: links select the runs with several ranks', async () => {
    const links = await o.page.$$eval('[data-testid="cluster-other-runs"] a', (as) => as.map((a) => a.textContent));
    assert.ok(links.includes('dist'), `links: ${links}`);
    assert.ok(!links.includes('modules'));
  });
  await finish('cluster modules', o, 'defaults-cluster-modules');
}
for (const [run, n] of [['dist', 2], ['pair', 2]]) {
  if (!have(run)) { skip(`cluster ${run}`, `the ${run} run was not generated`); continue; }
  const o = await open('cluster', { run });
  await check(`cluster ${run} (PyTorch, ${n} workers): its own ranks`, async () => {
    const doc = await api('/api/cluster', { run });
    assert.equal(doc.ranks.length, n, 'API ranks');
    const src = await text(o.page, '[data-testid="cluster-source"] > span');
    assert.equal(src, `Run ${run} (${n} ranks)`);
    const workers = await o.page.$$eval('[data-testid="table-cluster-ranks"] tbody tr', (trs) => trs.map((tr) => tr.children[2].textContent.trim()));
    const want = runs.find((r) => r.name === run).workers.map((w) => w.name);
    assert.deepEqual([...workers].sort(), [...want].sort(), 'rank rows are not the run\'s workers');
  });
  await finish(`cluster ${run}`, o);
}
const MSJOB = process.env.NNS_MSJOB;
if (!MSJOB || !have(MSJOB)) skip('cluster job= link', 'MindInsight cluster_propose fixture not found');
else {
  // an old link naming a job beside another run selects the job as the run
  const o = await open('cluster', { run: 'dist' }, { extra: { job: MSJOB }, until: new RegExp(`run=${MSJOB}&`) });
  await check('cluster job= link: the job becomes the selected run', async () => {
    await o.page.waitForSelector('[data-testid="cluster-source"]', { timeout: LOAD_MS });
    assert.equal(await o.page.$eval('#run-select', (s) => s.value), MSJOB);
    assert.match(await text(o.page, '[data-testid="cluster-source"] > span'), new RegExp(`^Run ${MSJOB}: MindSpore cluster job \\(4 ranks\\)`));
  });
  await finish('cluster job= link', o);
}

/* ------------------------------------------------------------------- Diff */

async function diffSel(page) {
  const v = (id) => page.$eval(`[data-testid="${id}"]`, (s) => s.value);
  return { base: `${await v('diff-base-run')}/${await v('diff-base-worker')}`, exp: `${await v('diff-exp-run')}/${await v('diff-exp-worker')}` };
}
if (!have('pair')) skip('diff default pair', 'the pair run was not generated');
else {
  // the newer, alphabetically first worker selected: the default base is the one that starts first
  const o = await open('diff', { run: 'pair', worker: 'after_fix' }, { until: /worker2=/ });
  await check('diff pair: base = before_fix (starts first), experiment = after_fix', async () => {
    await o.page.waitForSelector('[data-testid="diff-base-run"]', { timeout: LOAD_MS });
    assert.deepEqual(await diffSel(o.page), { base: 'pair/before_fix', exp: 'pair/after_fix' });
    const tip = await o.page.$eval('[data-testid="diff-rule"]', (e) => e.title);
    assert.match(tip, /base = the older trace/);
  });
  await finish('diff pair', o, 'defaults-diff-pair');
}
if (!have('order/aa_tuned') || !have('order/zz_baseline')) skip('diff default by name', 'the order runs were not generated');
else {
  const o = await open('diff', { run: 'order/aa_tuned' }, { until: /run2=/ });
  await check('diff order: same start and file time, the "baseline" run is the base', async () => {
    await o.page.waitForSelector('[data-testid="diff-base-run"]', { timeout: LOAD_MS });
    assert.deepEqual(await diffSel(o.page), { base: 'order/zz_baseline/w', exp: 'order/aa_tuned/w' });
  });
  await finish('diff order', o);
}

/* ------------------------------------------------------------------ Trace */

const traceRuns = [['attr', 'w']];
const kin = runs.find((r) => r.name === 'resnet50_num_workers_0');
if (kin) traceRuns.push([kin.name, kin.workers[0].name]);
for (const [run, worker] of traceRuns) {
  if (!have(run)) { skip(`trace ${run} initial window`, 'run not found'); continue; }
  const o = await open('trace', { run, worker });
  await check(`trace ${run}: opens on the trace's extent, no negative time`, async () => {
    await o.page.waitForFunction(() => window.__nnsTrace && window.__nnsTrace.drawn >= 1, null, { timeout: LOAD_MS });
    const meta = await api('/api/trace/meta', { run, worker, span: runs.find((r) => r.name === run).workers[0].spans[0] });
    const v = await o.page.evaluate(() => window.__nnsTrace.visible);
    assert.ok(v.t0 >= meta.start, `the window starts at ${v.t0} ns, before the trace (${meta.start})`);
    assert.equal(v.t0, meta.start, 'the window does not start at the first event');
    assert.ok(v.t1 >= meta.end, `the window ends at ${v.t1}, before the trace's end ${meta.end}`);
  });
  await finish(`trace ${run}`, o);
}

/* ---------------------------------------------------------- Pie legends */

if (!have('attr')) skip('pie legends', 'the attr run was not generated');
else {
  // 1024 px: each pie is ~470 px wide, where a fixed 240 px label ran over the pie
  const o = await open('operator', { run: 'attr', worker: 'w' }, { extra: { top: '30' }, width: 1024 });
  const chart = 'chart-op-pie-host-self';
  const legend = () => o.page.evaluate((id) => {
    const el = document.querySelector(`[data-testid="${id}"]`);
    const c = echarts.getInstanceByDom(el);
    const list = c.getZr().storage.getDisplayList(true);
    const sec = list.find((d) => d.type === 'sector');
    const labels = list.filter((d) => d.type === 'tspan' && /^aten::/.test(d.style.text)).map((d) => {
      const r = d.getBoundingRect().clone();
      r.applyTransform(d.transform);
      return { text: d.style.text, x: d.transform[4], y: d.transform[5], right: r.x + r.width };
    });
    const opt = c.getOption();
    return { w: el.clientWidth, pieRight: sec.shape.cx + sec.shape.r, labels, type: opt.legend[0].type };
  }, chart);
  await check('pie legend: 24 long names, labels truncated with an ellipsis beside the pie, scrollable', async () => {
    const L = await legend();
    assert.ok(L.labels.length >= 5, `${L.labels.length} labels drawn`);
    assert.equal(L.type, 'scroll');
    for (const l of L.labels) {
      assert.ok(l.text.length < 60 && /(…|\.\.\.)$/.test(l.text), `label not truncated: ${l.text}`);
      assert.ok(l.x - 21 >= L.pieRight, `legend item at x=${l.x - 21} overlaps the pie (right edge ${L.pieRight})`);
      assert.ok(l.right <= L.w + 1, `label runs out of the chart: ${l.right} > ${L.w}`);
    }
  });
  await check('pie legend: the full name as the tooltip of a truncated label', async () => {
    const L = await legend();
    const box = await o.page.$eval(`[data-testid="${chart}"]`, (el) => { el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect(); return { x: r.left, y: r.top }; });
    await o.page.mouse.move(box.x + L.labels[0].x + 20, box.y + L.labels[0].y, { steps: 4 });
    await o.page.waitForFunction((id) => [...document.querySelectorAll(`[data-testid="${id}"] div`)].some((d) => /template_arguments<float, 4, true, at::native::Layout>/.test(d.innerText)),
      chart, { timeout: 5000 });
  });
  await finish('pie legends', o, 'defaults-legend-1024');
}

/* ---------------------------------------------- unattributed device time */

if (!have('attr')) skip('unattributed warning', 'the attr run was not generated');
else {
  const doc = await api('/api/view', { run: 'attr', worker: 'w', view: 'overview' });
  const a = doc.diagnostics.attribution;
  const want = /^1 of 2 device events \(75\.0 % of device time, 300 µs\) belong to no operator; operator device columns leave them out\./;
  await check('attr: the server counts 1 of 2 device events, 75 % of device time, unattributed', async () => {
    assert.equal(a.device_events, 2);
    assert.equal(a.device_without_launch + a.device_unattributed, 1);
    assert.equal(a.device_unattributed_pct, 75);
  });
  for (const view of ['overview', 'operator']) {
    const o = await open(view, { run: 'attr', worker: 'w' });
    await check(`${view} attr: the warning gives the count and the % of device time`, async () => {
      const t = await text(o.page, `[data-testid="view-${view}"] [data-testid="unattributed-warning"]`);
      assert.ok(t, 'no warning');
      assert.match(t, want);
    });
    if (view === 'operator') {
      await check('operator attr: the warning sits above the operator table', async () => {
        const above = await o.page.evaluate(() => {
          const w = document.querySelector('[data-testid="unattributed-warning"]');
          const t = document.querySelector('[data-testid="table-operators"]');
          return !!(w && t && (w.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING));
        });
        assert.ok(above);
      });
    }
    await finish(`${view} attr`, o, `defaults-warning-${view}`);
  }
  if (have('modules')) {
    const o = await open('operator', { run: 'modules', worker: 'w' });
    await check('operator modules (no device events): no unattributed warning', async () => {
      assert.equal(await o.page.$('[data-testid="unattributed-warning"]'), null);
    });
    await finish('operator modules', o);
  }
}

await browser.close();
console.log(`browser tests (defaults): ${T.passed} passed, ${T.failed} failed`);
process.exit(T.failed ? 1 : 0);
