// MindSpore tab: memory. Two parts:
// 1. Device memory (MindInsight's memory usage page), from ms_memory
//    (memory_usage_<id>.pb, docs/MINDSPORE.md "Device memory"): the summary
//    cards (capacity, peak, static memory, allocations), per graph the usage
//    curve over the execution order with the fp_start / bp_end nodes and
//    the peak marked, the per-node table (what each node allocates), and
//    the breakdown at a node — the tensors live there with their lifetimes;
//    the peak's at first, a click on the curve or a node row shows another.
// 2. The device's memory document (the Memory view's) summarised as the
//    peak allocated / reserved bytes per memory device, with a link to the
//    Memory tab; a muted line when the device recorded no memory.
import { h, fmtBytes, fmtInt, select, labeled } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { section, noData, docErrors, cards } from './common.js';

/** The tensors live at node index i (MindInsight's breakdown): with a
 * source node and live_from <= i < live_to, in the document's order. */
export function breakdownAt(graph, i) {
  return (graph.tensors || []).filter((t) => t.source_node !== null && t.live_from !== null && t.live_from <= i && i < t.live_to);
}

function deviceMemory(el, doc) {
  const graphs = (doc && doc.graphs) || [];
  if (!doc || !doc.summary) {
    el.appendChild(section('Device memory', 'ms-devmem', docErrors(doc),
      noData('No device memory file for this device (memory_usage_<id>.pb, written by MindSpore with profile_memory=True on Ascend).')));
    return;
  }
  const s = doc.summary;
  const top = cards([
    { id: 'ms-devmem-capacity', label: 'Capacity', value: fmtBytes(s.capacity_bytes), hint: 'total_mem of the file' },
    { id: 'ms-devmem-peak', label: 'Peak usage', value: fmtBytes(s.peak_mem_bytes), hint: 'the highest point of every graph\'s curve' },
    { id: 'ms-devmem-static', label: 'Static memory', value: fmtBytes(s.static_mem_bytes), hint: 'summed over the graphs' },
    { id: 'ms-devmem-allocs', label: 'Allocations', value: fmtInt(s.allocations), sub: `${fmtInt(s.deallocations)} releases`, hint: 'distinct tensors of the graphs' },
  ], 'ms-devmem-cards');
  const body = h('div', { testid: 'ms-devmem-graph' });
  let gi = 0;
  const pick = graphs.length > 1
    ? labeled('Graph', select(graphs.map((g, i) => ({ value: String(i), label: `graph ${g.graph_id}` })), '0', (v) => { gi = Number(v); drawGraph(); }, { testid: 'ms-devmem-pick' }))
    : null;
  el.appendChild(section('Device memory', 'ms-devmem', docErrors(doc), top,
    h('div', { class: 'toolbar' }, pick,
      h('span', { class: 'muted' }, 'usage after each node in execution order; click the curve or a node for the tensors live there')),
    body));
  if (!graphs.length) {
    body.appendChild(noData('No graph with tensors in this file.'));
    return;
  }

  function drawGraph() {
    const g = graphs[gi];
    body.replaceChildren();
    const nodes = g.nodes || [];
    const idOf = (nid) => nodes.findIndex((n) => n.node_id === nid);
    const box = chartBox('ms-devmem-chart', 300);
    const bdSlot = h('div', { testid: 'ms-devmem-breakdown-slot' });
    body.appendChild(h('div', { class: 'muted', testid: 'ms-devmem-graph-line' },
      `Graph ${g.graph_id}: ${fmtInt(g.node_count)} nodes, ${fmtInt(g.tensor_count)} tensors, static ${fmtBytes(g.static_mem_bytes)}, ` +
      `peak ${fmtBytes(g.peak_bytes)}` + (g.peak_node !== null ? ` at node ${g.peak_node} (${nodes[g.peak_node]?.name ?? ''})` : '')));
    body.appendChild(box);
    const marks = [];
    for (const [label, nid] of [['fp_start', g.fp_start], ['bp_end', g.bp_end]]) {
      const i = nid === null ? -1 : idOf(nid);
      if (i >= 0) marks.push({ xAxis: String(i), label: { formatter: label } });
    }
    const chart = makeChart(box, {
      tooltip: {
        trigger: 'axis', confine: true,
        formatter: (ps) => { const i = Number(ps[0].axisValue); return `${i}: ${nodes[i]?.name ?? ''}<br>${fmtBytes(ps[0].value)}`; },
      },
      grid: { left: 8, right: 24, top: 24, bottom: 8, containLabel: true },
      xAxis: { type: 'category', name: 'node', data: (g.lines_bytes || []).map((_, i) => String(i)) },
      yAxis: { type: 'value', axisLabel: { formatter: (v) => fmtBytes(v) } },
      series: [{
        type: 'line', name: 'usage', showSymbol: (g.lines_bytes || []).length < 80, data: g.lines_bytes || [], areaStyle: { opacity: 0.15 },
        markLine: { symbol: 'none', data: marks },
        markPoint: g.peak_node !== null ? { data: [{ coord: [String(g.peak_node), g.peak_bytes], value: 'peak' }] } : undefined,
      }],
    });
    if (chart && chart.on) chart.on('click', (p) => showBreakdown(Number(p.name)));
    body.appendChild(createTable({
      name: 'ms-devmem-nodes', rows: nodes, sortKey: 'index', sortDir: 'asc', searchPlaceholder: 'Filter nodes…',
      onRowClick: (r) => showBreakdown(r.index),
      columns: [
        { key: 'index', title: 'Order', fmt: 'int' },
        { key: 'name', title: 'Node', fmt: 'text', cls: 'name' },
        { key: 'node_id', title: 'Node id', fmt: 'int' },
        { key: 'size_bytes', title: 'Output + workspace', fmt: 'bytes' },
        { key: 'allocations', title: 'Tensors', fmt: 'int' },
        { key: 'allocated_bytes', title: 'Usage change', fmt: 'bytes' },
        { key: 'usage', title: 'Usage after', fmt: 'bytes', value: (r) => g.lines_bytes[r.index] },
      ],
    }).el);
    body.appendChild(bdSlot);
    showBreakdown(g.peak_node ?? 0);

    function showBreakdown(i) {
      if (!Number.isFinite(i) || i < 0 || i >= nodes.length) return;
      const rows = breakdownAt(g, i);
      bdSlot.replaceChildren(h('h4', { testid: 'ms-devmem-breakdown-title' },
        `Tensors live at node ${i} (${nodes[i].name}): ${rows.length}, ${fmtBytes(rows.reduce((a, t) => a + t.size_bytes, 0))}`),
      rows.length ? createTable({
        name: 'ms-devmem-breakdown', rows, sortKey: 'size_bytes', sortDir: 'desc', search: false,
        columns: [
          { key: 'name', title: 'Tensor', fmt: 'text', cls: 'name' },
          { key: 'size_bytes', title: 'Size', fmt: 'bytes' },
          { key: 'life_long', title: 'Lifetime kind', fmt: 'text' },
          { key: 'life', title: 'Live on nodes', fmt: 'text', value: (t) => `${t.live_from}–${t.live_to - 1}` },
          { key: 'shape', title: 'Shape', fmt: 'text', value: (t) => (t.shape ? `[${t.shape.join(', ')}]` : '') },
          { key: 'data_type', title: 'Type', fmt: 'text', value: (t) => t.data_type || '' },
          { key: 'format', title: 'Format', fmt: 'text', value: (t) => t.format || '' },
        ],
      }).el : noData('No output tensor is live at this node.'));
    }
  }
  drawGraph();
}

