// MindSpore tab: parallel strategy and the stage timeline (MindInsight's
// cluster "parallel strategy" and Marey views). Reads ms_parallel (the
// ranks' parallel_strategy_<rank>.json merged per stage: operators with
// their sharding strategy, groups and inputs) and ms_marey (each device's
// operators of a step, devices grouped in stages). The stages graph is an
// ECharts graph per stage (operators left to right in execution order,
// edges from their inputs) with the operators' table below; the Marey view
// draws each device as a horizontal line and joins the same operator on
// neighbouring devices of a stage with a polygon (start to end), computation
// green and communication orange as MindInsight colours them.
import { h, fmtUs, select, labeled } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { section, noData, docErrors } from './common.js';

const COMM = /AllReduce|AllGather|ReduceScatter|Broadcast|Send|Receive|Recv|AllToAll|Hcom|StreamRecv/;
const MAX_POLYS = 20000; // polygons drawn; the rest summarised

export async function render(el, ctx) {
  const [par, marey] = await Promise.all([ctx.doc('ms_parallel'), ctx.doc('ms_marey')]);
  const stages = par && par.graphs ? Object.keys(par.graphs) : [];
  if (!stages.length) {
    el.appendChild(section('Parallel strategy', 'ms-parallel', docErrors(par),
      noData('No parallel strategy for this job (parallel_strategy_<rank>.json).', 'ms-parallel-none')));
  } else {
    strategyPanel(el, par, stages);
  }
  const mstages = marey && marey.stage_data ? Object.keys(marey.stage_data) : [];
  if (!mstages.length) {
    el.appendChild(section('Stage timeline (Marey)', 'ms-marey',
      noData('No stage timeline (ascend_timeline_display_<id>.json of the devices, or a saved ascend_marey_timeline_<step>.json).', 'ms-marey-none')));
  } else {
    mareyPanel(el, marey, mstages);
  }
}

function strategyPanel(el, par, stages) {
  let stage = stages[0];
  const box = chartBox('ms-parallel-graph', 280);
  const tableSlot = h('div', { testid: 'ms-parallel-table-slot' });
  const summary = h('div', { class: 'muted', testid: 'ms-parallel-summary' });
  el.appendChild(section('Parallel strategy', 'ms-parallel', docErrors(par),
    h('div', { class: 'toolbar' },
      labeled('Stage', select(stages.map((s) => ({ value: s, label: `stage ${s} (ranks ${(par.graphs[s].rank_ids || []).join(', ')})` })), stage,
        (v) => { stage = v; draw(); }, { testid: 'ms-parallel-stage' })),
      h('span', { class: 'muted' }, `${par.metadata?.parallel_type || ''} · ranks read: ${(par.ranks || []).join(', ')}`)),
    summary, box, tableSlot));

  function draw() {
    const g = par.graphs[stage];
    const ops = g.op_nodes || [];
    const withStrategy = ops.filter((o) => o.strategy);
    summary.textContent = `Stage ${stage}: ${ops.length} operators, ${withStrategy.length} with a sharding strategy, ` +
      `${ops.filter((o) => o.instance_type === 'Redistribution').length} redistribution, ` +
      `${ops.filter((o) => o.instance_type === 'GradientAggregation').length} gradient aggregation, ${(g.const_nodes || []).length} consts/parameters.`;
    const cats = ['with strategy', 'redistribution', 'gradient aggregation', 'other'];
    const catOf = (o) => (o.instance_type === 'Redistribution' ? 1 : o.instance_type === 'GradientAggregation' ? 2 : o.strategy ? 0 : 3);
    const shown = ops.slice(0, 400);
    const ids = new Set(shown.map((o) => o.node_id));
    makeChart(box, {
      tooltip: { confine: true, formatter: (p) => (p.dataType === 'node' ? `${p.data.full}<br>${p.data.type}${p.data.strategy ? '<br>strategy ' + p.data.strategy : ''}` : '') },
      legend: { top: 0, data: cats },
      series: [{
        type: 'graph', layout: 'none', roam: true, top: 30, symbolSize: 14, edgeSymbol: ['none', 'arrow'], edgeSymbolSize: 5,
        categories: cats.map((c) => ({ name: c })),
        label: { show: shown.length <= 40, position: 'bottom', fontSize: 10, formatter: (p) => p.data.type },
        data: shown.map((o, i) => ({ name: o.node_id, full: o.name, type: o.type, strategy: o.strategy, category: catOf(o), x: i * 60, y: (i % 3) * 40 })),
        links: shown.flatMap((o) => (o.input || []).filter((s) => ids.has(s)).map((s) => ({ source: s, target: o.node_id }))),
      }],
    });
    tableSlot.replaceChildren(createTable({
      name: 'ms-parallel-ops', rows: ops, sortKey: 'node_id', sortDir: 'asc', searchPlaceholder: 'Filter operators…',
      columns: [
        { key: 'node_id', title: 'Id', fmt: 'int', value: (r) => Number(r.node_id) },
        { key: 'type', title: 'Type', fmt: 'text' },
        { key: 'name', title: 'Operator', fmt: 'text', cls: 'name' },
        { key: 'strategy', title: 'Strategy', fmt: 'text', value: (r) => r.strategy || '' },
        { key: 'parallel_group', title: 'Group', fmt: 'text', value: (r) => (r.parallel_group || []).join(', ') },
        { key: 'instance_type', title: 'Role', fmt: 'text' },
        { key: 'input', title: 'Inputs', fmt: 'text', value: (r) => (r.input || []).join(', ') },
        { key: 'output_shape', title: 'Output shape', fmt: 'text', value: (r) => (typeof r.output_shape === 'string' ? r.output_shape : JSON.stringify(r.output_shape || [])) },
      ],
    }).el);
  }
  draw();
}

