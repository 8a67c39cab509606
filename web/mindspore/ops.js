// MindSpore tab: AI Core operator time by kernel type (pie, bars, table) and
// by operator (table with a type filter), MindInsight's operator page. Reads
// ms_ops (aicore_intermediate_<id>_type.csv / _detail.csv) and, when the
// server writes it, ms_op_detail (the by-op rows with FLOPs and op_info).
// The share column is MindSpore's own percent of all AI Core time (ms_ops'
// total_percent is MindInsight's value x100, so 5760 -> 57.60 %); the table
// sum when a row has none.
import { h, fmtUs, fmtPct, fmtNum, select, labeled, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, pieOption, palette } from '../lib/charts.js';
import { section, noData, docErrors } from './common.js';
import { columns } from '../lib/schema.js';

const TOP_BARS = 15;
// ms_op_detail's FLOPs columns (shown when some operator has a value)
const FLOPS_COLS = [
  { key: 'cube_mflops', title: 'MFLOPs (cube)' },
  { key: 'cube_gflops_per_s', title: 'GFLOPS (cube)' },
  { key: 'vector_mflops', title: 'MFLOPs (vector)' },
  { key: 'vector_gflops_per_s', title: 'GFLOPS (vector)' },
];
const num3 = (v) => fmtNum(v, 3);

function shapes(info) {
  if (!info || typeof info !== 'object') return '';
  return Object.entries(info).map(([k, v]) => `${k}: ${v && v.data_type ? v.data_type : ''}${v && Array.isArray(v.shape) ? '[' + v.shape.join(',') + ']' : ''}`).join('; ');
}

export async function render(el, ctx) {
  const [doc, detail] = await Promise.all([ctx.doc('ms_ops'), ctx.doc('ms_op_detail').catch(() => null)]);
  const types = (doc && doc.by_type) || [];
  const detailRows = detail && Array.isArray(detail.by_op) && detail.by_op.length ? detail.by_op : null;
  const ops = detailRows || (doc && doc.by_op) || [];
  const errs = docErrors(doc);
  if (!types.length && !ops.length) {
    el.appendChild(section('AI Core operators', 'ms-ops', errs, noData('No AI Core operator statistics for this device (aicore_intermediate_<id>_type.csv).')));
    return;
  }
  const sum = types.reduce((s, t) => s + (t.total_time_us || 0), 0);
  const typeRows = types.map((t) => ({ ...t,
    share: Number.isFinite(t.total_percent) ? t.total_percent / 10000 : (sum > 0 ? (t.total_time_us || 0) / sum : null) }));
  const pie = chartBox('ms-optype-pie', 300);
  const bars = chartBox('ms-optype-bar', 300);

  const typeNames = [...new Set(ops.map((o) => o.kernel_type))].sort();
  let typeFilter = typeNames.includes(ctx.params.ms_type) ? ctx.params.ms_type : '';
  const opTable = createTable({
    name: 'ms-by-op', rows: typeFilter ? ops.filter((o) => o.kernel_type === typeFilter) : ops, sortKey: 'avg_execution_time_us', sortDir: 'desc', searchPlaceholder: 'Filter operators…',
    columns: columns('ms_ops', [
      'kernel_name', 'kernel_type', 'avg_execution_time_us', 'execution_frequency',
      // the page's own columns: computed here, or only in ms_op_detail
      { key: 'total_us', title: 'Total time', fmt: 'us', value: (r) => (r.avg_execution_time_us ?? 0) * (r.execution_frequency ?? 0), tip: 'avg time x calls' },
      ...FLOPS_COLS.filter((c) => ops.some((o) => typeof o[c.key] === 'number')).map((c) => ({ ...c, fmt: num3, numeric: true })),
      detailRows && { key: 'op_info', title: 'Inputs / outputs', fmt: 'text', value: (r) => shapes(r.op_info), cls: 'ms-shapes', sortable: false },
      { key: 'op_name', cls: 'name' },
    ]),
  });
  const typeSel = select([{ value: '', label: 'all types' }, ...typeNames], typeFilter, (v) => setType(v), { testid: 'ms-op-type-select' });
  function setType(v) {
    typeFilter = v;
    typeSel.value = v;
    opTable.setRows(v ? ops.filter((o) => o.kernel_type === v) : ops);
    ctx.setParams({ ms_type: v });
  }

  el.appendChild(section('AI Core operators by type', 'ms-ops', errs,
    h('div', { class: 'row' }, pie, bars),
    createTable({
      name: 'ms-by-type', rows: typeRows, sortKey: 'total_time_us', sortDir: 'desc', searchPlaceholder: 'Filter types…',
      onRowClick: (r) => setType(typeFilter === r.kernel_type ? '' : r.kernel_type),
      columns: columns('ms_op_types', [
        'kernel_type', 'total_time_us', 'execution_frequency', 'avg_time_us',
        { key: 'share', title: 'Share', fmt: (v) => fmtPct(v, 2), numeric: true, tip: 'MindSpore\'s share of all AI Core time (its percent column)' },
      ]),
    }).el));
  el.appendChild(section('AI Core operators', 'ms-ops-detail',
    h('div', { class: 'toolbar' }, labeled('Type', typeSel), h('span', { class: 'muted' }, 'click a type row above to filter'),
      detailRows ? null : h('span', { class: 'muted' }, '(FLOPs and shapes: not in this document)')),
    opTable.el));

  makeChart(pie, pieOption(typeRows.map((t) => ({ name: t.kernel_type, value: t.total_time_us || 0 })), { title: 'Time by type' }));
  const top = typeRows.slice().sort((a, b) => (b.total_time_us || 0) - (a.total_time_us || 0)).slice(0, TOP_BARS);
  makeChart(bars, {
    title: { text: `Top ${top.length} types by total time`, left: 'center', top: 0, textStyle: { fontSize: 13, fontWeight: 600 } },
    tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
      formatter: (ps) => { const r = top[ps[0].dataIndex]; return `<b>${esc(r.kernel_type)}</b><br>${fmtUs(r.total_time_us)} · ${r.execution_frequency} calls · ${fmtPct(r.share, 2)}`; } },
    grid: { left: 8, right: 24, top: 28, bottom: 8, containLabel: true },
    xAxis: { type: 'value', axisLabel: { formatter: (v) => fmtUs(v) } },
    yAxis: { type: 'category', inverse: true, data: top.map((r) => r.kernel_type), axisLabel: { fontSize: 11, width: 160, overflow: 'truncate' } },
    series: [{ type: 'bar', name: 'Total time', barMaxWidth: 16, itemStyle: { color: palette[0] }, data: top.map((r) => r.total_time_us || 0) }],
  });
}
