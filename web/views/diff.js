// Diff view: base vs experiment (run/worker/span each), step-time breakdown comparison
// and the operator delta table (`nnscope diff`). The base is the global selection; the
// experiment is the hash's run2/worker2/span2. Without run2 the view picks a default pair,
// older -> newer (defaultPair, DEFAULT_RULE: shown as the Compare panel's tooltip and note).
// The operator and HTA trace-diff tables take their titles from /api/schema (diff_ops, trace_diff).
import { h, emptyState, panel, select, labeled, fmtUs, fmtPct, errorBox, esc , axisUs } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { breakdownRoles, chartBox, makeChart, disposeCharts } from '../lib/charts.js';
import { columns } from '../lib/schema.js';

function allTargets(runs) {
  const out = [];
  for (const r of runs?.runs || []) for (const w of r.workers || []) {
    if ((w.spans || []).length) for (const s of w.spans) out.push({ run: r.name, worker: w.name, span: s });
    else out.push({ run: r.name, worker: w.name, span: '' });
  }
  return out;
}

// The default comparison when the hash names no experiment (run2): the
// selected target and its counterpart, ordered older -> newer.
//  - counterpart: another span of the same worker, else another worker of
//    the same run, else the run whose newest trace file (mtime_ms of
//    /api/runs) is closest in time to the selected run's;
//  - order: spans of one worker in span order (numbered in time order);
//    otherwise the trace that starts first (trace_start_us of each one's
//    overview.json) is the base; when the starts are equal or unknown, the
//    older run by mtime_ms; when that is equal or unknown too, a name like
//    "before" / "base" / "baseline" / "old" / "orig" / "ref" is the base;
//    otherwise the selection stays the base.
export const DEFAULT_RULE = 'Default when you have not picked an experiment: base = the older trace, experiment = the newer one. ' +
  'Older: the trace that starts first; with equal or unknown starts, the run whose trace files were modified first; ' +
  'with equal times, the one named before / base / baseline / old / orig / ref. Spans of one worker: the earlier span is the base.';
const BASE_NAME = /(^|[^a-z])(before|baseline|base|orig(inal)?|old|ref(erence)?)([^a-z]|$)/i;

/** The default {base, exp} for the selected target `base`; `start(t)`
 * resolves to a target's trace start (µs) or null. */
export async function defaultPair(runs, base, start) {
  const t = allTargets(runs);
  const same = (a, b) => a.run === b.run && a.worker === b.worker && a.span === b.span;
  const sameWorker = t.find((a) => a.run === base.run && a.worker === base.worker && !same(a, base));
  if (sameWorker) {
    return t.indexOf(sameWorker) < t.findIndex((a) => same(a, base)) ? { base: sameWorker, exp: base } : { base, exp: sameWorker };
  }
  const mtime = (name) => (runs?.runs || []).find((r) => r.name === name)?.mtime_ms ?? null;
  let exp = t.find((a) => a.run === base.run && !same(a, base));
  if (!exp) {
    const others = t.filter((a) => a.run !== base.run);
    if (!others.length) return { base, exp: null };
    // the run nearest in time, else the first in list order; its first target
    const m0 = mtime(base.run);
    const dist = (a) => (m0 != null && mtime(a.run) != null ? Math.abs(mtime(a.run) - m0) : Infinity);
    exp = others.reduce((best, a) => (dist(a) < dist(best) ? a : best), others[0]);
  }
  const [s0, s1] = await Promise.all([base, exp].map((x) => start(x).catch(() => null)));
  const m0 = mtime(base.run), m1 = mtime(exp.run);
  let swap;
  if (typeof s0 === 'number' && typeof s1 === 'number' && s0 !== s1) swap = s1 < s0;
  else if (m0 != null && m1 != null && m0 !== m1) swap = m1 < m0;
  else {
    const n0 = base.run === exp.run ? base.worker : base.run, n1 = base.run === exp.run ? exp.worker : exp.run;
    swap = BASE_NAME.test(n1) && !BASE_NAME.test(n0);
  }
  return swap ? { base: exp, exp: base } : { base, exp };
}

/** three selects (run, worker, span) bound to a {run, worker, span} target */
function targetPicker(prefix, runs, cur, onchange) {
  const runSel = select((runs.runs || []).map((r) => r.name), cur.run, null, { testid: `${prefix}-run`, 'aria-label': `${prefix} run` });
  const workerSel = h('select', { testid: `${prefix}-worker`, 'aria-label': `${prefix} worker` });
  const spanSel = h('select', { testid: `${prefix}-span`, 'aria-label': `${prefix} span` });
  const fill = (sel, items, value) => {
    sel.textContent = '';
    for (const it of items) sel.appendChild(h('option', { value: it }, it));
    if (!items.length) sel.appendChild(h('option', { value: '' }, '—'));
    sel.disabled = !items.length;
    sel.value = items.includes(value) ? value : (items[0] ?? '');
  };
  const run = () => (runs.runs || []).find((r) => r.name === runSel.value);
  const worker = () => run()?.workers?.find((w) => w.name === workerSel.value);
  const refill = (t) => {
    fill(workerSel, (run()?.workers || []).map((w) => w.name), t.worker);
    fill(spanSel, worker()?.spans || [], t.span);
  };
  refill(cur);
  const emit = () => onchange({ run: runSel.value, worker: workerSel.value, span: spanSel.value || '' });
  runSel.addEventListener('change', () => { refill({}); emit(); });
  workerSel.addEventListener('change', () => { fill(spanSel, worker()?.spans || [], spanSel.value); emit(); });
  spanSel.addEventListener('change', emit);
  return h('span', { class: 'toolbar' }, labeled('Run', runSel), labeled('Worker', workerSel), labeled('Span', spanSel));
}

