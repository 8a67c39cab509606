// MindSpore tab: MindInsight's step trace summary (average step, percents),
// the fp_start / bp_end points and the training-trace graph of the average
// step, from the device's steptrace document (src/output/ms_steptrace_json.c).
import { h } from '../lib/util.js';
import { chartBox } from '../lib/charts.js';
import { section, noData, summaryCards, pointInfo, traceGraph } from './common.js';

export async function render(el, ctx) {
  const doc = await ctx.doc('steptrace');
  if (!doc || doc.source !== 'mindspore' || !doc.summary) {
    el.appendChild(section('Step trace', 'ms-steptrace',
      noData('No step trace for this device (step_trace_raw_<id>_detail_time.csv).')));
    return;
  }
  const graph = doc.graph || [];
  const box = graph.length ? chartBox('ms-trace-graph', 200) : null;
  el.appendChild(section('Step trace (average step)', 'ms-steptrace',
    summaryCards(doc.summary),
    h('div', { class: 'ms-sub' }, pointInfo(doc.point_info)),
    box ? h('div', { class: 'muted ms-sub' }, 'Training-trace graph: the step, its phases, then one line per all-reduce stream (grey: before / after the reduce).') : noData('No training-trace graph.'),
    box));
  if (box) traceGraph(box, graph);
}
