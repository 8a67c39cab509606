// Shared pieces of the MindSpore panels (web/views/mindspore.js composes
// them; web/views/steptrace.js uses the summary and the training-trace
// graph): the per-view document cache that turns "no such view" into "no
// data", MindInsight's step summary cards and fp/bp points, the
// training-trace graph (ECharts horizontal stacked bars, one category per
// line of the graph), and small "no data" / errors blocks.
import { h, banner, esc, fmtNum } from '../lib/util.js';
import { makeChart } from '../lib/charts.js';

/**
 * A document getter over ctx.view with one request per document name per
 * render. Resolves to null when the server has no such view (a document
 * that this build does not write yet); other errors reject.
 */
export function docCache(ctx) {
  const docs = new Map();
  return (name) => {
    if (!docs.has(name)) {
      docs.set(name, ctx.view(name).catch((e) => {
        if (e && e.status === 404 && /^no view /.test(e.message || '')) return null;
        throw e;
      }));
    }
    return docs.get(name);
  };
}

/** A titled section of the MindSpore tab. */
export function section(title, testid, ...body) {
  return h('section', { class: 'panel ms-section', testid },
    h('div', { class: 'panel-head' }, h('h3', null, title)),
    h('div', { class: 'panel-body' }, ...body));
}

/** The muted line a panel shows when its document or files are absent. */
export function noData(text, testid = 'ms-nodata') {
  return h('div', { class: 'muted ms-nodata', testid }, text);
}

/** The "errors" of a MindSpore document (damaged files), or null. */
export function docErrors(doc) {
  const errs = (doc && Array.isArray(doc.errors)) ? doc.errors : [];
  if (!errs.length) return null;
  return banner('warn', h('strong', null, 'Files not read: '),
    h('ul', { testid: 'ms-errors' }, errs.map((e) => h('li', { class: 'mono' }, String(e)))));
}

const ms4 = (v) => (typeof v === 'number' && Number.isFinite(v) ? `${fmtNum(v, 4)} ms` : '–');
export const pct2 = (v) => (typeof v === 'number' && Number.isFinite(v) ? `${fmtNum(v, 2)}%` : '–');

/** Cards with a data-testid each: [{id, label, value, sub, hint}] */
export function cards(items, testid) {
  return h('div', { class: 'cards', testid },
    items.map((it) => h('div', { class: 'card', title: it.hint || '', testid: it.id },
      h('div', { class: 'card-label' }, it.label),
      h('div', { class: 'card-value' }, it.value ?? '–'),
      it.sub ? h('div', { class: 'card-sub' }, it.sub) : null)));
}

/**
 * MindInsight's step-trace summary (times in ms, percents of the step as
 * MindInsight rounds them): total, iteration interval, fp+bp, tail, steps.
 */
export function summaryCards(s, testid = 'ms-summary') {
  return cards([
    { id: 'ms-total', label: 'Step time (avg)', value: ms4(s.total_ms), hint: 'MindInsight: total_time' },
    { id: 'ms-iteration-interval', label: 'Iteration interval', value: ms4(s.iteration_interval_ms), sub: pct2(s.iteration_interval_percent) + ' of the step', hint: 'From the end of the previous step to the forward start (waiting for data)' },
    { id: 'ms-fp-bp', label: 'Forward + backward', value: ms4(s.fp_bp_ms), sub: pct2(s.fp_bp_percent) + ' of the step', hint: 'From fp_start to bp_end' },
    { id: 'ms-tail', label: 'Tail', value: ms4(s.tail_ms), sub: pct2(s.tail_percent) + ' of the step', hint: 'From bp_end to the step end: gradient all-reduce, optimizer' },
    { id: 'ms-steps', label: 'Steps', value: s.total_steps === undefined || s.total_steps === null ? '–' : String(s.total_steps) },
  ], testid);
}

