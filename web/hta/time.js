// HTA time panels (docs/HTA.md): temporal breakdown per device, idle time per
// CUDA stream, launch queue length per stream over time, and memcpy/memset
// bandwidth per kind over time. Reads the per-worker documents temporal,
// idle, queue and membw (src/output/hta_time_json.c); the tables' titles come
// from /api/schema (temporal, idle, idle_gaps, queue, membw, describe).
import { h, panel, statCards, banner, emptyState, fmtUs, fmtNum, fmtPct100, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, palette } from '../lib/charts.js';
import { columns, title } from '../lib/schema.js';

const TEMPORAL = [
  { key: 'compute', name: 'Compute', color: '#4e79a7' },
  { key: 'non_compute', name: 'Non-compute (comm. + memory)', color: '#f28e2b' },
  { key: 'idle', name: 'Idle', color: '#bab0ac' },
];
const IDLE = [
  { key: 'host_wait', name: 'Host wait', color: '#e15759' },
  { key: 'kernel_wait', name: 'Kernel wait', color: '#edc948' },
  { key: 'other', name: 'Other', color: '#bab0ac' },
];

const num2 = (v) => fmtNum(v, 2); // table formatters get (value, row): no 'num' (row would be its digits)
const pct1 = (v) => fmtPct100(v, 1);
const devName = (d) => (d < 0 ? 'GPU ?' : `GPU ${d}`);
const streamName = (r) => `${devName(r.device)} · stream ${r.stream}`;
const msAxis = { type: 'value', name: 'ms', min: 'dataMin', max: 'dataMax', axisLabel: { formatter: (x) => fmtNum(x / 1000, 1) } };
const zoom = [{ type: 'slider', height: 16, bottom: 6, filterMode: 'none' }, { type: 'inside', filterMode: 'none' }];

// a document that failed to compute says so in place of its panel
function failed(doc) {
  return doc && doc.error ? banner('warn', h('strong', null, 'Not available: '), doc.error) : null;
}

/** Stacked percent bars: one bar per row, one series per part. */
function stackedBars(box, rows, label, parts, usOf) {
  makeChart(box, {
    tooltip: {
      trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
      formatter: (xs) => {
        const r = rows[xs[0].dataIndex];
        return `<b>${esc(label(r))}</b>` + xs.map((x) => `<br>${x.marker}${esc(x.seriesName)}: ${fmtPct100(x.value)} (${fmtUs(usOf(r, parts[x.seriesIndex].key))})`).join('');
      },
    },
    legend: { top: 0 },
    grid: { left: 52, right: 20, top: 30, bottom: 40, containLabel: true },
    xAxis: { type: 'category', data: rows.map(label), axisLabel: { interval: 0, rotate: rows.length > 6 ? 30 : 0 } },
    yAxis: { type: 'value', max: 100, axisLabel: { formatter: '{value}%' } },
    series: parts.map((p) => ({ name: p.name, type: 'bar', stack: 'all', color: p.color, barMaxWidth: 60, data: rows.map((r) => r[`${p.key}_pct`] ?? 0) })),
  });
}

function renderTemporal(el, doc) {
  const rows = doc.devices || [];
  const box = chartBox('hta-temporal-chart', 260);
  el.appendChild(panel('Temporal breakdown per GPU (share of the GPU\'s trace window)', h('div', null,
    h('div', { class: 'muted' }, 'Compute: kernels that are neither communication (NCCL, gloo) nor memcpy/memset; non-compute: communication and memory operations while no compute kernel runs; idle: no kernel, memcpy or memset on any stream of the GPU.'),
    box,
    createTable({
      name: 'hta-temporal', rows, search: false,
      columns: columns('temporal', [
        { key: 'device', fmt: 'int' },
        { key: 'total_us', tip: 'first device event start to last end' },
        'compute_us', { key: 'compute_pct', fmt: pct1, numeric: true },
        'non_compute_us', { key: 'non_compute_pct', fmt: pct1, numeric: true },
        'idle_us', { key: 'idle_pct', fmt: pct1, numeric: true },
      ]),
    }).el)));
  stackedBars(box, rows, (r) => devName(r.device), TEMPORAL, (r, k) => r[`${k}_us`]);
}

