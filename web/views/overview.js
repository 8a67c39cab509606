// Overview: step-time breakdown (stacked bars + average pie), step table, GPU summary,
// advice and diagnostics (tb_plugin's Overview page).
import { h, fmtUs, fmtPct, fmtPct100, fmtBytes, fmtInt, linkify, emptyState, banner, panel, statCards, esc , axisUs } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { unattributedText } from '../lib/attribution.js';
import { breakdownRoles, chartBox, makeChart, usAxisTooltip } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { docView } from '../lib/view.js';
import { liveLine } from '../lib/live.js';

function diagnosticsBanner(doc) {
  const d = doc.diagnostics || {};
  const items = [];
  if (d.note) items.push(h('span', { testid: 'input-note' }, String(d.note)));
  if (d.truncated) items.push('The trace file is truncated: the analysis covers what could be read' + (d.bytes_read ? ` (${fmtBytes(d.bytes_read)}).` : '.'));
  if (d.events_skipped > 0) items.push(`${fmtInt(d.events_skipped)} malformed or unsupported events were skipped.`);
  if (d.events_lost > 0) items.push(`${fmtInt(d.events_lost)} events were dropped by the collector (buffers full).`);
  if (d.ranges_closed > 0) items.push(`${fmtInt(d.ranges_closed)} ranges were still open when the trace ended and were closed at its end.`);
  if (d.partial_overlaps > 0) items.push(`${fmtInt(d.partial_overlaps)} operators end after the operator they start in; each is kept under the operator that holds it.`);
  if (d.odd_spots > 0) items.push(h('span', { testid: 'odd-spots' }, `${fmtInt(d.odd_spots)} odd spots in the input were read without losing an event` + (d.first_odd_spot ? `; first: ${d.first_odd_spot}` : '.')));
  if (d.unmatched_runtimes > 0) items.push(`${fmtInt(d.unmatched_runtimes)} runtime calls could not be matched to an operator.`);
  if (doc.steps_dropped > 0) items.push(`${fmtInt(doc.steps_dropped)} incomplete steps were left out.`);
  const a = d.attribution || {};
  const unattributed = unattributedText(a);
  if (unattributed) items.push(h('span', { testid: 'unattributed-warning' }, unattributed));
  const unk = d.unknown_categories || [];
  if (unk.length) items.push(`Events of unknown categories were kept but not analysed: ${unk.map((c) => `${c.name} (${fmtInt(c.count)})`).join(', ')}` +
    (d.unknown_categories_more > 0 ? ` and ${fmtInt(d.unknown_categories_more)} more events of further categories.` : '.'));
  if (!items.length && !d.first_problem) return null;
  return h('div', { class: 'banner banner-warn', testid: 'diagnostics' },
    h('strong', null, 'Input problems'),
    h('ul', null, items.map((t) => h('li', null, t)),
      d.first_problem ? h('li', null, 'First problem: ', h('span', { class: 'mono' }, String(d.first_problem))) : null));
}

// An Ascend NPU of a MindSpore run (overview.json device_kind "NPU"): no
// CUDA figures (name, memory, compute capability, SM, occupancy, tensor cores)
function npuCard(g, vendor) {
  const row = (k, v) => [h('dt', null, k), h('dd', null, v)];
  return h('div', { class: 'gpu-card', testid: `npu-${g.id}` },
    h('h4', null, `NPU ${g.id}${vendor ? ' (' + vendor + ')' : ''}`),
    h('dl', { class: 'kv' },
      row('Busy (device ops and communication)', fmtPct(g.utilization)),
      g.kernel_us != null ? row('Busy time', fmtUs(g.kernel_us)) : null));
}

function gpuCard(g) {
  const row = (k, v) => [h('dt', null, k), h('dd', null, v)];
  return h('div', { class: 'gpu-card', testid: `gpu-${g.id}` },
    h('h4', null, `GPU ${g.id}${g.name ? ': ' + g.name : ''}`),
    h('dl', { class: 'kv' },
      row('Name', g.name ?? 'unknown (no deviceProperties in the trace)'),
      row('Memory', g.memory_bytes != null ? fmtBytes(g.memory_bytes) : '–'),
      row('Compute capability', g.compute_capability ?? '–'),
      row('GPU utilization', fmtPct(g.utilization)),
      row('Est. SM efficiency', fmtPct(g.sm_efficiency)),
      row('Est. achieved occupancy', fmtPct100(g.achieved_occupancy)),
      row('Kernel time using Tensor Cores', fmtPct(g.tensor_core_ratio)),
      g.kernel_us != null ? row('Kernel time', fmtUs(g.kernel_us)) : null));
}