/** The forward-start / backward-end operators (step_trace_point_info.json). */
export function pointInfo(p) {
  if (!p) return noData('No fp_start / bp_end points for this device (step_trace_point_info.json).', 'ms-points-none');
  return h('dl', { class: 'kv ms-points', testid: 'ms-points' },
    h('dt', null, 'Forward start (fp_start)'), h('dd', { class: 'mono', testid: 'ms-fp-start' }, p.fp_start ?? '–'),
    h('dt', null, 'Backward end (bp_end)'), h('dd', { class: 'mono', testid: 'ms-bp-end' }, p.bp_end ?? '–'));
}

const SEG_COLOR = {
  iteration_interval: '#b07aa1',
  fp_and_bp: '#4e79a7',
  tail: '#f28e2b',
};
const segColor = (name, line) => {
  if (line === 0) return '#59a14f';
  if (SEG_COLOR[name]) return SEG_COLOR[name];
  if (!name) return '#d9dde3';
  return '#e15759';
};
const SEG_LABEL = { iteration_interval: 'iteration interval', fp_and_bp: 'fp + bp', tail: 'tail' };

/** The y label of graph line i. */
export function graphLineName(line, i) {
  if (i === 0) return 'step';
  if (i === 1) return 'phases';
  const named = (line || []).find((s) => s && s.name);
  return named ? named.name : `line ${i}`;
}

/**
 * ECharts option of MindInsight's training-trace graph: one horizontal bar
 * per line, its segments stacked from the step start (transparent spacers
 * where a line starts later or leaves a hole). Each drawn data item keeps
 * {name, start, duration} in ms.
 */
export function traceGraphOption(graph) {
  const lines = (graph || []).map((l) => (l || []).filter(Boolean).slice().sort((a, b) => a.start_ms - b.start_ms));
  const total = lines.length && lines[0][0] ? lines[0][0].duration_ms : 0;
  const nseg = lines.reduce((m, l) => Math.max(m, l.length), 0);
  const series = [];
  for (let k = 0; k < nseg; k++) {
    const gap = [];
    const seg = [];
    lines.forEach((l, i) => {
      const s = l[k];
      if (!s) { gap.push(0); seg.push(0); return; }
      const end = k > 0 ? l[k - 1].start_ms + l[k - 1].duration_ms : 0;
      gap.push(Math.max(0, s.start_ms - end));
      const wide = total > 0 && s.duration_ms / total > 0.12;
      seg.push({
        value: s.duration_ms, name: s.name, start: s.start_ms, duration: s.duration_ms,
        itemStyle: { color: segColor(s.name, i) },
        label: { show: wide && (!!s.name || i === 0), formatter: () => `${i === 0 ? 'step' : (SEG_LABEL[s.name] || s.name)} ${fmtNum(s.duration_ms, 4)} ms` },
      });
    });
    series.push({ name: `gap${k}`, type: 'bar', stack: 'g', silent: true, tooltip: { show: false }, itemStyle: { color: 'transparent' }, emphasis: { disabled: true }, data: gap });
    series.push({ name: `seg${k}`, type: 'bar', stack: 'g', barMaxWidth: 22, label: { position: 'inside', color: '#fff', fontSize: 10, overflow: 'truncate' }, data: seg });
  }
  return {
    tooltip: {
      trigger: 'item', confine: true,
      formatter: (p) => {
        const d = p.data || {};
        if (typeof d !== 'object') return '';
        return `<b>${esc(d.name || (p.dataIndex === 0 ? 'step' : '(no all-reduce)'))}</b><br>start ${fmtNum(d.start, 4)} ms<br>duration ${fmtNum(d.duration, 4)} ms`;
      },
    },
    grid: { left: 8, right: 40, top: 8, bottom: 28, containLabel: true },
    xAxis: { type: 'value', name: 'ms', min: 0, max: total > 0 ? total : undefined, axisLabel: { showMaxLabel: false, formatter: (v) => fmtNum(v, 1) } },
    yAxis: { type: 'category', inverse: true, data: lines.map((l, i) => graphLineName(l, i)), axisLabel: { fontSize: 11 } },
    series,
  };
}

/** Draws the training-trace graph into box (already in the document). */
export function traceGraph(box, graph) {
  const lines = (graph || []).length;
  box.style.height = Math.max(120, 40 + lines * 26) + 'px';
  box.dataset.lines = String(lines);
  return makeChart(box, traceGraphOption(graph));
}
