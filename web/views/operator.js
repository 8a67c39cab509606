// Operator view: top-N pies (device/host self/total), grouped operator table with
// input shapes and call stacks (tb_plugin's Operator page); above the table, the
// Overview's warning when device time belongs to no operator (overview.json's
// diagnostics.attribution, fetched beside operators.json; testid unattributed-warning).
import { h, emptyState, panel, select, labeled, banner } from '../lib/util.js';
import { unattributedText } from '../lib/attribution.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, pieOption, disposeCharts } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { liveNote } from '../lib/live.js';

const PIES = [
  { key: 'device_self_us', id: 'device-self', title: 'Device self time', device: true },
  { key: 'device_total_us', id: 'device-total', title: 'Device total time', device: true },
  { key: 'host_self_us', id: 'host-self', title: 'Host self time' },
  { key: 'host_total_us', id: 'host-total', title: 'Host total time' },
];

export default {
  id: 'operator',
  title: 'Operator',
  async render(el, ctx) {
    // the attribution counts are in overview.json; a failure there only
    // costs the warning
    const ovP = ctx.view('overview').catch(() => null);
    const doc = await ctx.view('operators');
    const ov = await ovP;
    if (!ctx.alive()) return;
    if (doc.live) el.appendChild(liveNote(doc.live, 'Host times per operator; device times, input shapes and call stacks come when the run ends.'));
    const byName = doc.by_name || [];
    if (!byName.length) {
      // a MindSpore device: its operators are MindInsight's AI Core / AI CPU
      // tables on the MindSpore tab, not host operator ranges
      const run = (ctx.runs?.runs || []).find((r) => r.name === ctx.run);
      if (run && run.kind === 'mindspore') {
        el.appendChild(emptyState('Operators of a MindSpore device are on the MindSpore tab.',
          h('span', { testid: 'operator-ms-hint' },
            'This device has no host operator ranges: its operator statistics are MindInsight\'s tables ' +
            '(AI Core time by operator type and by operator, AI CPU, FLOPs) read from aicore_intermediate_<id>_type.csv, ' +
            '_detail.csv and the other files of the profiler directory. See the ',
            h('a', { href: '#', testid: 'operator-ms-link', onclick: (e) => { e.preventDefault(); ctx.navigate('mindspore'); } }, 'MindSpore tab'),
            '.')));
        return;
      }
      el.appendChild(emptyState('No operators in this trace.',
        'Operators are the cpu_op / Operator events of a PyTorch profiler trace (torch.profiler.profile with ProfilerActivity.CPU), or nnscope operator ranges (nnscope.torch with ops=True, or nns_op_begin/end).'));
      return;
    }
    const hasDevice = byName.some((r) => (r.device_total_us || 0) > 0);
    const hasShapes = (doc.by_name_shape || []).some((r) => r.input_shape);
    const hasStacks = ['by_name_stack', 'by_name_shape_stack'].some((k) => (doc[k] || []).some((r) => r.call_stack));
    const p = ctx.params;
    const st = {
      group: p.group === 'shape' && hasShapes ? 'shape' : 'name',
      stack: p.stack === '1' && hasStacks,
      top: +p.top || 10,
    };

    const pieRow = h('div', { class: 'view', style: { gap: '10px' } });
    const tableHost = h('div');
    const groupSel = select([{ value: 'name', label: 'Operator' }, { value: 'shape', label: 'Operator + Input Shape' }], st.group,
      (v) => { st.group = v; ctx.setParams({ group: v === 'name' ? '' : v }); drawTable(); }, { testid: 'op-group' });
    if (!hasShapes) { groupSel.disabled = true; groupSel.title = 'No input shapes: profile with record_shapes=True'; }
    const stackBox = h('input', { type: 'checkbox', testid: 'op-group-stack', checked: st.stack, disabled: !hasStacks });
    stackBox.addEventListener('change', () => { st.stack = stackBox.checked; ctx.setParams({ stack: st.stack ? '1' : '' }); drawTable(); });
    const topSel = select(['5', '10', '20', '30'], String(st.top), (v) => { st.top = +v; ctx.setParams({ top: v === '10' ? '' : v }); drawPies(); }, { testid: 'op-topn' });

    // the device pies and columns are partial: say so first
    const warn = unattributedText(ov?.diagnostics?.attribution);
    if (warn) el.appendChild(banner('warn', h('strong', null, 'Partial device times: '), h('span', { testid: 'unattributed-warning' }, warn)));
    el.appendChild(h('div', { class: 'toolbar' },
      labeled('Group by', groupSel),
      h('label', { class: 'ctl', title: hasStacks ? 'Group rows by call stack as well' : 'No call stacks: profile with with_stack=True' }, stackBox, h('span', null, 'Group by call stack')),
      labeled('Top N in pies', topSel),
      h('span', { class: 'spacer' }),
      h('span', { class: 'muted' }, hasDevice ? 'Times are summed over all steps of the span.' : 'No device time: this trace has no GPU kernels.')));
    el.appendChild(pieRow);
    el.appendChild(tableHost);

    function drawPies() {
      disposeCharts(pieRow);
      pieRow.textContent = '';
      const shown = PIES.filter((pd) => !pd.device || hasDevice);
      let row = null;
      shown.forEach((pd, i) => {
        if (i % 2 === 0) { row = h('div', { class: 'row' }); pieRow.appendChild(row); }
        const box = chartBox(`chart-op-pie-${pd.id}`, 230);
        row.appendChild(panel(pd.title, box));
        makeChart(box, pieOption(byName.map((r) => ({ name: r.name, value: r[pd.key] || 0 })), { topN: st.top, legendWidth: 240 }));
      });
    }

    function drawTable() {
      const key = st.group === 'shape' ? (st.stack ? 'by_name_shape_stack' : 'by_name_shape') : (st.stack ? 'by_name_stack' : 'by_name');
      const rows = doc[key] || [];
      const cols = columns('operators', [
        { key: 'name', cls: 'name' },
        st.group === 'shape' && { key: 'input_shape', cls: 'wrap mono' },
        'calls',
        hasDevice && { key: 'device_self_us', tip: 'Kernel time launched directly by the operator' },
        hasDevice && { key: 'device_total_us', tip: 'Kernel time of the operator and its children' },
        'host_self_us',
        'host_total_us',
        hasDevice && { key: 'tc_eligible', tip: 'Operator can use Tensor Cores' },
        hasDevice && { key: 'tc_self_ratio', tip: 'Share of device self time in kernels using Tensor Cores' },
        hasDevice && 'tc_total_ratio',
        st.stack && { key: 'call_stack', cls: 'stack' },
      ]);
      const t = createTable({
        name: 'operators', columns: cols, rows,
        sortKey: doc.sort_by || (hasDevice ? 'device_self_us' : 'host_self_us'), sortDir: 'desc',
        searchPlaceholder: 'Search operators…',
      });
      tableHost.textContent = '';
      tableHost.appendChild(panel(`Operators (${rows.length})`, t.el));
    }

    drawPies();
    drawTable();
  },
  dispose() {},
};
