// The Cluster view of a run while its ranks are written: /api/cluster's live document
// ({"live": true, "verdict", "alerts"}, docs/SERVER.md "Live runs") drawn as a header line
// (ranks, the common window of steps), the slow-rank verdict, the slow-rank banner, a bar of each
// rank's mean step time over the window (the slow rank outlined, the ranks' mean and the rule's
// threshold as lines), the per-rank table and the alert hits, newest first. Unknown numbers (null)
// show as '–'; a missing key never throws. The shell renders it again every second while the run
// has a live worker (web/app.js), the table keeping its sort (lib/keep.js).
//
// testids: cluster-live, cluster-live-verdict, cluster-slow-rank, cluster-slow-host,
// chart-cluster-live, table-cluster-live-ranks (+ the table's th-/search- hooks), cluster-alerts,
// cluster-alert-hit (one per hit shown), cluster-alert-rules.
import { h, panel, banner, fmtUs, fmtNum, fmtInt, esc } from './util.js';
import { createTable } from './table.js';
import { chartBox, makeChart } from './charts.js';
import { firedCount, newestFirst, hitText, hitTime } from './live_alerts.js';
import { columns } from './schema.js';

export const ALERT_HITS_SHOWN = 20;

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const ms = (v) => (isNum(v) ? fmtUs(v * 1e3) : '–');
const signedPct = (v) => (isNum(v) ? `${v > 0 ? '+' : ''}${fmtNum(v, 2)}%` : '–');
const arr = (v) => (Array.isArray(v) ? v : []);

// the rank table: titles from /api/schema (live_ranks, src/output/schema_live.c); the page's
// number formats and tips here
const COLUMNS = () => columns('live_ranks', [
  { key: 'rank', fmt: 'int' },
  'worker',
  'host',
  { key: 'steps', fmt: 'int', tip: 'steps completed' },
  { key: 'last_step', fmt: 'int', tip: 'the number of its last completed step' },
  { key: 'last_ms', fmt: (v) => fmtNum(v, 3), numeric: true, tip: 'the duration of its last completed step' },
  { key: 'mean_ms', fmt: (v) => fmtNum(v, 3), numeric: true, tip: 'its mean step time over the whole run so far' },
  { key: 'window_ms', fmt: (v) => fmtNum(v, 3), numeric: true, tip: 'its mean step time over the common window of steps (what the verdict compares)' },
  { key: 'vs_mean_pct', fmt: signedPct, numeric: true, tip: 'its window time against the mean of every rank\'s window time' },
  { key: 'behind', fmt: 'int', tip: 'steps behind the rank furthest ahead' },
  { key: 'ended', fmt: 'bool', tip: 'its trace is closed (END chunk)' },
]);

function header(doc, v, ranks) {
  const n = ranks.length;
  const lo = v.window_lo;
  const hi = v.window_hi;
  const window = isNum(v.window) && v.window > 0 && isNum(lo) && isNum(hi)
    ? `window of steps ${lo}..${hi}` : 'no window of steps yet';
  const ended = ranks.filter((r) => r.ended === true).length;
  return h('div', { class: 'live-line', testid: 'cluster-live', dataset: { ranks: String(n), lo: isNum(lo) ? String(lo) : '', hi: isNum(hi) ? String(hi) : '' } },
    h('span', null, h('strong', null, 'Live: '), `${n} rank${n === 1 ? '' : 's'}, ${window}`),
    h('span', { class: 'muted' }, `the last ${isNum(doc.last) ? doc.last : 20} steps every rank has completed`),
    isNum(v.behind_max) && v.behind_max > 0 ? h('span', null, 'furthest behind: ', h('b', null, fmtInt(v.behind_max)), ` step${v.behind_max === 1 ? '' : 's'}`) : null,
    ended ? h('span', null, `${ended} ended`) : null,
    h('span', { class: 'muted' }, 'refreshed every second while the run is written'));
}

function slowBanner(v) {
  const s = v.slow;
  if (!s || typeof s !== 'object') return null;
  const parts = [];
  if (isNum(s.pct)) parts.push(`${fmtNum(s.pct, 2)}% above the ranks' mean step time`);
  if (isNum(v.window_lo) && isNum(v.window_hi)) parts.push(`over steps ${v.window_lo}..${v.window_hi}`);
  const more = isNum(s.excess_ms) ? `, ${ms(s.excess_ms)} per step more than the other ranks` : '';
  return banner('warn',
    h('strong', { testid: 'cluster-slow-rank' }, `Slow rank: ${s.rank}`),
    s.host ? h('span', { testid: 'cluster-slow-host' }, ` on host ${s.host}`) : null,
    s.worker ? ` (${s.worker})` : null,
    parts.length || more ? ` — ${parts.join(' ')}${more}.` : '');
}

