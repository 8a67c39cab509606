// GPU Kernel view: time by kernel pie, tensor-core pie, kernel table grouped by name or
// by launch properties (tb_plugin's Kernel page).
import { h, panel, select, labeled, fmtUs, fmtPct, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, pieOption, disposeCharts } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { docView } from '../lib/view.js';

export default docView({
  id: 'kernel',
  title: 'GPU Kernel',
  doc: 'kernels',
  liveText: 'Kernel times so far; the properties and tensor-core columns come when the run ends.',
  rows: (doc) => doc.by_name,
  empty: ['This trace has no GPU kernels.',
    'Profile with activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA] (torch.profiler) so CUPTI records the kernels; nnscope\'s own traces have kernels only when the CUDA collector is enabled.'],
  async render(el, ctx, doc, byName) {
    const st = { group: ctx.params.group === 'props' ? 'props' : 'name', top: +ctx.params.top || 10 };

    const pieBox = chartBox('chart-kernel-pie', 270);
    const tcBox = chartBox('chart-tc-pie', 270);
    const topSel = select(['5', '10', '20', '30'], String(st.top), (v) => { st.top = +v; ctx.setParams({ top: v === '10' ? '' : v }); drawPie(); }, { testid: 'kernel-topn' });
    el.appendChild(h('div', { class: 'row' },
      h('div', { class: 'grow2' }, panel('Total time by kernel', pieBox, labeled('Top N', topSel))),
      panel('Tensor Cores utilization', tcBox)));

    const tableHost = h('div');
    const groupSel = select([{ value: 'name', label: 'Kernel name' }, { value: 'props', label: 'Kernel properties + operator' }], st.group,
      (v) => { st.group = v; ctx.setParams({ group: v === 'name' ? '' : v }); drawTable(); }, { testid: 'kernel-group' });
    el.appendChild(h('div', { class: 'toolbar' }, labeled('Group by', groupSel), h('span', { class: 'spacer' }),
      h('span', { class: 'muted' }, `All kernels: ${fmtUs(doc.total_us)}`)));
    el.appendChild(tableHost);

    function drawPie() {
      disposeCharts(pieBox);
      makeChart(pieBox, pieOption(byName.map((r) => ({ name: r.name, value: r.total_us || 0 })), { topN: st.top }));
    }
    drawPie();
    // null: the devices cannot have NVIDIA tensor cores (AMD, MTIA, pre-Volta)
    const tcKnown = doc.tc_used_ratio != null;
    const tc = Math.max(0, Math.min(1, doc.tc_used_ratio || 0));
    if (!tcKnown) tcBox.appendChild(h('div', { class: 'muted' }, 'Tensor cores: not applicable to these devices'));
    else makeChart(tcBox, {
      color: ['#59a14f', '#bab0ac'],
      tooltip: { trigger: 'item', formatter: (p) => `${esc(p.name)}<br>${fmtUs(p.value)} (${p.percent.toFixed(1)}%)` },
      legend: { bottom: 0 },
      title: { text: fmtPct(tc), subtext: 'of kernel time', left: 'center', top: '36%', textStyle: { fontSize: 18 }, subtextStyle: { fontSize: 11 } },
      series: [{
        type: 'pie', radius: ['45%', '70%'], center: ['50%', '45%'], label: { show: false },
        data: [
          { name: 'Using Tensor Cores', value: (doc.total_us || 0) * tc },
          { name: 'Not using Tensor Cores', value: (doc.total_us || 0) * (1 - tc) },
        ],
      }],
    });

    function drawTable() {
      const props = st.group === 'props';
      const rows = props ? (doc.by_properties || []) : byName;
      const cols = columns('kernels', [
        { key: 'name', cls: 'name' },
        props && { key: 'op_name', cls: 'name' },
        props && { key: 'grid', cls: 'mono' },
        props && { key: 'block', cls: 'mono' },
        props && 'registers_per_thread',
        props && 'shared_memory',
        'tensor_core', 'calls', 'total_us', 'mean_us', 'max_us', 'min_us',
        { key: 'mean_blocks_per_sm', tip: 'Mean blocks per SM (weighted by duration)' },
        { key: 'mean_occupancy', tip: 'Mean estimated achieved occupancy (%)' },
      ]);
      const t = createTable({ name: 'kernels', columns: cols, rows, sortKey: 'total_us', sortDir: 'desc', searchPlaceholder: 'Search kernels / operators…' });
      tableHost.textContent = '';
      tableHost.appendChild(panel(`Kernels (${rows.length})`, t.el));
    }
    drawTable();
  },
});
