// MindSpore tab: dynamic shape (MindInsight's dynamic shape page): the time
// of each operator type (or GPU kernel) per step as lines, by default as
// MindInsight charts it (each type's average per call, the first 3 types of
// the first step shown; the legend turns the others on; total per step and
// calls on demand), and the per-step operator rows with their input shapes.
// Reads ms_dynshape (dynamic_shape_info_<id>.json).
import { h, fmtUs, fmtNum, select, labeled } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, palette } from '../lib/charts.js';
import { section, noData, docErrors } from './common.js';

const METRICS = [
  { value: 'avg_us', label: 'average time per call' },
  { value: 'total_us', label: 'total time per step' },
  { value: 'calls', label: 'calls per step' },
];

export async function render(el, ctx) {
  const doc = await ctx.doc('ms_dynshape');
  const kinds = [];
  if (doc && doc.operator_types && (doc.operator_types.series || []).length) kinds.push({ value: 'operator_types', label: 'operator types' });
  if (doc && doc.kernel_types && (doc.kernel_types.series || []).length) kinds.push({ value: 'kernel_types', label: 'GPU kernels' });
  if (!kinds.length) {
    el.appendChild(section('Dynamic shape', 'ms-dynshape', docErrors(doc), noData('No dynamic shape data for this device (dynamic_shape_info_<id>.json).')));
    return;
  }
  let kind = kinds[0].value;
  let metric = 'avg_us'; // MindInsight charts each type's average per step
  const box = chartBox('ms-dynshape-chart', 320);
  const rows = doc.operators || [];
  el.appendChild(section('Dynamic shape', 'ms-dynshape', docErrors(doc),
    h('div', { class: 'toolbar' },
      labeled('Series', select(kinds, kind, (v) => { kind = v; draw(); }, { testid: 'ms-dynshape-kind' })),
      labeled('Value', select(METRICS, metric, (v) => { metric = v; draw(); }, { testid: 'ms-dynshape-metric' })),
      h('span', { class: 'muted' }, 'the first step\'s first types are shown; click the legend for the others')),
    box,
    rows.length ? createTable({
      name: 'ms-dynshape-ops', rows, sortKey: 'step', sortDir: 'asc', searchPlaceholder: 'Filter operators…',
      columns: [
        { key: 'step', title: 'Step', fmt: 'int' },
        { key: 'op_side', title: 'Side', fmt: 'text' },
        { key: 'op_type', title: 'Type', fmt: 'text' },
        { key: 'op_name', title: 'Operator', fmt: 'text', cls: 'name' },
        { key: 'duration_us', title: 'Duration', fmt: 'us' },
        { key: 'shapes', title: 'Input shapes', fmt: 'text', value: (r) => (r.shapes || []).join(' '), cls: 'name' },
      ],
    }).el : null));

  function draw() {
    const s = doc[kind];
    const shown = new Set(s.default_types || []);
    const fmt = metric === 'calls' ? (v) => fmtNum(v, 0) : fmtUs;
    const opt = {
      tooltip: { trigger: 'axis', confine: true, valueFormatter: fmt },
      legend: { type: 'scroll', top: 0, selected: Object.fromEntries(s.series.map((x) => [x.name, shown.size ? shown.has(x.name) : true])), textStyle: { width: 220, overflow: 'truncate' }, tooltip: { show: true } },
      grid: { left: 8, right: 20, top: 36, bottom: 8, containLabel: true },
      xAxis: { type: 'category', name: 'step', data: s.steps || [] },
      yAxis: { type: 'value', axisLabel: { formatter: (v) => fmt(v) } },
      series: s.series.map((x, i) => ({ type: 'line', name: x.name, showSymbol: (s.steps || []).length < 60, color: palette[i % palette.length], data: x[metric] || [] })),
    };
    const inst = window.echarts && window.echarts.getInstanceByDom(box);
    if (inst) inst.setOption(opt, true); else makeChart(box, opt);
  }
  draw();
}
