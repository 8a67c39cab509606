// ECharts helpers (the global `echarts` comes from /static/vendor/echarts.min.js,
// loaded by loadCharts()).
import { h, esc, fmtUs, shorten } from './util.js';
import { roles } from './schema.js';
import { keep, kept } from './keep.js';

const live = new Set();

export const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac', '#86bcb6', '#d37295'];

/** The step-breakdown roles in tb_plugin's priority order, with their colours: the keys and
 * names come from the server's role table (/api/schema, web/lib/schema.js). */
const ROLE_COLORS = {
  kernel_us: '#4e79a7', memcpy_us: '#f28e2b', memset_us: '#edc948', communication_us: '#e15759',
  runtime_us: '#76b7b2', dataloader_us: '#b07aa1', cpu_exec_us: '#59a14f', other_us: '#bab0ac',
};
export function breakdownRoles() {
  return roles().map((r) => ({ ...r, color: ROLE_COLORS[r.key] || '#bab0ac' }));
}

const loading = { common: null, full: null };

function loadScript(src) {
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = src;
    s.async = true;
    s.onload = () => resolve();
    s.onerror = () => reject(new Error(`cannot load the chart library (${src})`));
    document.head.appendChild(s);
  });
}

/** Loads the chart library once, asynchronously, so that it never blocks
 * the first paint: ECharts' common build (line, bar, pie, data zoom: 0.7 MB,
 * a third faster to start than the full build on a slow machine), or with
 * full = true the full build (custom series: the module flame graph), which
 * then replaces it for every chart. */
export function loadCharts(full = false) {
  const kind = full ? 'full' : 'common';
  if (loading.full) return loading.full;
  if (!loading[kind]) {
    loading[kind] = loadScript(full ? '/static/vendor/echarts.min.js' : '/static/vendor/echarts.common.min.js')
      .catch((e) => { loading[kind] = null; throw e; });
  }
  return loading[kind];
}

/** A chart container with a stable test id. */
export function chartBox(testid, height = 300, cls = '') {
  return h('div', { class: 'chart ' + cls, testid, style: { height: height + 'px' } });
}

/** The width (px) of a legend's label text in a chart `chartW` px wide whose
 * legend takes `frac` of it: the legend's share less the symbol, the gap and
 * the scroll arrows; at least 60 px, at most `max`. */
export function legendTextWidth(chartW, frac, max) {
  return Math.round(Math.max(60, Math.min(max, chartW * frac - 44)));
}

/** The zoom of chart c's data zooms and its legend selection, kept (lib/keep.js) under the test
 * id of its box while a live run is shown, given back to the chart of the next render that has
 * the same box: by value, or, for a zoom that reaches the end, by percent (it keeps showing the
 * newest data). The zoom is also dispatched (after the render) so that the views that follow
 * it (the Memory view's tables) do. */
function keepChart(c, el, option) {
  const id = el.getAttribute('data-testid');
  if (!id) return;
  const key = 'chart:' + id;
  const k = kept(key);
  const zooms = [].concat(option.dataZoom || []).length;
  if (k && k.legend) c.setOption({ legend: { selected: k.legend } });
  if (k && k.zoom && zooms === k.zoom.length) {
    const z = k.zoom.map((d) => (d.end >= 99.999 || d.startValue == null
      ? { start: d.start, end: d.end } : { startValue: d.startValue, endValue: d.endValue }));
    c.setOption({ dataZoom: z });
    setTimeout(() => {
      if (!c.isDisposed()) z.forEach((d, i) => c.dispatchAction({ type: 'dataZoom', dataZoomIndex: i, ...d }));
    }, 0);
  }
  if (zooms) {
    c.on('datazoom', () => {
      const dz = c.getOption().dataZoom || [];
      keep(key, { zoom: dz.map((d) => ({ start: d.start, end: d.end, startValue: d.startValue, endValue: d.endValue })) });
    });
  }
  c.on('legendselectchanged', (e) => keep(key, { legend: e.selected }));
}

/** Initialise a chart on a container (must be in the document) and register it for resize/dispose.
 * An option with `legendFit: {frac, max}` (pieOption's) gets its legend labels truncated to the
 * width that its share of the container leaves, again on every resize. While a live run is shown,
 * its zoom and legend selection carry over to the next render (keepChart). */
