// Memory view: per-device allocated/reserved curve with zoom; the zoomed time range
// filters the alloc/free events table and recomputes the per-operator statistics
// (tb_plugin's Memory page).
import { h, panel, select, labeled, fmtBytes, fmtMs, statCards, banner, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, disposeCharts } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { docView } from '../lib/view.js';

// the per-operator statistics of the whole trace (memory.json's ops)
const fullStatsCols = () => columns('memory_ops', [
  { key: 'name', cls: 'name' },
  'calls',
  { key: 'size_increase', tip: 'Allocated minus freed bytes, including children' },
  'self_size_increase', 'alloc_count', 'self_alloc_count', 'alloc_size', 'self_alloc_size',
]);
// the statistics of a zoomed range, computed here (statsInRange): the free
// columns are the page's own
const rangeStatsCols = () => columns('memory_ops', [
  { key: 'name', cls: 'name' },
  'alloc_count', 'alloc_size',
  { key: 'free_count', title: 'Frees', fmt: 'int' },
  { key: 'free_size', title: 'Freed Size', fmt: 'bytes' },
  { key: 'size_increase', tip: 'Allocated minus freed bytes in the range' },
]);
const ms3 = (v) => fmtMs(v, 3);
const eventCols = () => columns('memory_allocations', [
  { key: 'op', fmt: (v) => v ?? '(unknown)', cls: 'name' },
  'size',
  { key: 'alloc_us', fmt: ms3, numeric: true },
  { key: 'free_us', fmt: ms3, numeric: true },
  { key: 'duration_us', fmt: ms3, numeric: true },
]);

/** per-operator stats from the events inside [t0, t1] */
function statsInRange(events, t0, t1) {
  const m = new Map();
  const inR = (t) => t !== null && t !== undefined && t >= t0 && t <= t1;
  for (const e of events) {
    const a = inR(e.alloc_us), f = inR(e.free_us);
    if (!a && !f) continue;
    const name = e.op ?? '(unknown)';
    let s = m.get(name);
    if (!s) { s = { name, alloc_count: 0, alloc_size: 0, free_count: 0, free_size: 0, size_increase: 0 }; m.set(name, s); }
    if (a) { s.alloc_count++; s.alloc_size += e.size || 0; }
    if (f) { s.free_count++; s.free_size += e.size || 0; }
    s.size_increase = s.alloc_size - s.free_size;
  }
  return [...m.values()];
}

let chart = null;
let timer = null;