function renderIdle(el, doc) {
  const rows = doc.streams || [];
  const box = chartBox('hta-idle-chart', 280);
  const iv = (k, f) => (r) => r.intervals?.[k]?.[f];
  // the gap statistics of idle.json's intervals of one kind ("Host Wait p50"): its idle
  // column's title and the statistic's
  const gapCols = (p, kind) => columns('idle_gaps', [['count', 'count'], ['p50', 'p50_us'], ['max', 'max_us']]
    .map(([s, f]) => ({ key: `${p}_${s}`, col: f, title: `${title('idle', `${kind}_us`)} ${title('idle_gaps', f)}`, value: iv(kind, f) })));
  el.appendChild(panel('Idle time per CUDA stream (share of the stream\'s idle time)', h('div', null,
    h('div', { class: 'muted' }, `Gaps between consecutive operations on a stream. Host wait: the next operation was launched on the CPU after the previous one ended; kernel wait: a gap shorter than ${fmtUs(doc.consecutive_kernel_delay_us)} (launch overhead); other: the rest (waits on events, other streams, synchronization).`),
    box,
    createTable({
      name: 'hta-idle', rows, sortKey: 'idle_us', sortDir: 'desc', searchPlaceholder: 'Filter streams…',
      columns: columns('idle', [
        { key: 'name', col: 'stream', fmt: 'text', value: streamName },
        'events', 'idle_us', 'host_wait_us', 'kernel_wait_us', 'other_us',
      ]).concat(gapCols('hw', 'host_wait'), gapCols('ot', 'other')),
    }).el)));
  stackedBars(box, rows, streamName, IDLE, (r, k) => r[`${k}_us`]);
}

/** Step lines over time: one series per item, x in µs from the trace start. */
function stepLines(box, items, label, unit, fmt) {
  makeChart(box, {
    tooltip: {
      trigger: 'axis', confine: true,
      formatter: (xs) => `<b>${esc(fmtNum(xs[0].value[0] / 1000, 3))} ms</b>` + xs.map((x) => `<br>${x.marker}${esc(x.seriesName)}: ${fmt(x.value[1])}`).join(''),
    },
    legend: { top: 0, type: 'scroll' },
    grid: { left: 60, right: 20, top: 30, bottom: 52 },
    xAxis: msAxis,
    yAxis: { type: 'value', name: unit },
    dataZoom: zoom,
    series: items.map((it, i) => ({ name: label(it), type: 'line', step: 'end', showSymbol: false, color: palette[i % palette.length], data: it.series || [] })),
  });
}

function renderQueue(el, doc) {
  const rows = doc.streams || [];
  const box = chartBox('hta-queue-chart', 300);
  el.appendChild(panel('CUDA launch queue length per stream', h('div', null,
    h('div', { class: 'muted' }, `Operations launched on the CPU that have not started on the GPU: +1 at the launch (runtime call), -1 when the kernel, memcpy or memset starts. Statistics are over the changes of the length (HTA's describe()); "at max" is the time with ${fmtNum(doc.max_queue_length)} or more queued, when the CPU blocks on launches.`),
    box,
    createTable({
      name: 'hta-queue', rows, sortKey: 'max', sortDir: 'desc', searchPlaceholder: 'Filter streams…',
      columns: columns('queue', [
        { key: 'name', col: 'stream', fmt: 'text', value: streamName },
        'launches',
        ...['mean', 'std', 'min', 'p25', 'p50', 'p75', 'max'].map((key) => ({ key, fmt: num2, numeric: true })),
        'time_at_max_us', { key: 'time_at_max_pct', fmt: pct1, numeric: true },
      ]),
    }).el)));
  stepLines(box, rows, streamName, 'length', (v) => fmtNum(v));
}

