// Step Trace view (MindInsight): iteration interval / forward+backward / tail per step.
// A MindSpore device's document (source "mindspore") adds MindInsight's own
// summary (ms, percents as MindInsight rounds them), the fp_start / bp_end
// points and the training-trace graph of the average step.
import { h, panel, statCards, fmtUs, fmtPct, axisUs } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, usAxisTooltip } from '../lib/charts.js';
import { summaryCards, pointInfo, traceGraph } from '../mindspore/common.js';
import { columns, named } from '../lib/schema.js';
import { docView } from '../lib/view.js';

// the step's phases (names: the steptrace table's page titles)
const PHASES = [
  { key: 'iteration_interval_us', color: '#b07aa1', tip: 'From the step start to the first operator that is not data loading (waiting for data)' },
  { key: 'fp_bp_us', color: '#4e79a7', tip: 'From there to the end of the last backward operator' },
  { key: 'tail_us', color: '#f28e2b', tip: 'The rest of the step: optimizer, gradient all-reduce, device work draining' },
];

export default docView({
  id: 'steptrace',
  title: 'Step Trace',
  doc: 'steptrace',
  rows: (doc) => doc.steps,
  empty: ['No steps to trace.',
    'The step trace needs training steps: ProfilerStep#N ranges (call prof.step() each iteration) or nnscope step marks (nns_step()).'],
  async render(el, ctx, doc, steps) {
    const avg = doc.average || {};
    const parts = named('steptrace', PHASES);
    el.appendChild(statCards([
      { label: 'Steps', value: String(steps.length) },
      { label: 'Avg step', value: fmtUs(avg.total_us) },
      ...parts.map((p) => ({ label: 'Avg ' + p.name.toLowerCase(), value: fmtUs(avg[p.key]), sub: avg.total_us ? fmtPct(avg[p.key] / avg.total_us) + ' of the step' : '', hint: p.tip })),
    ], 'steptrace-cards'));

    let graphBox = null;
    if (doc.source === 'mindspore') {
      const graph = doc.graph || [];
      graphBox = graph.length ? chartBox('chart-ms-trace-graph', 200) : null;
      el.appendChild(panel('MindInsight step trace', h('div', { class: 'ms-steptrace', testid: 'steptrace-mindspore' },
        doc.summary ? summaryCards(doc.summary, 'steptrace-ms-summary') : null,
        h('div', { class: 'ms-sub' }, pointInfo(doc.point_info)),
        graphBox), h('span', { class: 'muted' }, 'average step; graph: the step, its phases, one line per all-reduce stream')));
    }

    const box = chartBox('chart-steptrace', 320);
    el.appendChild(panel('Step trace', box, h('span', { class: 'muted' }, 'iteration interval = waiting for data · tail = optimizer, all-reduce, draining')));
    el.appendChild(panel('Steps', createTable({
      name: 'steptrace', rows: steps, searchPlaceholder: 'Filter steps…',
      columns: columns('steptrace', ['name', ...PHASES.map((p) => ({ key: p.key, tip: p.tip })), 'total_us']),
      footer: [{ name: 'Average', ...avg }],
    }).el));

    makeChart(box, {
      tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: usAxisTooltip, confine: true },
      legend: { top: 0 },
      grid: { left: 64, right: 16, top: 30, bottom: steps.length > 30 ? 52 : 28 },
      xAxis: { type: 'category', name: 'step', data: steps.map((s) => s.name) },
      yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
      dataZoom: steps.length > 30 ? [{ type: 'slider', height: 16, bottom: 6 }, { type: 'inside' }] : undefined,
      series: parts.map((p) => ({ name: p.name, type: 'bar', stack: 'st', barMaxWidth: 48, itemStyle: { color: p.color }, data: steps.map((s) => s[p.key] || 0) })),
    });
    if (graphBox) traceGraph(graphBox, doc.graph);
  },
});