const label = (t) => `${t.run} / ${t.worker}${t.span ? ' / span ' + t.span : ''}`;

export default {
  id: 'diff',
  title: 'Diff',
  async render(el, ctx) {
    const targets = allTargets(ctx.runs);
    if (targets.length < 2) {
      el.appendChild(emptyState('Diff needs two traces.',
        'Put two runs (or a run with two profiling spans, e.g. torch.profiler.schedule(..., repeat=2)) under the logdir; then pick a base and an experiment here.'));
      return;
    }
    let base = { run: ctx.run, worker: ctx.worker, span: ctx.span || '' };
    const p = ctx.params;
    const known = (x) => x && targets.some((t) => t.run === x.run && t.worker === x.worker && t.span === x.span);
    let exp = p.run2 ? { run: p.run2, worker: p.worker2 || '', span: p.span2 || '' } : null;
    if (!known(exp)) {
      // no (valid) experiment picked: the default pair, older -> newer;
      // when that makes another target the base, select it (the global
      // selection is the base) and record both in the hash
      const start = (x) => ctx.api('/api/view', { run: x.run, worker: x.worker, span: x.span, view: 'overview' })
        .then((d) => (typeof d.trace_start_us === 'number' ? d.trace_start_us : null));
      const d = await defaultPair(ctx.runs, base, start);
      if (!ctx.alive()) return;
      exp = d.exp;
      if (exp && (d.base.run !== base.run || d.base.worker !== base.worker || d.base.span !== base.span)) {
        ctx.select(d.base, { run2: exp.run, worker2: exp.worker, span2: exp.span });
        return;
      }
      base = d.base;
    }

    const body = h('div', { class: 'view' });
    el.appendChild(panel('Compare', h('div', { class: 'view', style: { gap: '6px' }, title: DEFAULT_RULE, testid: 'diff-compare' },
      h('div', { class: 'toolbar' }, h('b', { style: { width: '90px' } }, 'Base'),
        targetPicker('diff-base', ctx.runs, base, (t) => ctx.select(t, { run2: exp.run, worker2: exp.worker, span2: exp.span }))),
      h('div', { class: 'toolbar' }, h('b', { style: { width: '90px' } }, 'Experiment'),
        targetPicker('diff-exp', ctx.runs, exp, (t) => { exp = t; ctx.setParams({ run2: t.run, worker2: t.worker, span2: t.span }); load(); })),
      h('div', { class: 'muted', testid: 'diff-rule', title: DEFAULT_RULE },
        'Default pair: base = the older run, experiment = the newer one (hover for the rule).'))));
    el.appendChild(body);

    let seq = 0;
    async function load() {
      const my = ++seq;
      disposeCharts(body);
      body.textContent = '';
      body.appendChild(h('div', { class: 'loading' }, `Comparing ${label(base)} with ${label(exp)}…`));
      let doc;
      try {
        doc = await ctx.api('/api/diff', { run: base.run, worker: base.worker, span: base.span, run2: exp.run, worker2: exp.worker, span2: exp.span });
      } catch (e) {
        if (e.name === 'AbortError' || my !== seq) return;
        body.textContent = '';
        body.appendChild(errorBox(e));
        return;
      }
      if (my !== seq || !ctx.alive()) return;
      body.textContent = '';
      drawDiff(body, doc);
    }

    function drawDiff(host, doc) {
      const sb = doc.steps?.base || {}, se = doc.steps?.exp || {}, sd = doc.steps?.delta || {};
      const cats = [{ key: 'total_us', name: 'Step total' }, ...breakdownRoles()];
      const stepRows = cats.map((c) => ({
        name: c.name, base: sb[c.key], exp: se[c.key], delta: sd[c.key] ?? ((se[c.key] || 0) - (sb[c.key] || 0)),
        rel: sb[c.key] ? ((se[c.key] || 0) - sb[c.key]) / sb[c.key] : null,
      }));
      const box = chartBox('chart-diff', 300);
      const sign = (v, f) => (typeof v === 'number' && v > 0 ? '+' : '') + f(v);
      const stepTable = createTable({
        name: 'diff-steps', rows: stepRows, search: false,
        columns: [
          { key: 'name', title: 'Category', fmt: 'text' },
          { key: 'base', title: 'Base', fmt: 'us' },
          { key: 'exp', title: 'Experiment', fmt: 'us' },
          { key: 'delta', title: 'Delta', fmt: (v) => sign(v, fmtUs), numeric: true },
          { key: 'rel', title: 'Delta %', fmt: (v) => (v == null ? '–' : sign(v, fmtPct)), numeric: true },
        ],
        rowClass: (r) => (r.name === 'Step total' ? 'total' : ''),
      });
      host.appendChild(h('div', { class: 'row' },
        h('div', null, panel(`Average step time: base (${doc.base_steps ?? '?'} steps) vs experiment (${doc.exp_steps ?? '?'} steps)`, box)),
        panel('Step breakdown delta', stepTable.el)));

      const ops = (doc.ops || []).map((o) => ({ ...o, change: Math.max(Math.abs(o.delta_device_total_us || 0), Math.abs(o.delta_host_total_us || 0)) }));
      const d = (key) => ({ key, fmt: (v) => sign(v, fmtUs), numeric: true });
      const hasDevice = ops.some((o) => o.base_device_total_us || o.exp_device_total_us);
      const cols = columns('diff_ops', [
        { key: 'name', cls: 'name' }, 'base_calls', 'exp_calls', { key: 'delta_calls', fmt: 'dint' },
        ...(hasDevice ? ['base_device_total_us', 'exp_device_total_us', d('delta_device_total_us'), d('delta_device_self_us')] : []),
        'base_host_total_us', 'exp_host_total_us', d('delta_host_total_us'), d('delta_host_self_us'),
      ]).map((c) => (c.key.startsWith('delta_') ? { ...c, cls: 'delta' } : c));
      const t = createTable({ name: 'diff', rows: ops, columns: cols, sortKey: hasDevice ? 'delta_device_total_us' : 'delta_host_total_us', sortDir: 'desc', searchPlaceholder: 'Search operators…' });
      host.appendChild(panel(`Operators: ${label(base)} → ${label(exp)}`, t.el));
      if (doc.trace_diff) drawTraceDiff(host, doc.trace_diff, sign);

      const used = breakdownRoles().filter((r) => (sb[r.key] || 0) > 0 || (se[r.key] || 0) > 0);
      makeChart(box, {
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
          formatter: (ps) => `<b>${esc(ps[0].name)}</b>` + ps.map((x) => `<br>${x.marker}${esc(x.seriesName)}: ${fmtUs(x.value)}`).join('') +
            (ps.length === 2 ? `<br>Δ ${sign(ps[1].value - ps[0].value, fmtUs)}` : '') },
        legend: { top: 0 },
        grid: { left: 64, right: 12, top: 30, bottom: 28 },
        xAxis: { type: 'category', data: ['Step total', ...used.map((r) => r.name)], axisLabel: { interval: 0 } },
        yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
        series: [
          { name: 'Base', type: 'bar', color: '#8fa9c9', barMaxWidth: 36, data: [sb.total_us || 0, ...used.map((r) => sb[r.key] || 0)] },
          { name: 'Experiment', type: 'bar', color: '#f28e2b', barMaxWidth: 36, data: [se.total_us || 0, ...used.map((r) => se[r.key] || 0)] },
        ],
      });
    }

    // HTA trace_diff: operator and kernel counts and durations of the first
    // step of each trace, added / removed / increased / decreased / unchanged
    function drawTraceDiff(host, td, sign) {
      const CH = { added: 'added', removed: 'removed', increased: 'more calls', decreased: 'fewer calls', unchanged: 'same count' };
      const one = (key, what) => {
        const t = td[key] || {};
        const s = t.summary || {};
        const cols = columns('trace_diff', [
          { key: 'name', title: what, cls: 'name' }, { key: 'change', fmt: (v) => CH[v] || v },
          'base_count', 'exp_count', { key: 'diff_count', fmt: 'dint', cls: 'delta' },
          'base_duration_us', 'exp_duration_us',
          { key: 'diff_duration_us', fmt: (v) => sign(v, fmtUs), numeric: true, cls: 'delta' },
        ]);
        const tb = createTable({ name: `diff-hta-${key}`, rows: t.rows || [], columns: cols, sortKey: 'diff_duration_us', sortDir: 'desc', searchPlaceholder: `Search ${key}…` });
        const more = (t.rows_total || 0) > (t.rows || []).length ? ` (first ${(t.rows || []).length} of ${t.rows_total})` : '';
        return panel(`${what}s of the first step (HTA trace diff): ${s.added || 0} added, ${s.removed || 0} removed, ${s.changed || 0} changed count, ${s.unchanged || 0} same count${more}`,
          h('div', { testid: `diff-hta-${key}` }, tb.el));
      };
      host.appendChild(h('div', { class: 'muted' }, `HTA trace diff: step ${td.base_step || '?'} of the base vs step ${td.exp_step || '?'} of the experiment; counts and total durations per name.`));
      host.appendChild(one('operators', 'Operator'));
      host.appendChild(one('kernels', 'Kernel'));
    }

    if (!exp) return;
    await load();
  },
  dispose() {},
};
