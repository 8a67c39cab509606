// HTA panel: kernel launch statistics (launches.json), CPU/GPU user
// annotations and the kernels under each GPU annotation (annotations.json),
// and frequent kernel sequences under the busiest operators
// (sequences.json). Definitions: docs/HTA.md. Table titles: /api/schema (launches,
// annotations, annotation_kernels, sequence_ops, sequence_patterns).
import { h, emptyState, panel, statCards, fmtUs, fmtNum, fmtPct, esc, shorten, shortText } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { columns } from '../lib/schema.js';

// a kernel name cell: shortened, in full as its tooltip
const KERNEL_CELL = { key: 'kernel', cls: 'name', render: (r) => shortText(r.kernel, 80) };

const TOP_ANNOTATIONS = 15;

export async function render(el, ctx) {
  const [launches, annos, seqs] = await Promise.all([
    ctx.view('launches'), ctx.view('annotations'), ctx.view('sequences')]);
  renderLaunches(el, launches);
  renderAnnotations(el, annos);
  renderSequences(el, seqs);
}

function renderLaunches(el, d) {
  el.appendChild(h('h3', { class: 'section' }, 'Kernel launch statistics'));
  if (!d.launches) {
    el.appendChild(h('div', { testid: 'hta-launch-empty' }, emptyState(
      'No kernel launch is linked to a device event in this trace.',
      'Launch statistics pair each CUDA runtime launch (cudaLaunchKernel, cudaMemcpyAsync, ...) with its kernel by correlation id. '
      + 'A CPU-only trace has none: profile with ProfilerActivity.CUDA.')));
    return;
  }
  const s = d.summary_us || {};
  const c = d.counts || {};
  const cut = d.cutoffs || {};
  el.appendChild(statCards([
    { label: 'Launches', value: fmtNum(d.launches), sub: d.graph_launches_skipped ? `${fmtNum(d.graph_launches_skipped)} graph-launched skipped` : null },
    { label: 'Short kernels', value: fmtNum(c.short_kernels), hint: `GPU duration < CPU launch duration, launch <= ${cut.runtime_us} us` },
    { label: 'Runtime outliers', value: fmtNum(c.runtime_outliers), hint: `launch (CPU) duration > ${cut.runtime_us} us` },
    { label: 'Launch delay outliers', value: fmtNum(c.launch_delay_outliers), hint: `kernel start - launch end (HTA), clipped at 0, > ${cut.launch_delay_us} us` },
    { label: 'Launch delay p50', value: fmtUs(s.delay?.p50), sub: `p90 ${fmtUs(s.delay?.p90)}, p99 ${fmtUs(s.delay?.p99)}, max ${fmtUs(s.delay?.max)}`, hint: `HTA: kernel start - launch end; nnscope's start delay (kernel start - launch start) p50 ${fmtUs(s.start_delay?.p50)}` },
    { label: 'CPU launch mean', value: fmtUs(s.cpu?.mean), sub: `p99 ${fmtUs(s.cpu?.p99)}` },
    { label: 'GPU duration mean', value: fmtUs(s.gpu?.mean), sub: `p50 ${fmtUs(s.gpu?.p50)}` },
  ], 'hta-launch-cards'));

  const hist = chartBox('hta-launch-hist', 260);
  const scatter = chartBox('hta-launch-scatter', 260);
  el.appendChild(h('div', { class: 'row' },
    panel('Launch delay distribution', hist),
    panel('Launch delay over time', scatter)));
  const hd = d.delay_histogram || {};
  const counts = hd.counts || [];
  makeChart(hist, {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true },
    grid: { left: 56, right: 12, top: 16, bottom: 44 },
    xAxis: { type: 'category', name: 'delay', nameLocation: 'middle', nameGap: 28,
      data: counts.map((_, i) => fmtUs(hd.lo_us + i * hd.width_us)) },
    yAxis: { type: 'value', name: 'launches' },
    series: [{ name: 'Launches', type: 'bar', data: counts, itemStyle: { color: '#4e79a7' } }],
  });
  const t0 = d.trace_start_us || 0;
  makeChart(scatter, {
    tooltip: { trigger: 'item', confine: true,
      formatter: (p) => `${esc(fmtUs(p.value[0]))} into the trace<br>delay ${esc(fmtUs(p.value[1]))}<br>CPU ${esc(fmtUs(p.value[2]))}, GPU ${esc(fmtUs(p.value[3]))}` },
    grid: { left: 64, right: 16, top: 16, bottom: 44 },
    xAxis: { type: 'value', name: 'ms', nameLocation: 'middle', nameGap: 28, min: 'dataMin', max: 'dataMax',
      axisLabel: { formatter: (x) => (x / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 }) } },
    yAxis: { type: 'value', name: 'delay (us)' },
    series: [{ name: 'Launch delay', type: 'scatter', symbolSize: 3, itemStyle: { color: '#e15759' },
      data: (d.points || []).map((p) => [p[0] - t0, p[1], p[2], p[3]]) }],
  });

  const lists = {
    delay: { rows: d.launch_delay_outliers || [], label: `Launch delay > ${cut.launch_delay_us} us` },
    runtime: { rows: d.runtime_outliers || [], label: `Launch duration > ${cut.runtime_us} us` },
    short: { rows: d.short_kernels || [], label: 'Short kernels (GPU < CPU launch)' },
  };
  const cols = columns('launches', [
    KERNEL_CELL, 'op', 'launch',
    { key: 'rel_ms', col: 'ts_us', value: (r) => r.ts_us - t0, tip: 'launch start since the trace start' },
    'cpu_us', 'gpu_us',
    { key: 'delay_us', tip: 'HTA launch delay: kernel start - launch end, clipped at 0' },
    { key: 'start_delay_us', tip: 'nnscope: kernel start - launch start' },
  ]);
  const tbl = createTable({ name: 'hta-launch-outliers', rows: lists.delay.rows, columns: cols, sortKey: 'delay_us', sortDir: 'desc', searchPlaceholder: 'Search kernels / operators…' });
  const pick = h('select', { testid: 'hta-launch-outlier-kind', 'aria-label': 'Outlier list' },
    ...Object.entries(lists).map(([k, v]) => h('option', { value: k }, `${v.label} (${v.rows.length})`)));
  pick.addEventListener('change', () => tbl.setRows(lists[pick.value].rows));
  el.appendChild(panel('Outliers (worst first, at most 50 each)', tbl.el, pick));
}