function chartOption(rows, slowRank, thresholdPct) {
  const vals = rows.map((r) => (isNum(r.window_ms) ? r.window_ms : null));
  const known = vals.filter(isNum);
  const mean = known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
  const lines = [];
  if (isNum(mean)) {
    lines.push({ yAxis: mean, name: 'mean', label: { formatter: `mean ${ms(mean)}` } });
    if (isNum(thresholdPct)) {
      const t = mean * (1 + thresholdPct / 100);
      lines.push({ yAxis: t, name: 'threshold', lineStyle: { color: '#e15759' }, label: { formatter: `+${fmtNum(thresholdPct)}% ${ms(t)}` } });
    }
  }
  const names = rows.map((r) => `rank ${r.rank}`);
  return {
    tooltip: {
      trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true,
      formatter: (ps) => {
        const p = Array.isArray(ps) ? ps[0] : ps;
        const r = rows[p?.dataIndex] || {};
        return `<b>${esc(p?.name)}</b>${r.worker ? ' · ' + esc(r.worker) : ''}<br>window ${esc(ms(r.window_ms))} (${esc(signedPct(r.vs_mean_pct))})` +
          `<br>whole run ${esc(ms(r.mean_ms))}, last ${esc(ms(r.last_ms))}`;
      },
    },
    grid: { left: 64, right: 96, top: 20, bottom: 40 },
    xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: names.length > 8 ? 30 : 0 } },
    yAxis: { type: 'value', name: 'ms', axisLabel: { formatter: (x) => fmtNum(x, 2) } },
    series: [{
      name: 'Window mean step time', type: 'bar', barMaxWidth: 48, itemStyle: { color: '#4e79a7' },
      data: rows.map((r, i) => ({ value: vals[i], itemStyle: slowRank !== null && r.rank === slowRank ? { borderColor: '#e15759', borderWidth: 2, color: '#f4a3a5' } : undefined })),
      markLine: lines.length ? { symbol: 'none', silent: true, lineStyle: { type: 'dashed', color: '#6b7280' }, label: { position: 'end' }, data: lines } : undefined,
    }],
  };
}

function alertsPanel(alerts) {
  const rules = arr(alerts?.rules);
  const hits = newestFirst(alerts);
  const fired = firedCount(alerts);
  const shown = hits.slice(0, ALERT_HITS_SHOWN);
  const rulesLine = h('div', { class: 'muted', testid: 'cluster-alert-rules' }, rules.length
    ? ['Rules: ', rules.map((r, i) => [i ? ', ' : '', h('code', null, r?.text || '?')])]
    : 'No alert rules: give them to the server (nnscope serve --alert \'rank_pct > 20\', docs/CLI.md).');
  const body = h('div', { testid: 'cluster-alerts', dataset: { fired: String(fired), shown: String(shown.length) } }, rulesLine,
    shown.length
      ? h('ul', { class: 'alert-hits' }, shown.map((x) => h('li', { testid: 'cluster-alert-hit', class: 'alert-hit' },
        hitTime(x) ? h('span', { class: 'muted' }, hitTime(x) + ' ') : null, hitText(x))))
      : rules.length ? h('div', { class: 'muted' }, 'No alert has fired.') : null,
    fired > shown.length ? h('div', { class: 'muted' }, `${fmtInt(fired)} fired in all; the newest ${shown.length} are listed.`) : null);
  return panel(`Alerts${fired ? ` (${fmtInt(fired)})` : ''}`, body);
}

/** Draws the live cluster document doc into el. ctx: the view's context (run, span). */
export function renderLiveCluster(el, ctx, doc) {
  const v = doc.verdict && typeof doc.verdict === 'object' ? doc.verdict : {};
  const ranks = arr(v.ranks).filter((r) => r && typeof r === 'object');
  const slowRank = v.slow && isNum(v.slow.rank) ? v.slow.rank : null;
  el.appendChild(header(doc, v, ranks));
  el.appendChild(h('div', { class: 'verdict', testid: 'cluster-live-verdict' }, v.verdict || 'No slow-rank verdict yet.'));
  const sb = slowBanner(v);
  if (sb) el.appendChild(sb);

  const chart = chartBox('chart-cluster-live', 300);
  const lo = v.window_lo;
  const hi = v.window_hi;
  el.appendChild(panel(isNum(lo) && isNum(hi) ? `Mean step time per rank, steps ${lo}..${hi}` : 'Mean step time per rank (no common window yet)', chart));
  const openRank = (row) => {
    if (!row?.worker) return;
    const q = new URLSearchParams({ view: 'overview', run: ctx.run, worker: row.worker });
    if (ctx.span) q.set('span', ctx.span);
    location.hash = '#' + q.toString();
  };
  const table = createTable({
    name: 'cluster-live-ranks', rows: ranks, sortKey: 'rank', sortDir: 'asc', search: true,
    searchPlaceholder: 'Search ranks / workers / hosts…', onRowClick: openRank,
    rowClass: (r) => (slowRank !== null && r.rank === slowRank ? 'hl' : ''),
    columns: COLUMNS(),
  });
  el.appendChild(panel('Ranks', table.el));
  el.appendChild(alertsPanel(doc.alerts));
  if (ranks.length) {
    const c = makeChart(chart, chartOption(ranks, slowRank, isNum(v.threshold_pct) ? v.threshold_pct : null));
    if (c) c.on('click', (e) => openRank(ranks[e.dataIndex]));
  } else {
    chart.textContent = 'No rank has a step yet.';
  }
}
