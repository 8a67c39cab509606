// HTA panel: the critical path of the first step (critical_path view,
// docs/HTA.md): key figures, the path's time by class (bar), the
// events with most time on the path, the ordered path segments, and a link
// that opens the Trace view with the path outlined. Table titles: /api/schema
// (critpath_top, critpath_segments).
import { h, panel, banner, statCards, emptyState, fmtUs, fmtPct, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, loadCharts } from '../lib/charts.js';
import { columns } from '../lib/schema.js';

// breakdown keys, in path order of importance
const CLASSES = [
  { key: 'cpu_op_us', name: 'CPU ops', color: '#59a14f', tip: 'host operators and runtime calls (HTA cpu_bound)' },
  { key: 'kernel_us', name: 'GPU kernels', color: '#4e79a7', tip: 'kernels, memcpy, memset (gpu_compute_bound)' },
  { key: 'communication_us', name: 'Communication', color: '#e15759', tip: 'collective kernels (gpu_communication_bound)' },
  { key: 'launch_delay_us', name: 'Launch delay', color: '#f28e2b', tip: 'CPU launch -> kernel start on an idle stream' },
  { key: 'kernel_kernel_delay_us', name: 'Kernel-kernel delay', color: '#edc948', tip: 'gap between kernels on a busy stream' },
  { key: 'sync_wait_us', name: 'Sync wait', color: '#b07aa1', tip: 'time spanned by synchronisation edges and blocking sync calls (zero weight)' },
  { key: 'idle_us', name: 'Idle (CPU gaps)', color: '#bab0ac', tip: 'gaps between top-level ops on the path thread (zero weight)' },
];
const CLASS_NAME = Object.fromEntries(CLASSES.map((c) => [c.key, c.name]));
const className = (v) => CLASS_NAME[v] || v;
const EDGE_NAME = {
  critical_path_operator: 'op / kernel',
  critical_path_dependency: 'dependency',
  critical_path_kernel_launch_delay: 'launch delay',
  critical_path_kernel_kernel_delay: 'kernel-kernel',
  critical_path_sync_dependency: 'sync',
};

export async function render(el, ctx) {
  const doc = await ctx.view('critical_path');
  if (!ctx.alive()) return;
  if (!doc.ok) {
    el.appendChild(emptyState(`No critical path: ${doc.reason || 'unknown reason'}.`,
      'The critical path needs host operators (cpu_op) or runtime calls inside a step. Record with the PyTorch profiler (record_shapes not needed); for GPU work, cuda_sync events (PyTorch >= 2.1) make the synchronisation edges exact.'));
    return;
  }
  const b = doc.breakdown || {};
  const gpu = (b.kernel_us || 0) + (b.communication_us || 0) + (b.launch_delay_us || 0) + (b.kernel_kernel_delay_us || 0);
  const span = doc.span_us || 0;
  const share = (k) => (span > 0 ? (b[k] || 0) / span : 0);
  el.appendChild(statCards([
    { label: 'Step', value: doc.step, sub: `${(doc.steps || []).length} steps in the trace` },
    { label: 'Critical path', value: fmtUs(doc.total_us), sub: 'sum of edge weights (HTA)', hint: 'time of the ops, kernels and delays on the longest path' },
    { label: 'Path span', value: fmtUs(span), sub: `step ${fmtUs(doc.step_us)}` },
    { label: 'CPU bound', value: fmtPct(share('cpu_op_us')), sub: fmtUs(b.cpu_op_us) },
    { label: 'GPU bound', value: fmtPct(span > 0 ? gpu / span : 0), sub: fmtUs(gpu) },
    { label: 'Waiting', value: fmtPct(share('sync_wait_us') + share('idle_us')), sub: 'sync + idle' },
  ], 'hta-critpath-cards'));
  const g = doc.graph || {};
  if (!gpu) el.appendChild(banner('info', 'No GPU work on the path: the step is bound by host time (or the trace has no GPU events).'));
  if ((g.sync_records || 0) === 0 && (g.sync_fallbacks || 0) > 0) {
    el.appendChild(banner('info', `The trace has no cuda_sync records: ${g.sync_fallbacks} blocking call(s) were linked to the kernels that ended while they blocked.`));
  }
  const open = h('button', { class: 'btn', type: 'button', testid: 'hta-critpath-open-trace', title: 'Open the Trace view with the critical path outlined' }, 'Show in Trace view');
  open.addEventListener('click', () => ctx.navigate('trace', { cp: 1 }));
  el.appendChild(h('div', { class: 'toolbar' }, open,
    h('span', { class: 'muted' }, ` graph: ${g.nodes ?? 0} nodes, ${g.edges ?? 0} edges; ${doc.segments_total ?? 0} edges on the path`)));

  const box = chartBox('hta-critpath-chart', 260);
  const top = createTable({
    name: 'hta-critpath-top', rows: doc.top_events || [], sortKey: 'time_us', sortDir: 'desc', search: false,
    columns: columns('critpath_top', [
      { key: 'name', cls: 'name' }, { key: 'class', fmt: className }, 'edges', 'time_us', 'share',
    ]),
  });
  el.appendChild(h('div', { class: 'row' },
    h('div', { testid: 'hta-critpath-breakdown' }, panel('Critical path by class', box)),
    panel('Events with most time on the path', top.el)));

  const segs = (doc.segments || []).map((s, i) => ({ ...s, i: i + 1, at_us: s.from_us - (doc.path_start_us || 0) }));
  el.appendChild(panel(`Path segments${doc.segments_truncated ? ` (first ${segs.length} of ${doc.segments_total})` : ''}`, createTable({
    name: 'hta-critpath-segments', rows: segs, sortKey: 'i', sortDir: 'asc', searchPlaceholder: 'Search segments…',
    columns: [
      // the row's place and times relative to the path: the page's own columns
      { key: 'i', title: '#', fmt: 'int' },
      { key: 'at_us', title: 'At', fmt: 'us', tip: 'from the start of the path' },
      ...columns('critpath_segments', [
        { key: 'edge', fmt: (v) => EDGE_NAME[v] || v }, { key: 'class', fmt: className },
        { key: 'name', cls: 'name' }, 'kind', 'tid', 'weight_us',
      ]),
      { key: 'span_us', title: 'Span', fmt: 'us', value: (r) => r.to_us - r.from_us },
    ],
  }).el));

  await loadCharts().catch(() => {});
  if (!ctx.alive()) return;
  const used = CLASSES.filter((c) => (b[c.key] || 0) > 0);
  makeChart(box, {
    tooltip: { trigger: 'item', confine: true, formatter: (p) => `<b>${esc(p.name)}</b><br>${fmtUs(p.value)} (${fmtPct(span > 0 ? p.value / span : 0)} of the span)` },
    grid: { left: 130, right: 20, top: 10, bottom: 28 },
    xAxis: { type: 'value', axisLabel: { formatter: (v) => fmtUs(v) } },
    yAxis: { type: 'category', inverse: true, data: used.map((c) => c.name) },
    series: [{ type: 'bar', barMaxWidth: 22, data: used.map((c) => ({ name: c.name, value: b[c.key], itemStyle: { color: c.color } })) }],
  });
}