function annoChart(box, rows, color) {
  const top = rows.slice(0, TOP_ANNOTATIONS).reverse();
  makeChart(box, {
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
      formatter: (ps) => { const r = top[ps[0].dataIndex]; return `<b>${esc(r.name)}</b><br>total ${esc(fmtUs(r.sum_us))}<br>${esc(fmtNum(r.count))} × mean ${esc(fmtUs(r.mean_us))}`; } },
    grid: { left: 8, right: 24, top: 8, bottom: 24, containLabel: true },
    xAxis: { type: 'value', axisLabel: { formatter: (v) => fmtUs(v) } },
    yAxis: { type: 'category', data: top.map((r) => shorten(r.name, 32)) },
    series: [{ name: 'Total', type: 'bar', data: top.map((r) => r.sum_us), itemStyle: { color } }],
  });
}

function renderAnnotations(el, a) {
  el.appendChild(h('h3', { class: 'section' }, 'User annotations'));
  const cpu = a.cpu || [];
  const gpu = a.gpu || [];
  if (!cpu.length && !gpu.length) {
    el.appendChild(h('div', { testid: 'hta-anno-empty' }, emptyState('No user annotations in this trace.',
      'Wrap regions in torch.profiler.record_function("name") (or nnscope ranges); with CUDA activity the profiler also writes their GPU spans (gpu_user_annotation).')));
    return;
  }
  const cpuBox = chartBox('hta-anno-cpu-chart', Math.max(160, 22 * Math.min(cpu.length, TOP_ANNOTATIONS) + 40));
  const gpuBox = chartBox('hta-anno-gpu-chart', Math.max(160, 22 * Math.min(gpu.length, TOP_ANNOTATIONS) + 40));
  el.appendChild(h('div', { class: 'row' },
    panel(`CPU annotations (top ${TOP_ANNOTATIONS} by time)`, cpu.length ? cpuBox : h('div', { class: 'muted' }, 'None.')),
    panel(`GPU annotations (top ${TOP_ANNOTATIONS} by time)`, gpu.length ? gpuBox
      : h('div', { class: 'muted', testid: 'hta-anno-gpu-none' }, 'No GPU annotations (gpu_user_annotation): the trace has no GPU activity or an older profiler wrote it.'))));
  if (cpu.length) annoChart(cpuBox, cpu, '#59a14f');
  if (gpu.length) annoChart(gpuBox, gpu, '#f28e2b');
  if (!gpu.length) return;
  const rows = [];
  for (const g of gpu) {
    for (const k of g.kernels || []) rows.push({ annotation: g.name, kernel: k.name, count: k.count, sum_us: k.sum_us, share: g.kernel_sum_us ? k.sum_us / g.kernel_sum_us : null });
  }
  el.appendChild(h('div', { class: 'muted' },
    `${fmtNum(a.device_covered)} of ${fmtNum(a.device_events)} device events run under a GPU annotation (innermost annotation of their stream at their start).`));
  el.appendChild(panel('Kernels under each GPU annotation (top 10 per annotation)', createTable({
    name: 'hta-anno-kernels', rows, sortKey: 'sum_us', sortDir: 'desc', searchPlaceholder: 'Search annotations / kernels…',
    columns: [
      ...columns('annotations', [{ key: 'annotation', col: 'name' }]),
      ...columns('annotation_kernels', [{ ...KERNEL_CELL, col: 'name' }, 'count', 'sum_us']),
      { key: 'share', title: 'Of annotation kernels', fmt: (v) => fmtPct(v), numeric: true },
    ],
  }).el));
}