function hostMemory(el, doc, ctx) {
  const devs = Object.entries((doc && doc.devices) || {});
  if (!devs.length) {
    el.appendChild(section('Memory', 'ms-memory', noData('No memory records for this device.')));
    return;
  }
  const rows = devs.map(([name, d]) => {
    let a = d.peak_allocated_bytes ?? null;
    let r = null;
    for (const c of d.curve || []) {
      if (a === null || c[1] > a) a = c[1];
      if (r === null || c[2] > r) r = c[2];
    }
    return { name, peak_allocated: a, peak_reserved: r, events: (d.events || []).length };
  });
  el.appendChild(section('Memory', 'ms-memory',
    createTable({
      name: 'ms-memory', rows, search: false, sortKey: 'peak_allocated', sortDir: 'desc',
      columns: [
        { key: 'name', title: 'Memory device', fmt: 'text' },
        { key: 'peak_allocated', title: 'Peak allocated', fmt: 'bytes' },
        { key: 'peak_reserved', title: 'Peak reserved', fmt: 'bytes' },
        { key: 'events', title: 'Alloc/free events', fmt: 'int' },
      ],
    }).el,
    h('a', { href: '#', testid: 'ms-memory-link', onclick: (e) => { e.preventDefault(); ctx.navigate('memory'); } }, 'Open the Memory view')));
}

export async function render(el, ctx) {
  const [dev, doc] = await Promise.all([ctx.doc('ms_memory'), ctx.doc('memory')]);
  deviceMemory(el, dev);
  hostMemory(el, doc, ctx);
}
