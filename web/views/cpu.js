// CPU Utilization view (MindInsight's CPU utilization page): machine and process
// utilization over time, per step, per thread and per stage; and, when the run
// has MindSpore host_info CSVs (profile_framework), time per framework stage
// and host memory.
import { h, emptyState, panel, banner, statCards, fmtPct100, fmtNum, fmtMs, linkify, esc } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart } from '../lib/charts.js';
import { columns } from '../lib/schema.js';
import { liveNote } from '../lib/live.js';

const pct = (v) => fmtPct100(v);
// user + sys of a thread or stage: the page's own column
const BUSY = { key: 'busy', title: 'User + Sys', fmt: 'pct100', value: (r) => (r.user || 0) + (r.sys || 0) };

export default {
  id: 'cpu',
  title: 'CPU Utilization',
  async render(el, ctx) {
    // a live run has no hostinfo document yet (409): the CPU samples only
    const [doc, host] = await Promise.all([ctx.view('cpu'),
      ctx.live ? ctx.view('hostinfo').catch(() => ({ available: false })) : ctx.view('hostinfo')]);
    if (!doc.available) {
      el.appendChild(emptyState('No CPU utilization samples in this trace.',
        'CPU samples come from nnscope\'s collector: record with nnscope (nnscope run, nnscope.Profiler or the C API) and cpu_sampling_interval_ms > 0 (default 1000; e.g. nnscope.Profiler(cpu_sampling_interval_ms=100)). PyTorch profiler traces carry no CPU samples.'));
      if (host.available) renderHostInfo(el, host);
      return;
    }
    const m = doc.machine || {};
    const p = doc.process || {};
    if (doc.live) el.appendChild(liveNote(doc.live, 'The per-step, thread and stage tables come when the run ends.'));
    el.appendChild(statCards([
      { label: 'Machine user', value: pct(m.user), sub: `${m.samples} samples` },
      { label: 'Machine sys', value: pct(m.sys) },
      { label: 'Machine iowait', value: pct(m.iowait) },
      { label: 'Machine idle', value: pct(m.idle) },
      { label: 'Process user + sys', value: pct((p.user || 0) + (p.sys || 0)), sub: '% of one CPU' },
      { label: 'Running tasks', value: fmtNum(doc.running_avg), sub: `${fmtNum(doc.ctx_switches)} context switches` },
      { label: 'Peak RSS', value: doc.rss_peak_kb ? fmtNum(doc.rss_peak_kb / 1024, 1) + ' MB' : '–' },
    ], 'cpu-cards'));
    if (doc.recommendation) el.appendChild(banner('warn', h('strong', null, 'Advice: '), linkify(doc.recommendation)));
    el.appendChild(h('div', { class: 'muted' }, 'Machine values are percent of all CPUs; process and thread values are percent of one CPU (top\'s convention).'));

    const box = chartBox('chart-cpu', 300);
    el.appendChild(panel('CPU utilization over time', box));
    const ms = doc.machine_series || [];
    const ps = doc.process_series || [];
    const line = (name, data, idx, color, dashed) => ({ name, type: 'line', showSymbol: false, color, lineStyle: dashed ? { type: 'dashed' } : undefined, data: data.map((r) => [r[0], r[idx]]) });
    makeChart(box, {
      tooltip: { trigger: 'axis', confine: true, formatter: (xs) => `<b>${esc(fmtMs(xs[0].value[0], 1))}</b>` + xs.map((x) => `<br>${x.marker}${esc(x.seriesName)}: ${pct(x.value[1])}`).join('') },
      legend: { top: 0 },
      grid: { left: 52, right: 20, top: 30, bottom: 52 },
      xAxis: { type: 'value', name: 'ms', min: 'dataMin', max: 'dataMax', axisLabel: { formatter: (x) => (x / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 }) } },
      yAxis: { type: 'value', axisLabel: { formatter: '{value}%' } },
      dataZoom: [{ type: 'slider', height: 16, bottom: 6, filterMode: 'none' }, { type: 'inside', filterMode: 'none' }],
      series: [
        line('Machine user', ms, 1, '#4e79a7'), line('Machine sys', ms, 2, '#e15759'), line('Machine iowait', ms, 4, '#edc948'),
        line('Process user', ps, 1, '#59a14f', true), line('Process sys', ps, 2, '#b07aa1', true),
      ],
    });

    const steps = (doc.steps || []).slice();
    if (doc.before_steps) steps.unshift({ name: 'before steps', ...doc.before_steps });
    el.appendChild(panel('Per step', createTable({
      name: 'cpu-steps', rows: steps, searchPlaceholder: 'Filter steps…',
      columns: [
        { key: 'name', title: 'Step', fmt: 'text' },
        { key: 'm_samples', title: 'Samples', fmt: 'int', value: (r) => r.machine?.samples },
        { key: 'm_user', title: 'Machine User', fmt: 'pct100', value: (r) => (r.machine?.samples ? r.machine?.user : null) },
        { key: 'm_sys', title: 'Machine Sys', fmt: 'pct100', value: (r) => (r.machine?.samples ? r.machine?.sys : null) },
        { key: 'm_iowait', title: 'Machine IOWait', fmt: 'pct100', value: (r) => (r.machine?.samples ? r.machine?.iowait : null) },
        { key: 'm_idle', title: 'Machine Idle', fmt: 'pct100', value: (r) => (r.machine?.samples ? r.machine?.idle : null) },
        { key: 'p_user', title: 'Process User', fmt: 'pct100', value: (r) => (r.process?.samples ? r.process?.user : null) },
        { key: 'p_sys', title: 'Process Sys', fmt: 'pct100', value: (r) => (r.process?.samples ? r.process?.sys : null) },
      ],
    }).el));

    el.appendChild(h('div', { class: 'row' },
      panel('Threads', createTable({
        name: 'cpu-threads', rows: doc.threads || [], sortKey: 'busy', sortDir: 'desc', searchPlaceholder: 'Search threads…',
        columns: columns('cpu_threads', [{ key: 'tid', fmt: 'text' }, 'name', 'samples', 'user', 'sys', BUSY]),
      }).el),
      panel('Stages (threads grouped by name)', createTable({
        name: 'cpu-stages', rows: doc.stages || [], sortKey: 'busy', sortDir: 'desc', searchPlaceholder: 'Search stages…',
        columns: columns('cpu_stages', ['name', 'threads', 'user', 'sys', BUSY, 'per_thread', { key: 'advice', cls: 'wrap' }]),
      }).el)));
    if (host.available) renderHostInfo(el, host);
  },
  dispose() {},
};