function mareyPanel(el, m, stages) {
  const devices = [];
  for (const s of stages) for (const d of m.stage_data[s].devices || []) devices.push({ stage: s, device: d });
  const rows = stages.map((s) => {
    const data = Object.values(m.stage_data[s].data || {});
    const lo = Math.min(...data.map((d) => d.st_min));
    const hi = Math.max(...data.map((d) => d.ed_max));
    return { stage: s, devices: (m.stage_data[s].devices || []).join(', '), ops: data.length, start_us: lo - m.minT, end_us: hi - m.minT, span_us: hi - lo };
  });
  const box = chartBox('ms-marey-chart', Math.max(220, 60 + devices.length * 50));
  el.appendChild(section(`Stage timeline (Marey, step ${m.step})`, 'ms-marey',
    h('div', { class: 'muted' }, `From ${m.source === 'file' ? 'a saved MindInsight answer' : 'the devices\' timelines'}; ` +
      'each line is a device, the same operator on neighbouring devices of a stage is joined (green computation, orange communication). Times from minT.'),
    box,
    createTable({
      name: 'ms-marey-stages', rows, sortKey: 'stage', sortDir: 'asc',
      columns: [
        { key: 'stage', title: 'Stage', fmt: 'text' },
        { key: 'devices', title: 'Devices', fmt: 'text' },
        { key: 'ops', title: 'Operators', fmt: 'int' },
        { key: 'start_us', title: 'Start', fmt: 'us' },
        { key: 'end_us', title: 'End', fmt: 'us' },
        { key: 'span_us', title: 'Span', fmt: 'us' },
      ],
    }).el));
  // polygons: for each stage, neighbouring devices i, i+1 and each op on both
  const polys = [];
  const y = (i) => i;
  for (const s of stages) {
    const devs = m.stage_data[s].devices || [];
    for (let k = 0; k < devs.length; k++) {
      const a = m.maps[devs[k]] || {};
      const b = k + 1 < devs.length ? (m.maps[devs[k + 1]] || {}) : null;
      const ia = devices.findIndex((d) => d.device === devs[k]);
      for (const [name, o] of Object.entries(a)) {
        if (polys.length >= MAX_POLYS) break;
        const q = b && b[name];
        polys.push({ name, comm: COMM.test(name), pts: q
          ? [[o.st - m.minT, y(ia)], [o.ed - m.minT, y(ia)], [q.ed - m.minT, y(ia + 1)], [q.st - m.minT, y(ia + 1)]]
          : [[o.st - m.minT, y(ia) - 0.15], [o.ed - m.minT, y(ia) - 0.15], [o.ed - m.minT, y(ia) + 0.15], [o.st - m.minT, y(ia) + 0.15]] });
      }
    }
  }
  makeChart(box, {
    tooltip: { confine: true, formatter: (p) => `${p.data.name}<br>${fmtUs(p.data.pts[0][0])} – ${fmtUs(p.data.pts[1][0])}` },
    grid: { left: 8, right: 20, top: 20, bottom: 30, containLabel: true },
    dataZoom: [{ type: 'inside', xAxisIndex: 0 }, { type: 'slider', xAxisIndex: 0, height: 14, bottom: 4 }],
    xAxis: { type: 'value', name: 'us from minT', axisLabel: { formatter: (v) => fmtUs(v) } },
    yAxis: { type: 'value', inverse: true, min: -0.5, max: devices.length - 0.5, interval: 1,
      axisLabel: { formatter: (v) => (devices[v] ? `${devices[v].stage} ${devices[v].device}` : '') } },
    series: [{
      type: 'custom', name: 'operators', data: polys.map((p) => ({ name: p.name, pts: p.pts, comm: p.comm, value: [p.pts[0][0], p.pts[0][1]] })),
      renderItem: (params, api) => {
        const d = polys[params.dataIndex];
        return { type: 'polygon', shape: { points: d.pts.map((pt) => api.coord(pt)) },
          style: { fill: d.comm ? 'rgba(240,140,40,0.55)' : 'rgba(60,170,90,0.45)', stroke: d.comm ? '#d07020' : '#2e8b57', lineWidth: 0.5 } };
      },
    }],
  });
}
