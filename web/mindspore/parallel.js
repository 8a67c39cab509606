// MindSpore tab: parallel strategy and the stage timeline (MindInsight's
// cluster "parallel strategy" and Marey views). Reads ms_parallel (the
// ranks' parallel_strategy_<rank>.json merged per stage: operators with
// their sharding strategy, groups and inputs) and ms_marey (each device's
// operators of a step, devices grouped in stages). The stages graph is an
// ECharts graph per stage (operators left to right in execution order,
// edges from their inputs) with the operators' table below; the Marey view
// draws each device as a horizontal line and joins the same operator on
// neighbouring devices of a stage with a polygon (start to end), computation
// green and communication orange as MindInsight colours them, with each
// device's FLOPs and memory lines in its row, the stage / device blocks
// (FLOPs, FLOPS, peak memory shaded by ratio) and a step chooser (the page
// keeps the step as ms_step; the server caches each step's document).
import { h, fmtUs, fmtNum, fmtBytes, select, labeled } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { section, noData, docErrors } from './common.js';

const COMM = /AllReduce|AllGather|ReduceScatter|Broadcast|Send|Receive|Recv|AllToAll|Hcom|StreamRecv/;
const MAX_POLYS = 20000; // polygons drawn; the rest summarised

export async function render(el, ctx) {
  const want = ctx.params.ms_step;
  const [par, first] = await Promise.all([ctx.doc('ms_parallel'),
    want ? ctx.view('ms_marey', { step: want }).catch(() => ctx.doc('ms_marey')) : ctx.doc('ms_marey')]);
  const stages = par && par.graphs ? Object.keys(par.graphs) : [];
  if (!stages.length) {
    el.appendChild(section('Parallel strategy', 'ms-parallel', docErrors(par),
      noData('No parallel strategy for this job (parallel_strategy_<rank>.json).', 'ms-parallel-none')));
  } else {
    strategyPanel(el, par, stages);
  }
  const mstages = first && first.stage_data ? Object.keys(first.stage_data) : [];
  if (!mstages.length) {
    el.appendChild(section('Stage timeline (Marey)', 'ms-marey',
      noData('No stage timeline (ascend_timeline_display_<id>.json of the devices, or a saved ascend_marey_timeline_<step>.json).', 'ms-marey-none')));
    return;
  }
  // the step chooser: each step is asked of the server (which caches it)
  const slot = h('div', { testid: 'ms-marey-slot' });
  el.appendChild(slot);
  const show = (m) => {
    slot.replaceChildren();
    mareyPanel(slot, m, Object.keys(m.stage_data || {}), async (step) => {
      ctx.setParams({ ms_step: String(step) });
      try {
        const next = await ctx.view('ms_marey', { step });
        if (ctx.alive()) show(next);
      } catch (e) {
        if (e && e.name === 'AbortError') return;
        slot.appendChild(h('div', { class: 'error', testid: 'ms-marey-step-error' }, String(e.message || e)));
      }
    });
  };
  show(first);
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

// MindInsight's StageTree colours: a grey by the ratio (d3.interpolateGreys(v + 0.2))
function grey(v) {
  if (typeof v !== 'number' || !isFinite(v)) return 'transparent';
  const t = Math.min(1, Math.max(0, v + 0.2));
  const c = Math.round(245 - t * 230);
  return `rgb(${c},${c},${c})`;
}

function blockCell(v, label, title) {
  const dark = typeof v === 'number' && v + 0.2 > 0.55;
  return h('td', { title, style: `background:${grey(v)};color:${dark ? '#fff' : 'inherit'}` }, label);
}

/** The stage / device blocks: FLOPs, FLOPS and peak memory of each stage and device, shaded by ratio. */
function blocksTable(m) {
  const blocks = m.blocks || [];
  if (!blocks.length) return null;
  const num = (v, d = 3) => (typeof v === 'number' ? fmtNum(v, d) : '–');
  // each stage, then its devices (as MindInsight's stage tree expands them)
  const ordered = blocks.filter((b) => b.kind === 'stage')
    .flatMap((st) => [st, ...blocks.filter((b) => b.kind === 'device' && b.stage === st.name)]);
  const rows = ordered.map((b) => h('tr', { testid: `ms-marey-block-${b.name}`, class: b.kind === 'stage' ? 'ms-marey-stage-row' : '' },
    h('td', { style: b.kind === 'stage' ? 'font-weight:600' : 'padding-left:1.5em' }, b.name),
    blockCell(b.flops_ratio, num(b.flops), `FLOPs ${num(b.flops)} MFLOPs, ratio ${num(b.flops_ratio)}`),
    blockCell(b.flops_per_s_ratio, num(b.flops_per_s), `FLOPS ${num(b.flops_per_s)} GFLOPS, ratio ${num(b.flops_per_s_ratio)}`),
    blockCell(b.mem_ratio, typeof b.peak_mem === 'number' ? fmtBytes(b.peak_mem) : '–',
      `peak ${typeof b.peak_mem === 'number' ? fmtBytes(b.peak_mem) : '–'} of ${typeof b.capacity === 'number' ? fmtBytes(b.capacity) : '–'}, ratio ${num(b.mem_ratio)}`)));
  return h('table', { class: 'data ms-marey-blocks', testid: 'ms-marey-blocks' },
    h('thead', null, h('tr', null, h('th', null, 'Stage / device'), h('th', null, 'FLOPs (M)'), h('th', null, 'FLOPS (G)'), h('th', null, 'Peak memory'))),
    h('tbody', null, ...rows));
}

function mareyPanel(el, m, stages, onStep) {
  // one row per device, stage by stage, each stage's devices by their number (as MindInsight)
  const num = (s) => Number((String(s).match(/\d+/) || ['0'])[0]);
  const devices = [];
  for (const s of stages) {
    for (const d of [...(m.stage_data[s].devices || [])].sort((a, b) => num(a) - num(b))) devices.push({ stage: s, device: d });
  }
  const rowOf = new Map(devices.map((d, i) => [d.device, i]));
  const rows = stages.map((s) => {
    const data = Object.values(m.stage_data[s].data || {});
    const lo = Math.min(...data.map((d) => d.st_min));
    const hi = Math.max(...data.map((d) => d.ed_max));
    return { stage: s, devices: (m.stage_data[s].devices || []).join(', '), ops: data.length, start_us: lo - m.minT, end_us: hi - m.minT, span_us: hi - lo };
  });
  const steps = Array.isArray(m.steps) && m.steps.length ? m.steps : [m.step];
  const box = chartBox('ms-marey-chart', Math.max(220, 60 + devices.length * 50));
  const nFlops = Object.keys(m.flops_lines || {}).length, nMem = Object.keys(m.memory_lines || {}).length;
  el.appendChild(section(`Stage timeline (Marey, step ${m.step})`, 'ms-marey',
    h('div', { class: 'toolbar' },
      labeled('Step', select(steps.map((k) => ({ value: String(k), label: `step ${k}` })), String(m.step),
        (v) => onStep(Number(v)), { testid: 'ms-marey-step' })),
      h('span', { class: 'muted', testid: 'ms-marey-lines-note' },
        `${nFlops} FLOPs line${nFlops === 1 ? '' : 's'}, ${nMem} memory line${nMem === 1 ? '' : 's'}`)),
    h('div', { class: 'muted' }, `From ${m.source === 'file' ? 'a saved MindInsight answer' : 'the devices\' timelines'}; ` +
      'each line is a device, the same operator on neighbouring devices of a stage is joined (green computation, orange communication). ' +
      'In each device row the blue line is its operators\' FLOPs (flops_<id>.txt) and the purple one its memory in use (memory_usage_<id>.pb), ' +
      'at the middle of each operator, scaled between the smallest and largest over all devices. Times from minT.'),
    box,
    blocksTable(m),
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
  for (const s of stages) {
    const devs = devices.filter((d) => d.stage === s).map((d) => d.device);
    for (let k = 0; k < devs.length; k++) {
      const a = m.maps[devs[k]] || {};
      const b = k + 1 < devs.length ? (m.maps[devs[k + 1]] || {}) : null;
      const ia = rowOf.get(devs[k]);
      for (const [name, o] of Object.entries(a)) {
        if (polys.length >= MAX_POLYS) break;
        const q = b && b[name];
        polys.push({ name, comm: COMM.test(name), pts: q
          ? [[o.st - m.minT, ia], [o.ed - m.minT, ia], [q.ed - m.minT, ia + 1], [q.st - m.minT, ia + 1]]
          : [[o.st - m.minT, ia - 0.15], [o.ed - m.minT, ia - 0.15], [o.ed - m.minT, ia + 0.15], [o.st - m.minT, ia + 0.15]] });
      }
    }
  }
  // the FLOPs / memory lines: in the device's row, higher values higher up
  // (MindInsight: a band of +-offset around the row), over the range of all devices
  const lineSeries = (lines, range, name, color) => Object.entries(lines || {}).filter(([d]) => rowOf.has(d)).map(([d, pts]) => {
    const [lo, hi] = range || [0, 0];
    const norm = (y) => (hi > lo ? (y - lo) / (hi - lo) : 0.5);
    return {
      type: 'line', name, showSymbol: false, z: 5, lineStyle: { width: 1.2, color }, itemStyle: { color },
      data: pts.map(([x, y, op]) => ({ value: [x - m.minT, rowOf.get(d) + 0.35 - 0.7 * norm(y)], op, raw: y, device: d })),
    };
  });
  const fl = lineSeries(m.flops_lines, m.flops_range, 'FLOPs', '#3b6fd4');
  const me = lineSeries(m.memory_lines, m.memory_range, 'memory', '#9b4fc0');
  const chart = makeChart(box, {
    tooltip: { confine: true, formatter: (p) => (p.seriesType === 'line'
      ? `${p.data.device} ${p.data.op}<br>${p.seriesName}: ${p.seriesName === 'FLOPs' ? fmtNum(p.data.raw, 3) + ' MFLOPs' : fmtBytes(p.data.raw)}`
      : `${p.data.name}<br>${fmtUs(p.data.pts[0][0])} – ${fmtUs(p.data.pts[1][0])}`) },
    legend: { top: 0, data: ['FLOPs', 'memory'] },
    grid: { left: 8, right: 20, top: 28, bottom: 30, containLabel: true },
    dataZoom: [{ type: 'inside', xAxisIndex: 0 }, { type: 'slider', xAxisIndex: 0, height: 14, bottom: 4 }],
    xAxis: { type: 'value', name: 'us from minT', axisLabel: { formatter: (v) => fmtUs(v) } },
    // the rows' positions (value axis, hidden: ECharts puts its ticks at
    // -0.5, 0.5, ... from min, between the rows) and one label per device
    // row, in row order (a category axis over the same extent, every label)
    yAxis: [
      { type: 'value', inverse: true, min: -0.5, max: devices.length - 0.5, show: false },
      { type: 'category', inverse: true, position: 'left', data: devices.map((d) => `${d.stage} ${d.device}`),
        axisTick: { alignWithLabel: true }, axisLabel: { interval: 0 } },
    ],
    series: [{
      type: 'custom', name: 'operators', data: polys.map((p) => ({ name: p.name, pts: p.pts, comm: p.comm, value: [p.pts[0][0], p.pts[0][1]] })),
      renderItem: (params, api) => {
        const d = polys[params.dataIndex];
        return { type: 'polygon', shape: { points: d.pts.map((pt) => api.coord(pt)) },
          style: { fill: d.comm ? 'rgba(240,140,40,0.55)' : 'rgba(60,170,90,0.45)', stroke: d.comm ? '#d07020' : '#2e8b57', lineWidth: 0.5 } };
      },
    }, ...fl, ...me],
  });
  // for the browser tests: the rows, labels and lines as drawn
  window.__nnsMarey = { step: m.step, rows: devices.map((d) => `${d.stage} ${d.device}`), flops: fl.length, memory: me.length, chart: !!chart };
}