/* MindSpore host_info (profile_framework): time per framework stage and the
 * host memory (VmRSS) over the run. */
function renderHostInfo(el, host) {
  const pts = host.memory?.points || [];
  const rows = host.events || [];
  el.appendChild(h('h3', { class: 'section' }, 'Framework host info (host_info CSV)'));
  el.appendChild(statCards([
    { label: 'Records', value: fmtNum(host.records), sub: `${fmtNum(host.instants)} instants` },
    { label: 'Stages', value: fmtNum(rows.length) },
    { label: 'Unmatched start / end', value: `${fmtNum(host.unmatched_starts)} / ${fmtNum(host.unmatched_ends)}` },
    { label: 'Peak host memory', value: host.memory?.peak_kb ? fmtNum(host.memory.peak_kb / 1024, 1) + ' MB' : '–' },
  ], 'hostinfo-cards'));
  el.appendChild(panel('Time per framework stage', createTable({
    name: 'hostinfo', rows, sortKey: 'total_us', sortDir: 'desc', searchPlaceholder: 'Search stages…',
    columns: columns('host_events', ['module', 'event', 'stage', 'level', 'count', 'total_us', 'avg_us', 'min_us', 'max_us']),
  }).el));
  if (!pts.length) return;
  const box = chartBox('chart-hostinfo-memory', 220);
  el.appendChild(panel(host.memory.aligned ? 'Host memory (VmRSS) since the trace start' : 'Host memory (VmRSS), CSV time stamps', box));
  makeChart(box, {
    tooltip: { trigger: 'axis', confine: true, formatter: (xs) => `<b>${esc(fmtMs(xs[0].value[0], 1))}</b><br>${fmtNum(xs[0].value[1] / 1024, 1)} MB` },
    grid: { left: 70, right: 20, top: 20, bottom: 30 },
    xAxis: { type: 'value', name: 'ms', min: 'dataMin', axisLabel: { formatter: (v) => fmtNum(v / 1000, 1) } },
    yAxis: { type: 'value', name: 'MB', axisLabel: { formatter: (v) => fmtNum(v / 1024, 0) } },
    series: [{ name: 'VmRSS', type: 'line', step: 'end', showSymbol: false, areaStyle: { opacity: 0.15 }, data: pts }],
  });
}
