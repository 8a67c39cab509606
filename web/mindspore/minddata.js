// MindSpore tab: the data pipeline (MindInsight's MindData page): queue
// verdicts and proposals, the pipeline's operators as a graph (sources on
// the left, each op's output queue usage, parent -> child links, the
// threshold filter's bottlenecks marked), the host device queue and the
// chip's get_next queue per batch, and the CPU utilization samples.
// Reads ms_minddata (src/output/ms_minddata_json.h gives the shape).
import { h, fmtNum, fmtPct, labeled, select } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, palette } from '../lib/charts.js';
import { section, noData, docErrors, cards } from './common.js';

const VERDICTS = [
  { key: 'data_process', label: 'Data processing' },
  { key: 'data_transmission', label: 'Data transmission' },
  { key: 'device_queue_warning', label: 'Host queue' },
  { key: 'get_next', label: 'Chip queue (get_next)' },
];
const opLabel = (o) => `${o.op_type}_${o.op_id}`;
const msFmt = (v) => (typeof v === 'number' ? `${fmtNum(v, 3)} ms` : '–');

function lineChart(box, xs, xname, series, yname) {
  makeChart(box, {
    tooltip: { trigger: 'axis', confine: true },
    legend: { top: 0 },
    grid: { left: 8, right: 20, top: 30, bottom: xs.length > 40 ? 40 : 8, containLabel: true },
    xAxis: { type: 'category', name: xname, data: xs },
    yAxis: { type: 'value', name: yname },
    dataZoom: xs.length > 40 ? [{ type: 'slider', height: 14, bottom: 4 }, { type: 'inside' }] : undefined,
    series: series.map((s, i) => ({ type: 'line', showSymbol: xs.length < 60, color: s.color || palette[i % palette.length], ...s })),
  });
}

/** Pipeline ops by depth, the deepest (sources) leftmost, the root (batch) right. */
function pipelineGraph(pipe) {
  const ops = pipe.ops || [];
  const byId = new Map(ops.map((o) => [o.op_id, o]));
  const depth = new Map();
  const depthOf = (o, seen = new Set()) => {
    if (depth.has(o.op_id)) return depth.get(o.op_id);
    if (seen.has(o.op_id)) return 0; // a cycle in a damaged file
    seen.add(o.op_id);
    const p = o.parent_id !== null && o.parent_id !== undefined ? byId.get(o.parent_id) : null;
    const d = p ? depthOf(p, seen) + 1 : 0;
    depth.set(o.op_id, d);
    return d;
  };
  ops.forEach((o) => depthOf(o));
  const maxd = Math.max(0, ...depth.values());
  const bott = new Set(pipe.bottleneck_op_ids || []);
  const cols = [];
  for (let d = maxd; d >= 0; d--) {
    const col = ops.filter((o) => depth.get(o.op_id) === d);
    cols.push(h('div', { class: 'ms-pipe-col' }, col.map((o) => {
      const rate = o.output_queue_usage_rate;
      const parent = o.parent_id !== null && o.parent_id !== undefined ? byId.get(o.parent_id) : null;
      return h('div', { class: 'ms-pipe-node' + (bott.has(o.op_id) ? ' bottleneck' : ''), testid: `ms-pipe-node-${o.op_id}`,
        title: bott.has(o.op_id) ? 'possible bottleneck (MindInsight\'s queue threshold filter)' : '' },
      h('div', { class: 'ms-pipe-name' }, opLabel(o)),
      h('div', { class: 'muted' }, `${o.num_workers ?? '?'} worker${o.num_workers === 1 ? '' : 's'}`),
      h('div', { class: 'ms-pipe-queue' }, h('div', { class: 'ms-pipe-fill', style: { width: `${Math.max(0, Math.min(100, (rate || 0) * 100))}%` } })),
      h('div', { class: 'ms-pipe-qtext' }, typeof rate === 'number'
        ? `queue ${fmtPct(rate, 1)}${o.output_queue_length ? ` (${fmtNum(o.output_queue_average_size, 1)} / ${o.output_queue_length})` : ''}`
        : 'no queue samples'),
      h('div', { class: 'muted ms-pipe-to' }, parent ? `→ ${opLabel(parent)}` : '→ device'));
    })));
    if (d > 0) cols.push(h('div', { class: 'ms-pipe-arrow' }, '→'));
  }
  return h('div', { class: 'ms-pipe', testid: 'ms-pipeline-graph' }, cols);
}