export default docView({
  id: 'overview',
  title: 'Overview',
  doc: 'overview',
  liveNote: false, // its own live line
  async render(el, ctx, doc) {
    const steps = doc.steps || [];
    const avg = doc.average || {};
    const gpus = doc.gpus || [];
    const roles = breakdownRoles();

    // a live run: steps completed, step times, throughput, what the last refresh read
    if (doc.live) el.appendChild(liveLine(doc.live, steps));
    const diag = diagnosticsBanner(doc);
    if (diag) el.appendChild(diag);
    const at = doc.diagnostics?.attribution;
    if (at && at.launches > 0) {
      const parts = [[at.by_external_id, 'by external id'], [at.by_enclosing_op, 'by the enclosing operator'],
        [at.by_thread_root, 'outside operators (external id 0)'], [at.unattributed_launches, 'unattributed']]
        .filter(([n]) => n > 0).map(([n, t]) => `${fmtInt(n)} ${t}`);
      el.appendChild(h('div', { class: 'muted', testid: 'attribution' },
        `Kernel launches → operators: ${fmtInt(at.launches)} launches, ${parts.join(', ')}.`));
    }

    // summary figures
    const cards = [
      { label: 'Run', value: doc.run ?? ctx.run, sub: [doc.worker ?? ctx.worker, doc.span != null ? 'span ' + doc.span : null].filter(Boolean).join(' · ') },
      { label: 'Steps', value: fmtInt(avg.steps ?? steps.length), sub: doc.steps_from === 'mindspore_step_trace' ? 'from the MindSpore step trace' : '' },
      { label: 'Avg step time', value: fmtUs(avg.total_us) },
    ];
    const top = roles.map((r) => ({ ...r, v: avg[r.key] || 0 })).sort((a, b) => b.v - a.v)[0];
    if (top && avg.total_us > 0) cards.push({ label: 'Largest part', value: top.name, sub: `${fmtPct(top.v / avg.total_us)} of the step` });
    const kind = doc.device_kind || 'GPU';
    if (gpus.length) cards.push({ label: `${kind} utilization`, value: fmtPct(gpus.reduce((s, g) => s + (g.utilization || 0), 0) / gpus.length), sub: `${gpus.length} ${kind}${gpus.length > 1 ? 's' : ''}${doc.device_vendor ? ' (' + doc.device_vendor + ')' : ''}` });
    cards.push({ label: 'Events', value: fmtInt(doc.diagnostics?.events ?? doc.live?.events), sub: doc.source ? String(doc.source).split('/').slice(-1)[0] : '' });
    el.appendChild(statCards(cards, 'overview-cards'));

    if (!steps.length) {
      el.appendChild(emptyState('No steps in this trace.',
        'Steps come from ProfilerStep#N ranges (call prof.step() each iteration with torch.profiler.schedule) or nnscope step marks (nns_step()). Without them the whole trace is one step.'));
    }

    // breakdown charts
    const bars = chartBox('chart-step-breakdown', 300);
    const pie = chartBox('chart-step-pie', 300);
    const chartsRow = h('div', { class: 'row' },
      h('div', { class: 'grow2' }, panel('Step time breakdown', bars)),
      panel('Average step time breakdown', pie));
    if (steps.length) el.appendChild(chartsRow);

    // GPU summary + advice
    const side = [];
    if (gpus.length && kind === 'NPU') side.push(panel(`NPU summary${doc.device_vendor ? ' (' + doc.device_vendor + ')' : ''}`, h('div', { class: 'cards' }, gpus.map((g) => npuCard(g, doc.device_vendor)))));
    else if (gpus.length) side.push(panel('GPU summary', h('div', { class: 'cards' }, gpus.map(gpuCard))));
    const recs = doc.recommendations || [];
    side.push(h('section', { class: 'panel', testid: 'advice' },
      h('div', { class: 'panel-head' }, h('h3', null, 'Performance recommendations')),
      h('div', { class: 'panel-body' }, recs.length
        ? h('ul', { class: 'advice' }, recs.map((r) => h('li', { testid: `advice-${r.id}` }, h('span', { class: 'tag' }, r.id), linkify(r.text))))
        : h('div', { class: 'muted' }, 'No recommendation: none of the advice rules fired for this trace.'))));
    el.appendChild(h('div', { class: 'row' }, side));

    // step table
    if (steps.length) {
      const cols = columns('steps', ['name', 'total_us', ...roles.map((r) => r.key)]);
      const avgRow = { name: 'Average', ...avg };
      const t = createTable({ name: 'steps', columns: cols, rows: steps, footer: [avgRow], search: true, searchPlaceholder: 'Filter steps…' });
      el.appendChild(panel('Steps', t.el));
    }

    // charts need to be in the document before init
    if (steps.length) {
      const used = roles.filter((r) => steps.some((s) => (s[r.key] || 0) > 0));
      makeChart(bars, {
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: usAxisTooltip, confine: true },
        legend: { top: 0, type: 'scroll' },
        grid: { left: 64, right: 12, top: 32, bottom: steps.length > 30 ? 50 : 28 },
        xAxis: { type: 'category', name: 'step', nameLocation: 'end', data: steps.map((s) => s.name) },
        yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
        dataZoom: steps.length > 30 ? [{ type: 'slider', height: 16, bottom: 6 }, { type: 'inside' }] : undefined,
        series: used.map((r) => ({
          name: r.name, type: 'bar', stack: 'step', itemStyle: { color: r.color }, barMaxWidth: 48,
          data: steps.map((s) => s[r.key] || 0),
        })),
      });
      makeChart(pie, {
        tooltip: { trigger: 'item', formatter: (p) => `${esc(p.name)}<br>${fmtUs(p.value)} (${p.percent.toFixed(1)}%)` },
        legend: { orient: 'vertical', right: 4, top: 'middle', textStyle: { fontSize: 11 } },
        series: [{
          type: 'pie', radius: ['35%', '70%'], center: ['38%', '50%'],
          label: { show: true, position: 'inside', color: '#fff', formatter: (p) => (p.percent >= 5 ? `${p.percent.toFixed(0)}%` : ''), fontSize: 11 },
          labelLine: { show: false },
          data: roles.filter((r) => (avg[r.key] || 0) > 0).map((r) => ({ name: r.name, value: avg[r.key], itemStyle: { color: r.color } })),
        }],
      });
    }

    // GPU utilization over time (when reported)
    const tl = gpus.filter((g) => (g.gpu_util_timeline || []).length > 1);
    if (tl.length) {
      const box = chartBox('chart-gpu-util', 200);
      el.insertBefore(panel(`${kind} utilization over time`, box), el.lastChild);
      const t0 = doc.trace_start_us || Math.min(...tl.map((g) => g.gpu_util_timeline[0][0]));
      const series = [];
      for (const g of tl) {
        series.push({ name: `${kind} ${g.id} utilization`, type: 'line', showSymbol: false, step: 'end',
          data: g.gpu_util_timeline.map(([t, v]) => [(t - t0) / 1000, v * 100]) });
        if ((g.sm_efficiency_timeline || []).length)
          series.push({ name: `GPU ${g.id} est. SM efficiency`, type: 'line', showSymbol: false, step: 'end', lineStyle: { type: 'dashed' },
            data: g.sm_efficiency_timeline.map(([t, v]) => [(t - t0) / 1000, v == null ? null : v * 100]) });
      }
      makeChart(box, {
        tooltip: { trigger: 'axis', valueFormatter: (v) => (v == null ? '–' : v.toFixed(1) + '%') },
        legend: { top: 0 },
        grid: { left: 48, right: 16, top: 28, bottom: 24 },
        xAxis: { type: 'value', name: 'ms', min: 'dataMin', max: 'dataMax', axisLabel: { formatter: (v) => v.toLocaleString('en-US', { maximumFractionDigits: 1 }) } },
        yAxis: { type: 'value', max: 100, axisLabel: { formatter: '{value}%' } },
        series,
      });
    }
  },
});
