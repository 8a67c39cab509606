// MindSpore tab: FLOPs (MindInsight's FLOPs page): the device summary, the
// per-operator table of flops_<id>.txt and the FLOPs per scope
// (flops_scope_<id>.json) as a Sankey diagram when the full chart library
// is loaded (node labels truncated to the space between columns, full names
// in the tooltip), with its links as a table either way. Reads ms_flops.
import { h, fmtNum, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { section, noData, docErrors, cards } from './common.js';

const num3 = (v) => fmtNum(v, 3);
const pctv = (v) => (typeof v === 'number' ? `${fmtNum(v, 2)}%` : '–');

export async function render(el, ctx) {
  const doc = await ctx.doc('ms_flops');
  const ops = (doc && doc.ops) || [];
  const scope = doc && doc.scope && (doc.scope.links || []).length ? doc.scope : null;
  const s = doc && doc.summary;
  if (!doc || (!s && !ops.length && !scope)) {
    el.appendChild(section('FLOPs', 'ms-flops', docErrors(doc), noData('No FLOPs data for this device (flops_<id>.txt, flops_summary_<id>.json).')));
    return;
  }
  const box = scope ? chartBox('ms-flops-scope', 360) : null;
  const hasCube = ops.some((o) => o.cube_mflops !== null && o.cube_mflops !== undefined);
  const hasVector = ops.some((o) => o.vector_mflops !== null && o.vector_mflops !== undefined);
  el.appendChild(section('FLOPs', 'ms-flops', docErrors(doc),
    s ? cards([
      { id: 'ms-flops-mflops', label: 'MFLOPs', value: num3(s.mflops), hint: 'floating-point operations of the step, 10^6' },
      { id: 'ms-flops-gflops', label: 'GFLOPS', value: num3(s.gflops_per_s), hint: 'per second, 10^9' },
      { id: 'ms-flops-util', label: 'FLOPs utilization', value: pctv(s.utilization_percent) },
      s.cube_mflops !== null && s.cube_mflops !== undefined ? { id: 'ms-flops-cube', label: 'Cube MFLOPs', value: num3(s.cube_mflops), sub: `${num3(s.cube_gflops_per_s)} GFLOPS` } : null,
      s.vector_mflops !== null && s.vector_mflops !== undefined ? { id: 'ms-flops-vector', label: 'Vector MFLOPs', value: num3(s.vector_mflops), sub: `${num3(s.vector_gflops_per_s)} GFLOPS` } : null,
    ].filter(Boolean), 'ms-flops-cards') : noData('No FLOPs summary (flops_summary_<id>.json).'),
    box ? h('div', { class: 'muted ms-sub' }, `MFLOPs per scope${doc.scope.max_scope_num ? ` (up to ${doc.scope.max_scope_num} levels)` : ''}`) : null,
    box,
    ops.length ? createTable({
      name: 'ms-flops-ops', rows: ops, sortKey: 'mflops', sortDir: 'desc', searchPlaceholder: 'Filter operators…',
      columns: [
        { key: 'op_full_name', title: 'Operator', fmt: 'text', cls: 'name' },
        { key: 'mflops', title: 'MFLOPs', fmt: num3, numeric: true },
        { key: 'gflops_per_s', title: 'GFLOPS', fmt: num3, numeric: true },
        { key: 'utilization_percent', title: 'Utilization', fmt: pctv, numeric: true },
        hasCube ? { key: 'cube_mflops', title: 'Cube MFLOPs', fmt: num3, numeric: true } : null,
        hasCube ? { key: 'cube_gflops_per_s', title: 'Cube GFLOPS', fmt: num3, numeric: true } : null,
        hasCube ? { key: 'cube_utilization_percent', title: 'Cube util.', fmt: pctv, numeric: true } : null,
        hasVector ? { key: 'vector_mflops', title: 'Vector MFLOPs', fmt: num3, numeric: true } : null,
        hasVector ? { key: 'vector_gflops_per_s', title: 'Vector GFLOPS', fmt: num3, numeric: true } : null,
        hasVector ? { key: 'vector_utilization_percent', title: 'Vector util.', fmt: pctv, numeric: true } : null,
      ],
    }).el : noData('No per-operator FLOPs (flops_<id>.txt).'),
    scope ? h('details', null, h('summary', null, 'Scope links'), createTable({
      name: 'ms-flops-scope', rows: scope.links, sortKey: 'mflops', sortDir: 'desc', search: true,
      columns: [
        { key: 'source', title: 'Scope', fmt: 'text', cls: 'name' },
        { key: 'target', title: 'Sub-scope', fmt: 'text', cls: 'name' },
        { key: 'mflops', title: 'MFLOPs', fmt: num3, numeric: true },
      ],
    }).el) : null));

  if (box) {
    // the sankey series is only in the full ECharts build (the view loads it)
    const names = new Set();
    for (const l of scope.links) { names.add(l.source); names.add(l.target); }
    // node labels sit right of their column: truncate them (ellipsis) to the
    // space before the next column, the full name in the tooltip
    const links = scope.links.filter((l) => l.mflops > 0 && l.source !== l.target);
    const depth = new Map();
    for (let pass = 0, changed = true; changed && pass < 64; pass++) {
      changed = false;
      for (const l of links) {
        const d = (depth.get(l.source) || 0) + 1;
        if (d > (depth.get(l.target) || 0)) { depth.set(l.target, d); changed = true; }
      }
    }
    const cols = Math.max(1, ...depth.values()) + 1;
    const labelW = Math.round(Math.max(50, Math.min(150, (box.clientWidth - 168) / Math.max(1, cols - 1) - 24)));
    try {
      const c = makeChart(box, {
        tooltip: { trigger: 'item', confine: true,
          formatter: (p) => (p.dataType === 'edge'
            ? `${esc(p.data.source)} → ${esc(p.data.target)}<br>${num3(p.value)} MFLOPs`
            : `${esc(p.name)}<br>${num3(p.value)} MFLOPs`) },
        series: [{
          type: 'sankey', left: 8, right: 160, top: 8, bottom: 8, nodeGap: 6, draggable: false,
          emphasis: { focus: 'adjacency' }, lineStyle: { color: 'gradient', opacity: 0.35 },
          label: { fontSize: 10, overflow: 'truncate', ellipsis: '…', width: labelW },
          // sinks sit in the last column (ECharts' justify alignment): their labels have the right margin
          data: [...names].map((n) => (links.some((l) => l.source === n) ? { name: n } : { name: n, label: { width: 150 } })),
          links: links.map((l) => ({ source: l.source, target: l.target, value: l.mflops })),
        }],
      });
      if (!c) box.remove();
    } catch (e) {
      box.textContent = '';
      box.style.height = 'auto';
      box.appendChild(noData(`Scope diagram not drawn (${e.message}); the scope links are in the table below.`));
    }
  }
}