export default docView({
  id: 'memory',
  title: 'Memory',
  doc: 'memory',
  liveText: 'The allocation curve so far; the events and per-operator statistics come when the run ends.',
  rows: (doc) => Object.keys(doc.devices || {}),
  empty: ['No memory records in this trace.',
    'Profile with profile_memory=True (torch.profiler.profile(..., profile_memory=True)) to record allocator events; nnscope.torch records them with profile_memory=True too.'],
  async render(el, ctx, doc, devs) {
    devs.sort((a, b) => (a === 'CPU') - (b === 'CPU') || a.localeCompare(b, undefined, { numeric: true }));
    let devName = devs.includes(ctx.params.device) ? ctx.params.device : devs[0];

    const devSel = select(devs, devName, (v) => { devName = v; ctx.setParams({ device: v }); draw(); }, { testid: 'memory-device-select' });
    const rangeLabel = h('span', { class: 'muted', testid: 'memory-range' });
    const resetBtn = h('button', { class: 'btn small', testid: 'memory-reset-zoom' }, 'Reset zoom');
    el.appendChild(h('div', { class: 'toolbar' }, labeled('Device', devSel), h('span', { class: 'spacer' }), rangeLabel, resetBtn));
    const body = h('div', { class: 'view' });
    el.appendChild(body);

    function draw() {
      if (timer) { clearTimeout(timer); timer = null; }
      disposeCharts(body);
      chart = null;
      body.textContent = '';
      const dev = doc.devices[devName];
      const curve = dev.curve || [];
      const events = dev.events || [];
      const ops = dev.ops || [];
      let peakA = dev.peak_allocated_bytes;
      let peakR = null;
      let peakT = null;
      for (const [t, a, r] of curve) {
        if (peakA == null || a > peakA) { peakA = a; }
        if (peakR == null || r > peakR) peakR = r;
      }
      for (const [t, a] of curve) if (a === peakA) { peakT = t; break; }
      body.appendChild(statCards([
        { label: 'Peak allocated', value: fmtBytes(peakA), sub: peakT != null ? `at ${fmtMs(peakT, 3)}` : '' },
        { label: 'Peak reserved', value: fmtBytes(peakR) },
        { label: 'Alloc/free events', value: events.length.toLocaleString('en-US') },
        { label: 'Operators', value: ops.length.toLocaleString('en-US') },
      ], 'memory-peak'));

      let fullT0 = 0, fullT1 = 0;
      if (curve.length) {
        fullT0 = curve[0][0]; fullT1 = curve[curve.length - 1][0];
        const box = chartBox('chart-memory-curve', 300);
        body.appendChild(panel(`Memory curve: ${devName}`, box, h('span', { class: 'muted' }, 'Drag the slider or scroll on the chart to zoom; the tables follow.')));
        chart = makeChart(box, {
          tooltip: {
            trigger: 'axis', confine: true,
            formatter: (ps) => `<b>${esc(fmtMs(ps[0].value[0], 3))}</b>` + ps.map((p) => `<br>${p.marker}${esc(p.seriesName)}: ${fmtBytes(p.value[1])}`).join(''),
          },
          legend: { top: 0 },
          grid: { left: 72, right: 24, top: 30, bottom: 56 },
          xAxis: { type: 'value', min: 'dataMin', max: 'dataMax', name: 'ms', axisLabel: { formatter: (v) => (v / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 }) } },
          yAxis: { type: 'value', axisLabel: { formatter: (v) => fmtBytes(v) } },
          dataZoom: [{ type: 'slider', xAxisIndex: 0, height: 18, bottom: 8, filterMode: 'none', labelFormatter: (v) => fmtMs(v, 1) }, { type: 'inside', xAxisIndex: 0, filterMode: 'none' }],
          series: [
            { name: 'Allocated', type: 'line', showSymbol: false, step: 'end', data: curve.map((c) => [c[0], c[1]]), color: '#4e79a7', areaStyle: { opacity: 0.12 },
              markPoint: peakT != null ? { symbolSize: 36, data: [{ coord: [peakT, peakA], name: 'peak', value: 'peak' }], label: { fontSize: 10 } } : undefined },
            { name: 'Reserved', type: 'line', showSymbol: false, step: 'end', data: curve.map((c) => [c[0], c[2]]), color: '#f28e2b' },
          ],
        });
      } else {
        body.appendChild(banner('info', 'No memory curve for this device: the trace has no allocator totals (Total Allocated / Total Reserved in the [memory] events). The statistics below are per operator.'));
      }

      const evTable = createTable({ name: 'memory-events', columns: eventCols(), rows: events, sortKey: 'size', sortDir: 'desc', searchPlaceholder: 'Search operators…', emptyText: events.length ? 'No events in the range.' : 'No paired allocation events for this device.' });
      const stTable = createTable({ name: 'memory-stats', columns: fullStatsCols(), rows: ops, sortKey: 'size_increase', sortDir: 'desc', searchPlaceholder: 'Search operators…' });
      const statsHost = h('div', null, panel('Memory statistics by operator', stTable.el));
      body.appendChild(panel('Memory events (allocation / release)', evTable.el));
      body.appendChild(statsHost);

      const applyRange = (t0, t1) => {
        const full = t0 <= fullT0 && t1 >= fullT1;
        rangeLabel.textContent = full ? 'Full range' : `Range ${fmtMs(t0, 3)} – ${fmtMs(t1, 3)}`;
        el.dataset.range = full ? '' : `${t0},${t1}`;
        const inR = (t) => t !== null && t !== undefined && t >= t0 && t <= t1;
        evTable.setRows(full ? events : events.filter((e) => inR(e.alloc_us) || inR(e.free_us)));
        // the full range uses the analysis' own statistics (self/total); a sub-range recomputes from events
        const t = full
          ? createTable({ name: 'memory-stats', columns: fullStatsCols(), rows: ops, sortKey: 'size_increase', sortDir: 'desc', searchPlaceholder: 'Search operators…' })
          : createTable({ name: 'memory-stats', columns: rangeStatsCols(), rows: statsInRange(events, t0, t1), sortKey: 'size_increase', sortDir: 'desc', searchPlaceholder: 'Search operators…' });
        statsHost.textContent = '';
        statsHost.appendChild(panel(full ? 'Memory statistics by operator' : 'Memory statistics by operator (selected range, from events)', t.el));
      };
      rangeLabel.textContent = 'Full range';
      if (chart) {
        chart.on('datazoom', () => {
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => {
            timer = null;
            if (!chart || chart.isDisposed()) return;
            const dz = chart.getOption().dataZoom[0];
            let t0 = dz.startValue, t1 = dz.endValue;
            if (typeof t0 !== 'number') t0 = fullT0 + (fullT1 - fullT0) * (dz.start / 100);
            if (typeof t1 !== 'number') t1 = fullT0 + (fullT1 - fullT0) * (dz.end / 100);
            applyRange(t0, t1);
          }, 120);
        });
      }
      resetBtn.onclick = () => {
        if (chart) chart.dispatchAction({ type: 'dataZoom', start: 0, end: 100 });
        else applyRange(-Infinity, Infinity);
      };
    }
    draw();
  },
  dispose() {
    if (timer) clearTimeout(timer);
    timer = null;
    chart = null;
  },
});
