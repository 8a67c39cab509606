// Module view: flame graph (icicle) of the nn.Module hierarchy sized by host or device
// total time, plus the module table (tb_plugin's Module view).
import { h, panel, select, labeled, fmtUs, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, palette } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { docView } from '../lib/view.js';

function layout(mods, key) {
  const kids = mods.map(() => []);
  const roots = [];
  mods.forEach((m, i) => {
    if (m.parent === null || m.parent === undefined || !mods[m.parent] || m.parent === i) roots.push(i);
    else kids[m.parent].push(i);
  });
  const items = [];
  const depthOf = new Array(mods.length).fill(0);
  let maxDepth = 0;
  const place = (i, x0, width, depth, guard) => {
    if (guard > 256) return;
    depthOf[i] = depth;
    maxDepth = Math.max(maxDepth, depth);
    items.push([x0, x0 + width, depth, i]);
    const ch = kids[i];
    const sum = ch.reduce((s, c) => s + Math.max(0, mods[c][key] || 0), 0);
    const scale = sum > width && sum > 0 ? width / sum : 1;
    let x = x0;
    for (const c of ch) {
      const w = Math.max(0, mods[c][key] || 0) * scale;
      place(c, x, w, depth + 1, guard + 1);
      x += w;
    }
  };
  let x = 0;
  for (const r of roots) {
    const w = Math.max(0, mods[r][key] || 0);
    place(r, x, w, 0, 0);
    x += w;
  }
  return { items: items.filter((it) => it[1] > it[0]), total: x, maxDepth, depthOf };
}

const shortName = (n) => String(n).replace(/^nn\.Module: /, '');
function colorOf(name) {
  const cls = shortName(name).replace(/\.backward$/, '').replace(/_\d+$/, '');
  let hsh = 0;
  for (let i = 0; i < cls.length; i++) hsh = (hsh * 31 + cls.charCodeAt(i)) >>> 0;
  const c = palette[hsh % palette.length];
  return /\.backward$/.test(name) ? echarts.color.modifyAlpha(c, 0.7) : c;
}

export default docView({
  id: 'module',
  title: 'Module',
  doc: 'modules',
  rows: (doc) => doc.modules,
  empty: ['No module hierarchy in this trace.',
    'Module ranges come from torch.profiler with with_stack=True (nn.Module python_function events, PyTorch ≥ 1.10) or from nnscope.torch\'s module hooks (modules=True), which record "nn.Module: <Class>_<n>" ranges.'],
  async render(el, ctx, doc, mods) {
    const hasDevice = mods.some((m) => (m.device_total_us || 0) > 0);
    let key = ctx.params.size === 'host' || !hasDevice ? 'host_total_us' : (ctx.params.size === 'device' ? 'device_total_us' : (hasDevice ? 'device_total_us' : 'host_total_us'));
    const sizeSel = select([{ value: 'host_total_us', label: 'Host total time' }, { value: 'device_total_us', label: 'Device total time' }], key,
      (v) => { key = v; ctx.setParams({ size: v === 'host_total_us' ? 'host' : 'device' }); drawFlame(); }, { testid: 'module-size' });
    if (!hasDevice) sizeSel.disabled = true;
    const resetBtn = h('button', { class: 'btn small', testid: 'module-reset' }, 'Reset zoom');
    const box = chartBox('chart-module-flame', Math.min(520, 80 + 26 * 8));
    el.appendChild(panel('Module flame graph', box, [labeled('Size by', sizeSel), h('span', { class: 'muted' }, 'Click a module to zoom in'), resetBtn]));

    const lay0 = layout(mods, 'host_total_us');
    const rows = mods.map((m, i) => ({ ...m, _depth: lay0.depthOf[i], _idx: i }));
    const t = createTable({
      name: 'modules', rows, sortKey: null, searchPlaceholder: 'Search modules…',
      columns: columns('modules', [
        { key: 'name', cls: 'name', render: (r) => h('span', { style: { paddingLeft: (r._depth * 12) + 'px' } }, r.name) },
        { key: 'module_id', fmt: 'text' },
        // the parent's name, where the document has its index
        { key: 'parent', fmt: 'text', value: (r) => (r.parent != null && mods[r.parent] ? mods[r.parent].name : '') },
        'occurrences', 'operators', 'host_self_us', 'host_total_us',
        hasDevice && 'device_self_us',
        hasDevice && 'device_total_us',
        'avg_duration_us',
      ]),
    });
    el.appendChild(panel('Modules', t.el));

    let chart = null;
    function drawFlame() {
      const lay = layout(mods, key);
      const depth = lay.maxDepth + 1;
      box.style.height = Math.min(560, 50 + 24 * depth) + 'px';
      const data = lay.items.map(([x0, x1, d, i]) => ({ value: [x0, x1, d, i], itemStyle: { color: colorOf(mods[i].name) } }));
      const option = {
        tooltip: {
          confine: true,
          formatter: (p) => {
            const m = mods[p.value[3]];
            const pct = lay.total > 0 ? ((p.value[1] - p.value[0]) / lay.total * 100).toFixed(1) + '%' : '';
            return `<b>${esc(m.name)}</b><br>Host total: ${fmtUs(m.host_total_us)}<br>Host self: ${fmtUs(m.host_self_us)}` +
              `<br>Device total: ${fmtUs(m.device_total_us)}<br>Occurrences: ${m.occurrences ?? '–'} · ${pct} of all`;
          },
        },
        grid: { left: 8, right: 8, top: 8, bottom: 8 },
        xAxis: { type: 'value', min: 0, max: lay.total || 1, show: false },
        yAxis: { type: 'value', min: 0, max: depth, inverse: true, show: false },
        series: [{
          type: 'custom',
          renderItem: (params, api) => {
            const a = api.coord([api.value(0), api.value(2)]);
            const b = api.coord([api.value(1), api.value(2) + 1]);
            const rect = echarts.graphic.clipRectByRect(
              { x: a[0], y: a[1] + 1, width: Math.max(0, b[0] - a[0] - 1), height: Math.max(0, b[1] - a[1] - 2) },
              { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
            if (!rect) return null;
            const m = mods[api.value(3)];
            return {
              type: 'rect', shape: rect, style: { fill: api.visual('color') },
              textContent: { style: { text: rect.width > 40 ? shortName(m.name) : '', fill: '#fff', fontSize: 11, width: rect.width - 6, overflow: 'truncate' } },
              textConfig: { position: 'insideLeft' },
            };
          },
          encode: { x: [0, 1], y: 2 },
          data,
        }],
      };
      if (!chart || chart.isDisposed()) {
        chart = makeChart(box, option);
        chart.on('click', (p) => {
          if (!p.value) return;
          chart.setOption({ xAxis: { min: p.value[0], max: p.value[1] } });
        });
      } else {
        chart.setOption(option, { notMerge: true });
        chart.resize();
      }
      resetBtn.onclick = () => chart.setOption({ xAxis: { min: 0, max: lay.total || 1 } });
    }
    drawFlame();
  },
});