function renderMembw(el, doc) {
  const rows = doc.kinds || [];
  const box = chartBox('hta-membw-chart', 300);
  const gb = (v) => (typeof v === 'number' ? `${fmtNum(v)} GB/s` : '–');
  const sm = (f) => (r) => r.summary?.[f];
  const gbCol = (key) => ({ key, fmt: gb, numeric: true });
  el.appendChild(panel('Memory bandwidth per copy kind', h('div', null,
    h('div', { class: 'muted' }, 'Summed bandwidth of the copies of a kind in flight (bytes / duration of each, GB/s = 10⁹ bytes/s). Summary: statistics of the non-zero points of that series (HTA\'s get_memory_bw_summary); per operation: what single copies achieved.'),
    box,
    createTable({
      name: 'hta-membw', rows, sortKey: 'bytes', sortDir: 'desc', search: false,
      columns: [
        ...columns('membw', ['kind', 'count', 'bytes', 'time_us', ...['bw_avg_gbps', 'bw_mean_gbps', 'bw_max_gbps'].map(gbCol)]),
        // the summary of the kind's bandwidth series
        ...columns('describe', ['mean', 'p50'].map((f) => ({ ...gbCol(`s_${f}`), col: f, value: sm(f) }))),
        ...columns('membw', [gbCol('peak_gbps')]),
      ],
    }).el)));
  stepLines(box, rows.filter((r) => (r.series || []).length), (r) => r.kind, 'GB/s', gb);
}

export async function render(el, ctx) {
  const [temporal, idle, queue, membw] = await Promise.all(
    ['temporal', 'idle', 'queue', 'membw'].map((v) => ctx.view(v)));
  if (!ctx.alive()) return;
  const devs = temporal.devices || [];
  if (!temporal.error && !devs.length) {
    el.appendChild(emptyState('No GPU activity in this trace.',
      'The temporal breakdown, idle time, queue length and bandwidth analyses need device events (kernel, gpu_memcpy, gpu_memset): profile with CUDA activities enabled (torch.profiler ProfilerActivity.CUDA, or nnscope run on a GPU machine).'));
    return;
  }
  const sum = (k) => devs.reduce((a, d) => a + (d[k] || 0), 0);
  const total = sum('total_us');
  const streams = idle.streams || [];
  const idleSum = (k) => streams.reduce((a, s) => a + (s[`${k}_us`] || 0), 0);
  const idleAll = idleSum('host_wait') + idleSum('kernel_wait') + idleSum('other');
  const qmax = (queue.streams || []).reduce((a, s) => Math.max(a, s.max || 0), 0);
  el.appendChild(statCards([
    { label: 'GPU compute', value: total ? fmtPct100(100 * sum('compute_us') / total) : '–', sub: fmtUs(sum('compute_us')) },
    { label: 'GPU non-compute', value: total ? fmtPct100(100 * sum('non_compute_us') / total) : '–', sub: fmtUs(sum('non_compute_us')) },
    { label: 'GPU idle', value: total ? fmtPct100(100 * sum('idle_us') / total) : '–', sub: fmtUs(sum('idle_us')) },
    { label: 'Idle: host wait', value: idleAll ? fmtPct100(100 * idleSum('host_wait') / idleAll) : '–', sub: 'of the streams\' idle time' },
    { label: 'Max queue length', value: fmtNum(qmax), sub: `of ${fmtNum(queue.max_queue_length)} per stream` },
  ], 'hta-time-cards'));

  const parts = [[temporal, renderTemporal], [idle, renderIdle], [queue, renderQueue], [membw, renderMembw]];
  for (const [doc, fn] of parts) {
    const bad = failed(doc);
    if (bad) { el.appendChild(bad); continue; }
    if (fn === renderMembw && !(doc.kinds || []).length) {
      el.appendChild(panel('Memory bandwidth per copy kind', emptyState('No memcpy or memset in this trace.',
        'Copies appear as gpu_memcpy / gpu_memset events with a "bytes" argument.')));
      continue;
    }
    fn(el, doc);
  }
}