function renderSequences(el, s) {
  el.appendChild(h('h3', { class: 'section' }, 'Frequent kernel sequences'));
  const ops = s.ops || [];
  if (!ops.length) {
    el.appendChild(h('div', { testid: 'hta-seq-empty' }, emptyState('No operator launches a sequence of kernels here.',
      `A sequence is the kernels launched under one operator call, at least ${s.min_pattern_len ?? 3} long; the trace needs GPU kernels launched by operators.`)));
    return;
  }
  const rows = [];
  for (const o of ops) {
    for (const p of o.patterns || []) rows.push({ operator: o.operator, pattern: (p.kernels || []).join(' → '), length: (p.kernels || []).length, count: p.count, gpu_time_us: p.gpu_time_us, cpu_time_us: p.cpu_time_us, of: o.roots });
  }
  el.appendChild(h('div', { class: 'muted' },
    `Operators with the most launches (${ops.map((o) => o.operator).join(', ')}); for each, the kernel sequences of its calls (at least ${s.min_pattern_len} kernels), most frequent first, top ${s.top_k}.`));
  el.appendChild(panel('Kernel sequences', createTable({
    name: 'hta-sequences', rows, sortKey: 'count', sortDir: 'desc', searchPlaceholder: 'Search operators / kernels…',
    columns: [
      ...columns('sequence_ops', ['operator']),
      // the kernels of a pattern as one cell, and their number: the page's own columns
      { key: 'pattern', title: 'Kernels', fmt: 'text', cls: 'wrap', render: (r) => shortText(r.pattern, 160) },
      { key: 'length', title: 'Length', fmt: 'int' },
      ...columns('sequence_patterns', [{ key: 'count', tip: 'calls of the operator with exactly this sequence' }]),
      ...columns('sequence_ops', [{ key: 'of', col: 'roots', tip: 'calls of the operator (shallowest depth)' }]),
      ...columns('sequence_patterns', ['gpu_time_us', 'cpu_time_us']),
    ],
  }).el));
}
