// Data Pipeline view (MindInsight's MindData page): queue usage over time, empty/full
// ratios, verdict and findings, per-step data waits.
import { h, emptyState, panel, banner, statCards, fmtPct, fmtUs, fmtNum, fmtMs, linkify, esc , axisUs } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, palette, usAxisTooltip } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { docView } from '../lib/view.js';

const VERDICT = {
  data_process: { cls: 'warn', text: 'Data processing is the bottleneck' },
  normal: { cls: 'ok', text: 'Data pipeline keeps up' },
  no_data: { cls: 'none', text: 'No queue samples' },
};

export default docView({
  id: 'datapipe',
  title: 'Data Pipeline',
  doc: 'datapipe',
  liveText: 'Queue samples so far; the verdict, findings and per-step waits come when the run ends.',
  async render(el, ctx, doc) {
    const queues = doc.queues || [];
    const steps = doc.steps || [];
    const v = VERDICT[doc.verdict] || (doc.live && doc.verdict == null
      ? { cls: 'none', text: 'Judged when the run ends' }
      : { cls: 'none', text: String(doc.verdict ?? 'unknown') });

    el.appendChild(h('div', { class: 'toolbar' },
      h('span', null, 'Verdict: '), h('span', { class: `badge ${v.cls}`, testid: 'datapipe-verdict' }, v.text),
      doc.consumer_queue ? h('span', { class: 'muted' }, `consumer queue: ${doc.consumer_queue}`) : null));

    el.appendChild(statCards([
      { label: 'Consumer queue empty', value: queues.length ? fmtPct(doc.empty_ratio) : '–', sub: queues.length ? `${doc.empty_count} of ${doc.total_count} samples (threshold ${fmtPct(doc.empty_warning_threshold, 0)})` : '', cls: doc.verdict === 'data_process' ? 'warn' : '' },
      { label: 'Consumer queue full', value: queues.length ? fmtPct(doc.total_count ? doc.full_count / doc.total_count : 0) : '–', sub: queues.length ? `${doc.full_count} samples` : '' },
      { label: 'Time waiting for data', value: fmtPct(doc.wait_ratio), sub: doc.has_dataloader ? 'DataLoader time / step time' : 'empty-queue time / step time' },
      { label: 'Queues', value: String(queues.length) },
    ], 'datapipe-cards'));

    if (doc.recommendation) el.appendChild(banner('warn', h('strong', null, 'Advice: '), linkify(doc.recommendation)));
    if ((doc.findings || []).length) {
      el.appendChild(panel('Findings', h('ul', { class: 'advice', testid: 'datapipe-findings' },
        doc.findings.map((f) => h('li', null, h('span', { class: 'tag' }, f.kind), f.queue ? h('b', null, f.queue + ': ') : null, linkify(f.text))))));
    }

    if (!queues.length) {
      el.appendChild(emptyState('No data queues in this trace.',
        'No data queues: nnscope collects them with nns_queue() (C API), nnscope.queue(name, size, capacity) or nnscope.torch\'s DataLoader hooks (dataloader=True). PyTorch profiler traces carry no queue samples; the per-step DataLoader waits below still come from the DataLoader ranges.'));
    } else {
      const box = chartBox('chart-queue', 300);
      el.appendChild(panel('Queue usage over time', box, h('span', { class: 'muted' }, 'mean queue size per bucket (band: min..max)')));
      el.appendChild(panel('Queues', createTable({
        name: 'queues', rows: queues, sortKey: 'samples', sortDir: 'desc',
        columns: columns('datapipe_queues', [
          { key: 'name', render: (r) => h('span', null, r.name, r.consumer ? h('span', { class: 'badge none', style: { marginLeft: '6px' } }, 'consumer') : null) },
          'samples', 'avg_size', 'max_size', 'capacity', 'utilization', 'empty_count', 'empty_ratio', 'full_count', 'full_ratio',
        ]),
      }).el));
      const series = [];
      queues.forEach((q, i) => {
        const color = palette[i % palette.length];
        const s = q.series || [];
        series.push({ name: q.name, type: 'line', showSymbol: false, step: 'end', color, data: s.map((p) => [p[0], p[1]]),
          markLine: q.capacity != null ? { symbol: 'none', silent: true, lineStyle: { type: 'dashed', color }, label: { formatter: `capacity ${q.capacity}`, fontSize: 10 }, data: [{ yAxis: q.capacity }] } : undefined });
        if (queues.length <= 3 && s.some((p) => p[2] !== p[3])) {
          series.push({ name: q.name + ' min', type: 'line', showSymbol: false, step: 'end', stack: 'band' + i, lineStyle: { opacity: 0 }, data: s.map((p) => [p[0], p[2]]), tooltip: { show: false }, legendHoverLink: false, color });
          series.push({ name: q.name + ' max', type: 'line', showSymbol: false, step: 'end', stack: 'band' + i, lineStyle: { opacity: 0 }, areaStyle: { opacity: 0.12, color }, data: s.map((p) => [p[0], p[3] - p[2]]), tooltip: { show: false }, color });
        }
      });
      makeChart(box, {
        tooltip: { trigger: 'axis', confine: true, formatter: (ps) => `<b>${esc(fmtMs(ps[0].value[0], 3))}</b>` + ps.filter((p) => !/ (min|max)$/.test(p.seriesName)).map((p) => `<br>${p.marker}${esc(p.seriesName)}: ${fmtNum(p.value[1])}`).join('') },
        legend: { top: 0, data: queues.map((q) => q.name) },
        grid: { left: 48, right: 70, top: 30, bottom: 52 },
        xAxis: { type: 'value', name: 'ms', min: 'dataMin', max: 'dataMax', axisLabel: { formatter: (x) => (x / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 }) } },
        yAxis: { type: 'value', name: 'size', minInterval: 1 },
        dataZoom: [{ type: 'slider', height: 16, bottom: 6, filterMode: 'none' }, { type: 'inside', filterMode: 'none' }],
        series,
      });
    }

    if (steps.length) {
      const box2 = chartBox('chart-datapipe-waits', 220);
      el.appendChild(panel('Waiting for data per step', box2));
      el.appendChild(panel('Steps', createTable({
        name: 'datapipe-steps', rows: steps, searchPlaceholder: 'Filter steps…',
        columns: columns('datapipe_steps', ['name', 'duration_us', 'dataloader_us', 'queue_empty_us', 'wait_us', 'wait_ratio', 'samples', 'empty_samples']),
      }).el));
      makeChart(box2, {
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: usAxisTooltip, confine: true },
        legend: { top: 0 },
        grid: { left: 64, right: 16, top: 28, bottom: steps.length > 30 ? 50 : 24 },
        xAxis: { type: 'category', data: steps.map((s) => s.name) },
        yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
        dataZoom: steps.length > 30 ? [{ type: 'slider', height: 16, bottom: 6 }, { type: 'inside' }] : undefined,
        series: [
          { name: 'Wait for data', type: 'bar', stack: 's', color: '#b07aa1', data: steps.map((s) => s.wait_us || 0) },
          { name: 'Rest of the step', type: 'bar', stack: 's', color: '#c9d3e0', data: steps.map((s) => Math.max(0, (s.duration_us || 0) - (s.wait_us || 0))) },
        ],
      });
    }
  },
});
