// Distributed view: per-worker computation/overlap/communication/other bars, data transfer
// vs synchronizing time, and the collective-ops table (tb_plugin's Distributed page).
import { h, emptyState, panel, banner, fmtUs , axisUs, fmtPct, fmtPct100 } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, usAxisTooltip } from '../lib/charts.js';
import { columns, named } from '../lib/schema.js';

// the parts of a step (names: the distributed table's page titles)
const PART_COLORS = [
  { key: 'computation_us', color: '#4e79a7' },
  { key: 'overlap_us', color: '#76b7b2' },
  { key: 'communication_us', color: '#e15759' },
  { key: 'other_us', color: '#bab0ac' },
];
const SYNC_COLORS = [
  { key: 'transfer_us', color: '#f28e2b' },
  { key: 'synchronizing_us', color: '#b07aa1' },
];

/* Bars per worker: one stack of parts ([{key, name, color}]) each. */
function workerBars(box, workers, parts, stack) {
  const names = workers.map((w) => w.worker);
  makeChart(box, {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: usAxisTooltip, confine: true },
    legend: { top: 0 },
    grid: { left: 64, right: 12, top: 30, bottom: 40 },
    xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: names.length > 8 ? 30 : 0 } },
    yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
    series: parts.map((p) => ({ name: p.name, type: 'bar', stack, barMaxWidth: 48, itemStyle: { color: p.color }, data: workers.map((w) => w[p.key] || 0) })),
  });
}

export default {
  id: 'distributed',
  title: 'Distributed',
  async render(el, ctx) {
    const run = ctx.runs?.runs?.find((r) => r.name === ctx.run);
    const nworkers = run?.workers?.length || 0;
    if (nworkers < 2) {
      el.appendChild(emptyState('Distributed needs several workers of one run.',
        `Run "${ctx.run}" has ${nworkers} worker${nworkers === 1 ? '' : 's'}. Profile every rank of a DDP/NCCL job into the same run directory (tensorboard_trace_handler(dir, worker_name=...) or nnscope with one file per rank); the workers of one span are then compared here.`));
      return;
    }
    const doc = await ctx.api('/api/distributed', { run: ctx.run, span: ctx.span });
    const workers = doc.workers || [];
    if (doc.note) el.appendChild(banner('warn', h('strong', null, 'Note: '), doc.note));
    if (!workers.length) {
      el.appendChild(emptyState('No worker of this span could be analysed.', 'Distributed needs several workers of one run with the same span.'));
      return;
    }
    const slow = straggler(workers);
    if (slow) el.appendChild(banner('warn', h('strong', { testid: 'straggler' }, `Slowest worker: ${slow.worker}. `), slow.text));
    const hs = doc.stragglers || [];
    if (hs.length) {
      el.appendChild(banner('warn', h('div', { testid: 'hta-stragglers' }, h('strong', null, 'Straggler candidates (HTA): '),
        hs.map((s) => (s.metric === 'step_time'
          ? `${s.worker}: step ${fmtUs(s.value)}, ${s.excess.toFixed(1)} % above the median ${fmtUs(s.median)}`
          : `${s.worker}: starts its last collective at ${(100 * s.value).toFixed(1)} % of the step, median ${(100 * s.median).toFixed(1)} %`)).join('; '))));
    }
    if (!doc.available) {
      el.appendChild(banner('info', 'No communication (NCCL/Gloo collectives) was found in these workers: the bars show computation only. Profile a DDP job with ProfilerActivity.CUDA to see communication and overlap.'));
    }

    const bars = chartBox('chart-distributed', 300);
    const sync = chartBox('chart-distributed-sync', 300);
    el.appendChild(h('div', { class: 'row' },
      panel('Computation / communication overview (average per step)', bars),
      panel('Synchronizing / communication overview (average per step)', sync)));

    el.appendChild(panel('Workers', createTable({
      name: 'distributed-workers', search: false, rows: workers, sortKey: 'worker', sortDir: 'asc',
      columns: columns('distributed', [
        'worker', ...PART_COLORS.map((p) => p.key), 'transfer_us', 'synchronizing_us',
        { key: 'overlap_pct', fmt: (v) => fmtPct100(v), numeric: true, tip: 'time NCCL/Gloo kernels overlap computation kernels / NCCL/Gloo kernel time' },
        { key: 'late_start', fmt: (v) => fmtPct(v), numeric: true, tip: 'when in a step the last significant collective kernel starts, fraction of the mean step' },
      ]),
    }).el));

    const ops = doc.comm_ops || [];
    el.appendChild(panel('Communication operations', ops.length
      ? createTable({
        name: 'comm-ops', rows: ops, sortKey: 'total_latency_us', sortDir: 'desc', searchPlaceholder: 'Search collectives / workers…',
        columns: columns('comm_ops', ['worker', { key: 'name', cls: 'name' }, 'calls', 'total_bytes', 'avg_bytes',
          'total_latency_us', 'avg_latency_us', 'transfer_us', 'avg_transfer_us']),
      }).el
      : h('div', { class: 'muted', testid: 'table-comm-ops' }, 'No collective operations.')));

    workerBars(bars, workers, named('distributed', PART_COLORS), 'w');
    workerBars(sync, workers, named('distributed', SYNC_COLORS), 's');
  },
  dispose() {},
};

/* The likely straggler of a data-parallel step: the worker that spends the
 * most time outside communication (computation + overlap + other) while the
 * others wait for it in their collectives. Reported when it is at least 5 %
 * of the median step above the median worker; null otherwise. */
export function straggler(workers) {
  if (workers.length < 2) return null;
  const busy = workers.map((w) => (w.computation_us || 0) + (w.overlap_us || 0) + (w.other_us || 0));
  const step = workers.map((w, i) => busy[i] + (w.communication_us || 0));
  const med = (a) => { const b = [...a].sort((x, y) => x - y); const m = b.length >> 1; return b.length % 2 ? b[m] : (b[m - 1] + b[m]) / 2; };
  let k = 0;
  busy.forEach((b, i) => { if (b > busy[k]) k = i; });
  const gap = busy[k] - med(busy);
  if (!(gap > 0.05 * med(step))) return null;
  const others = workers.filter((_, i) => i !== k);
  const waitOthers = others.reduce((s, w) => s + (w.communication_us || 0), 0) / others.length;
  return {
    index: k,
    worker: workers[k].worker,
    gap,
    text: `It spends ${fmtUs(gap)} per step more outside communication than the median worker ` +
      `(${fmtUs(busy[k])} vs ${fmtUs(med(busy))}); the other workers spend ${fmtUs(waitOthers)} per step in ` +
      `communication against its ${fmtUs(workers[k].communication_us || 0)}, much of it waiting for it in their ` +
      'collectives. Look at its input pipeline, its CPU and GPU load, or uneven batches.',
  };
}
