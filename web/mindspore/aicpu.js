// MindSpore tab: AI CPU operators (MindInsight's AICPU tables): time by
// kernel type (pie + table) and per kernel (avg execution and dispatch
// time). Reads ms_aicpu (aicpu_intermediate_<id>.csv or the older
// output_data_preprocess_aicpu_<id>.txt).
import { h, fmtNum } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, pieOption } from '../lib/charts.js';
import { section, noData, docErrors, cards } from './common.js';

export async function render(el, ctx) {
  const doc = await ctx.doc('ms_aicpu');
  const types = (doc && doc.by_type) || [];
  const ops = (doc && doc.by_op) || [];
  if (!doc || (!types.length && !ops.length)) {
    el.appendChild(section('AI CPU operators', 'ms-aicpu', docErrors(doc), noData('No AI CPU operators for this device (aicpu_intermediate_<id>.csv).')));
    return;
  }
  const pie = types.length ? chartBox('ms-aicpu-pie', 260) : null;
  el.appendChild(section('AI CPU operators', 'ms-aicpu', docErrors(doc),
    cards([
      { id: 'ms-aicpu-total', label: 'Total time', value: typeof doc.total_time_ms === 'number' ? `${fmtNum(doc.total_time_ms, 3)} ms` : '–' },
      { id: 'ms-aicpu-calls', label: 'Calls', value: String(doc.calls ?? '–') },
      { id: 'ms-aicpu-types', label: 'Kernel types', value: String(types.length) },
    ], 'ms-aicpu-cards'),
    h('div', { class: 'row' },
      pie,
      types.length ? createTable({
        name: 'ms-aicpu-type', rows: types, sortKey: 'total_time_us', sortDir: 'desc', search: false,
        columns: [
          { key: 'kernel_type', title: 'Type', fmt: 'text' },
          { key: 'total_time_us', title: 'Total time', fmt: 'us' },
          { key: 'execution_frequency', title: 'Calls', fmt: 'int' },
          { key: 'percent', title: 'Share', fmt: (v) => (typeof v === 'number' ? `${fmtNum(v, 2)}%` : '–'), numeric: true },
        ],
      }).el : null),
    ops.length ? createTable({
      name: 'ms-aicpu-op', rows: ops, sortKey: 'avg_execution_time_us', sortDir: 'desc', searchPlaceholder: 'Filter kernels…',
      columns: [
        { key: 'kernel_name', title: 'Kernel', fmt: 'text', cls: 'name' },
        { key: 'kernel_type', title: 'Type', fmt: 'text' },
        { key: 'avg_execution_time_us', title: 'Avg execution', fmt: 'us' },
        { key: 'avg_dispatch_time_us', title: 'Avg dispatch', fmt: 'us' },
        { key: 'execution_frequency', title: 'Calls', fmt: 'int' },
      ],
    }).el : null));
  if (pie) makeChart(pie, pieOption(types.map((t) => ({ name: t.kernel_type, value: t.total_time_us || 0 })), { title: 'AI CPU time by type' }));
}