export async function render(el, ctx) {
  const doc = await ctx.doc('ms_minddata');
  const has = doc && (doc.device_queue || doc.get_next || doc.pipeline || doc.cpu_utilization || (doc.proposals || []).length);
  if (!has) {
    el.appendChild(section('Data pipeline (MindData)', 'ms-minddata', docErrors(doc), noData('No MindData profiling files for this device (device_queue_profiling_<id>.txt, minddata_pipeline_raw_<id>.csv, minddata_cpu_utilization_<id>.json).')));
    return;
  }
  const parts = [docErrors(doc)];
  const qs = doc.queue_summary;
  if (qs) {
    parts.push(h('div', { class: 'toolbar', testid: 'ms-md-verdicts' }, VERDICTS.filter((v) => qs[v.key]).map((v) =>
      h('span', null, `${v.label}: `, h('span', { class: `badge ${qs[v.key] === 'warning' ? 'warn' : 'ok'}` }, qs[v.key])))));
    const dq = qs.device_queue || {};
    const gq = qs.get_next_queue;
    parts.push(cards([
      { id: 'ms-md-host-empty', label: 'Host queue empty', value: `${dq.empty_batch_count ?? '–'} / ${dq.total_batch ?? '–'}`, sub: dq.total_batch ? fmtPct(dq.empty_batch_count / dq.total_batch) : '' },
      { id: 'ms-md-host-full', label: 'Host queue full', value: `${dq.full_batch_count ?? '–'} / ${dq.total_batch ?? '–'}`, sub: dq.total_batch ? fmtPct(dq.full_batch_count / dq.total_batch) : '' },
      gq ? { id: 'ms-md-chip-empty', label: 'Chip queue empty', value: `${gq.empty_batch_count} / ${gq.total_batch}`, sub: gq.total_batch ? fmtPct(gq.empty_batch_count / gq.total_batch) : '' } : null,
      doc.device_queue?.time?.avg_cost_ms !== undefined ? { id: 'ms-md-host-cost', label: 'Host queue batch cost', value: msFmt(doc.device_queue.time.avg_cost_ms), sub: `push ${msFmt(doc.device_queue.time.avg_push_cost_ms)} · get ${msFmt(doc.device_queue.time.avg_get_cost_ms)}` } : null,
      doc.get_next?.time ? { id: 'ms-md-getnext-cost', label: 'get_next cost', value: msFmt(doc.get_next.time.avg_cost_ms) } : null,
    ].filter(Boolean), 'ms-md-cards'));
  }
  if ((doc.proposals || []).length) {
    parts.push(h('ul', { class: 'advice', testid: 'ms-md-proposals' }, doc.proposals.map((p) =>
      h('li', null, h('span', { class: 'tag' }, String(p.cause || p.id || '').replace(/^minddata_/, '').replace(/_/g, ' ')), p.text))));
  }
  const charts = [];
  if (doc.pipeline && (doc.pipeline.ops || []).length) {
    const th = doc.pipeline.threshold || [];
    parts.push(h('h4', { class: 'ms-h4' }, 'Pipeline'),
      h('div', { class: 'muted' }, `Data flows left to right; each box is an operator and its output queue usage.${th.length === 2 ? ` Red: a possible bottleneck (its queue under ${fmtPct(th[1], 0)} full while its input is over ${fmtPct(th[0], 0)}).` : ''}`),
      pipelineGraph(doc.pipeline),
      createTable({
        name: 'ms-pipeline', rows: doc.pipeline.ops, sortKey: 'op_id', sortDir: 'asc', search: false,
        columns: [
          { key: 'op_id', title: 'Id', fmt: 'int' },
          { key: 'op_type', title: 'Operator', fmt: 'text' },
          { key: 'num_workers', title: 'Workers', fmt: 'int' },
          { key: 'output_queue_average_size', title: 'Avg queue size', fmt: (v) => fmtNum(v, 2), numeric: true },
          { key: 'output_queue_length', title: 'Queue capacity', fmt: 'int' },
          { key: 'output_queue_usage_rate', title: 'Queue usage', fmt: (v) => fmtPct(v, 2), numeric: true },
          { key: 'parent_id', title: 'Parent', fmt: 'int' },
          { key: 'children', title: 'Children', fmt: 'text', value: (r) => (r.children_id || []).join(', ') },
        ],
      }).el);
  }
  const dq = doc.device_queue;
  if (dq && dq.queue && (dq.queue.queue_size || []).length) {
    const box = chartBox('ms-md-device-queue', 240);
    const xs = dq.queue.queue_size.map((_, i) => i + 1);
    parts.push(h('h4', { class: 'ms-h4' }, `Host device queue (${dq.file || ''})`), box);
    charts.push(() => lineChart(box, xs, 'batch', [
      { name: 'Queue size', data: dq.queue.queue_size },
      { name: 'Capacity', data: dq.queue.capacity || [], lineStyle: { type: 'dashed' }, color: '#bab0ac' },
    ], 'batches'));
  }
  if (dq && dq.time && (dq.time.total_cost_ms || []).length) {
    const box = chartBox('ms-md-device-time', 240);
    const xs = dq.time.total_cost_ms.map((_, i) => i + 1);
    parts.push(box);
    charts.push(() => lineChart(box, xs, 'batch', [
      { name: 'Total cost', data: dq.time.total_cost_ms },
      { name: 'Push cost', data: dq.time.push_cost_ms || [] },
      { name: 'Get cost', data: dq.time.get_cost_ms || [] },
    ], 'ms'));
  }
  const gn = doc.get_next;
  if (gn && ((gn.queue?.queue_size || []).length || (gn.time?.cost_ms || []).length)) {
    const box = chartBox('ms-md-get-next', 240);
    const n = Math.max((gn.queue?.queue_size || []).length, (gn.time?.cost_ms || []).length);
    parts.push(h('h4', { class: 'ms-h4' }, `Chip queue, get_next (${gn.file || ''})`), box);
    charts.push(() => makeChart(box, {
      tooltip: { trigger: 'axis', confine: true },
      legend: { top: 0 },
      grid: { left: 8, right: 8, top: 30, bottom: 8, containLabel: true },
      xAxis: { type: 'category', name: 'batch', data: Array.from({ length: n }, (_, i) => i + 1) },
      yAxis: [{ type: 'value', name: 'batches' }, { type: 'value', name: 'ms' }],
      series: [
        { type: 'line', name: 'Queue size', data: gn.queue?.queue_size || [], color: palette[0] },
        { type: 'line', name: 'get_next cost', yAxisIndex: 1, data: gn.time?.cost_ms || [], color: palette[1] },
      ],
    }));
  }
  const cpu = doc.cpu_utilization;
  if (cpu && (cpu.time_stamp_ms || []).length) {
    const box = chartBox('ms-md-cpu', 260);
    const groups = { device: cpu.device || [], process: cpu.process || [] };
    for (const o of cpu.ops || []) groups[`op ${o.op_id}`] = o.metrics || [];
    let which = 'device';
    const pick = select(Object.keys(groups), which, (v) => { which = v; draw(); }, { testid: 'ms-md-cpu-select' });
    parts.push(h('h4', { class: 'ms-h4' }, 'CPU utilization'),
      h('div', { class: 'toolbar' }, labeled('Of', pick),
        h('span', { class: 'muted' }, `${cpu.cpu_processor_num ?? '?'} CPUs · sampled every ${cpu.sampling_interval_ms ?? '?'} ms`),
        typeof cpu.active_percent === 'number' ? h('span', { testid: 'ms-md-cpu-active' }, `average busy: ${fmtNum(cpu.active_percent, 2)}%`) : null),
      box);
    const xs = cpu.time_stamp_ms.map((t) => fmtNum(t, 0));
    const draw = () => {
      const inst = window.echarts && window.echarts.getInstanceByDom(box);
      const ms = groups[which].filter((m) => /utilization$/.test(m.metric));
      const opt = {
        tooltip: { trigger: 'axis', confine: true, valueFormatter: (v) => `${fmtNum(v, 2)}%` },
        legend: { top: 0 },
        grid: { left: 8, right: 20, top: 30, bottom: 8, containLabel: true },
        xAxis: { type: 'category', name: 'ms', data: xs },
        yAxis: { type: 'value', name: '%', max: 100 },
        series: ms.map((m, i) => ({ type: 'line', name: `${m.metric.replace(/_utilization$/, '')} (avg ${fmtNum(m.avg, 2)}%)`, showSymbol: xs.length < 60, color: palette[i % palette.length], data: m.values })),
      };
      if (inst) inst.setOption(opt, true); else makeChart(box, opt);
    };
    charts.push(draw);
  }
  el.appendChild(section('Data pipeline (MindData)', 'ms-minddata', ...parts));
  for (const c of charts) c();
}