export function makeChart(el, option) {
  if (typeof echarts === 'undefined') {
    el.textContent = 'Chart library not loaded.';
    return null;
  }
  const fit = option.legendFit;
  if (fit) {
    option = { ...option };
    delete option.legendFit;
    option.legend = { ...option.legend, textStyle: { ...option.legend?.textStyle, width: legendTextWidth(el.clientWidth, fit.frac, fit.max) } };
  }
  const c = echarts.init(el, null, { renderer: 'canvas' });
  c.setOption(Object.assign({ animation: false, textStyle: { fontFamily: 'inherit' } }, option));
  keepChart(c, el, option);
  live.add(c);
  let lastW = el.clientWidth;
  const refit = () => {
    if (!fit || el.clientWidth === lastW) return;
    lastW = el.clientWidth;
    c.setOption({ legend: { textStyle: { width: legendTextWidth(lastW, fit.frac, fit.max) } } });
  };
  if (typeof ResizeObserver !== 'undefined') {
    // the observer's first call comes with the size the chart was drawn
    // at: no second drawing of it (20-40 ms on the Overview)
    const ro = new ResizeObserver(() => {
      if (c.isDisposed() || (el.clientWidth === c.getWidth() && el.clientHeight === c.getHeight())) return;
      refit();
      c.resize();
    });
    ro.observe(el);
    c.__ro = ro;
  }
  return c;
}

/** Dispose every chart inside `root` (or all charts). */
export function disposeCharts(root) {
  for (const c of [...live]) {
    const dom = c.getDom && c.getDom();
    if (!root || !dom || root.contains(dom) || !document.contains(dom)) {
      if (c.__ro) c.__ro.disconnect();
      if (!c.isDisposed()) c.dispose();
      live.delete(c);
    }
  }
}

/** Tooltip formatter for axis tooltips with µs values. */
export function usAxisTooltip(params) {
  if (!Array.isArray(params)) params = [params];
  if (!params.length) return '';
  let total = 0;
  let out = `<b>${esc(params[0].axisValueLabel ?? params[0].name)}</b>`;
  for (const p of params) {
    const v = Array.isArray(p.value) ? p.value[1] : p.value;
    if (typeof v === 'number') total += v;
    out += `<br>${p.marker}${esc(p.seriesName)}: ${fmtUs(v)}`;
  }
  if (params.length > 1) out += `<br><b>Total: ${fmtUs(total)}</b>`;
  return out;
}

/** Pie of [{name, value}] with µs values; top N plus "Other". The legend (right 42 %) scrolls when
 * its entries do not fit, truncates long names with an ellipsis to the width it has (at most
 * legendWidth px; makeChart fits it to the container) and shows the full name as its tooltip. */
export function pieOption(items, { title, topN = 10, fmt = fmtUs, colors, legendWidth = 220 } = {}) {
  const sorted = items.filter((x) => x.value > 0).sort((a, b) => b.value - a.value);
  const top = sorted.slice(0, topN);
  const rest = sorted.slice(topN).reduce((s, x) => s + x.value, 0);
  if (rest > 0) top.push({ name: 'Other', value: rest, itemStyle: { color: '#cfcfcf' } });
  return {
    color: colors || palette,
    title: title ? { text: title, left: 'center', top: 0, textStyle: { fontSize: 13, fontWeight: 600 } } : undefined,
    tooltip: {
      trigger: 'item', confine: true,
      formatter: (p) => `${esc(p.name)}<br>${fmt(p.value)} (${p.percent.toFixed(1)}%)`,
    },
    legend: {
      type: 'scroll', orient: 'vertical', right: 0, top: title ? 24 : 4, bottom: 0, width: '42%', itemGap: 5, itemHeight: 10, itemWidth: 16,
      textStyle: { fontSize: 11, width: legendWidth, overflow: 'truncate', ellipsis: '…' },
      tooltip: { show: true, confine: true, formatter: (p) => esc(p.name) },
    },
    legendFit: { frac: 0.42, max: legendWidth },
    series: [{
      type: 'pie', radius: ['0%', '68%'], center: ['28%', title ? '56%' : '50%'],
      label: { show: false }, labelLine: { show: false },
      data: top,
    }],
  };
}
