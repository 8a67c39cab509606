// Cluster view (MindInsight's cluster step trace + parallel proposer, docs/CLUSTER.md): one row per
// rank (iteration interval, FP+BP, tail, total; the average step or one step), a stacked bar per
// rank, the proposals with the slow rank / host / link called out, and a click on a rank opens its
// worker. It shows the cluster of the selected run and of no other: /api/cluster?run&span when the
// run has several workers (one rank each), or the MindSpore cluster job that the run itself is (the
// run's name is listed by /api/cluster_jobs). A run with one worker and no cluster files gets an
// empty state saying so, with links that select the runs of the logdir that have cluster data. The
// old hash parameter `job` selects that job as the run. The rank and link tables' titles (and the
// chart's series names) come from /api/schema (cluster_ranks, cluster_links).
//
// testids: cluster-source, cluster-step-select, cluster-summary, cluster-proposals,
// cluster-proposal-<id>, cluster-slow-rank, cluster-slow-host, cluster-slow-link, chart-cluster,
// table-cluster-ranks (+ the table's th-/search-/pager- hooks), cluster-links (table-cluster-links),
// cluster-clock, cluster-other-runs (links cluster-run-<name> in the empty state).
//
// While a worker of the run is written, /api/cluster answers the live document ({"live": true}):
// it is drawn by lib/live_cluster.js (the verdict over the last steps every rank has completed,
// the per-rank table, the alert hits; its testids are listed there), and the shell renders the
// view again every second until the run ends, when this view draws the finished cluster.json.
import { h, emptyState, panel, banner, fmtUs, axisUs, select, labeled, statCards } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { chartBox, makeChart, usAxisTooltip } from '../lib/charts.js';
import { columns, named } from '../lib/schema.js';
import { renderLiveCluster } from '../lib/live_cluster.js';

// the stacked parts of a rank's step, named by the rank table's columns
const PARTS = [
  { key: 'iteration_interval_us', color: '#f28e2b' },
  { key: 'fp_bp_us', color: '#4e79a7' },
  { key: 'tail_us', color: '#76b7b2' },
];

/** Rows of the rank table for one step ('' = the average step). */
export function rankRows(doc, step) {
  return (doc.ranks || []).map((r) => {
    const base = { rank: r.rank, host: r.host || '', worker: r.worker || '', stage: r.stage,
      communication_us: r.communication_us, wait_us: r.wait_us };
    if (!step) {
      return { ...base, iteration_interval_us: r.iteration_interval_us, fp_bp_us: r.fp_bp_us,
        tail_us: r.tail_us, total_us: r.total_us };
    }
    const s = (r.steps || []).find((x) => x.step === step);
    return { ...base, iteration_interval_us: s?.iteration_interval_us ?? null, fp_bp_us: s?.fp_bp_us ?? null,
      tail_us: s?.tail_us ?? null, total_us: s?.total_us ?? null };
  });
}

/** The step names present in any rank, in first-seen order. */
export function stepNames(doc) {
  const seen = new Set();
  for (const r of doc.ranks || []) for (const s of r.steps || []) seen.add(s.step);
  return [...seen];
}

function proposalBox(p) {
  const where = [];
  if (p.rank !== undefined) where.push(`rank ${p.rank}`);
  if (p.host) where.push(`host ${p.host}`);
  if (p.stage !== undefined) where.push(`stage ${p.stage}`);
  if (p.src_rank !== undefined) where.push(`link ${p.src_rank} → ${p.dst_rank} (${p.link_type})`);
  return h('li', { testid: `cluster-proposal-${p.id}`, class: 'proposal' },
    h('strong', null, p.id.replace(/_/g, ' ')), where.length ? ` [${where.join(', ')}]: ` : ': ', p.text);
}

export default {
  id: 'cluster',
  title: 'Cluster',
  async render(el, ctx) {
    const runs = ctx.runs?.runs || [];
    const run = runs.find((r) => r.name === ctx.run);
    const nworkers = run?.workers?.length || 0;
    if (ctx.params.job && ctx.params.job !== ctx.run && runs.some((r) => r.name === ctx.params.job)) {
      // an old link to a job: the job is a run, select it
      ctx.select({ run: ctx.params.job, worker: '', span: '' }, {});
      return;
    }
    const jobs = (await ctx.api('/api/cluster_jobs')).jobs || [];
    if (!ctx.alive()) return;
    const job = jobs.some((j) => j.name === ctx.run) ? ctx.run : '';
    if (!job && nworkers < 2) {
      el.appendChild(emptyState(`Run "${ctx.run}" has no cluster.`,
        `It has ${nworkers} worker${nworkers === 1 ? '' : 's'} (one rank) and no MindSpore cluster files, so there is no other rank to compare it with. ` +
        'Profile every rank into one run directory (nnscope reads RANK/WORLD_SIZE, OMPI_COMM_WORLD_*, PMI_*, SLURM_PROCID), ' +
        'or collect a MindSpore cluster job (every rank\'s step_trace_raw_<rank>_detail_time.csv in one profiler/ directory).'));
      const others = [...new Set([...runs.filter((r) => (r.workers?.length || 0) >= 2).map((r) => r.name),
        ...jobs.map((j) => j.name)])].filter((n) => n !== ctx.run && runs.some((r) => r.name === n)).sort();
      if (others.length) {
        el.appendChild(h('div', { class: 'muted', testid: 'cluster-other-runs' }, 'Runs of this logdir with several ranks: ',
          others.map((n, i) => [i ? ', ' : '', h('a', { href: '#', testid: `cluster-run-${n}`,
            onclick: (e) => { e.preventDefault(); ctx.select({ run: n, worker: '', span: '' }, {}); } }, n)])));
      }
      return;
    }
    const doc = await ctx.api('/api/cluster', job ? { run: job } : { run: ctx.run, span: ctx.span });
    if (!ctx.alive()) return;
    if (doc && doc.live === true) {
      renderLiveCluster(el, ctx, doc);
      return;
    }
    if (!(doc.ranks || []).length) {
      el.appendChild(emptyState(`Run "${ctx.run}" has no cluster data.`,
        doc.note || 'None of its workers has steps that could be compared across ranks.'));
      return;
    }

    const tools = h('div', { class: 'row', testid: 'cluster-source' },
      h('span', { class: 'muted' }, job ? `Run ${ctx.run}: MindSpore cluster job (${doc.ranks.length} ranks)` : `Run ${ctx.run} (${doc.ranks.length} ranks)`));
    const steps = stepNames(doc);
    let step = ctx.params.step && steps.includes(ctx.params.step) ? ctx.params.step : '';
    tools.appendChild(labeled('Step', select([{ value: '', label: 'Average' }, ...steps.map((s) => ({ value: s, label: `Step ${s}` }))],
      step, (v) => { step = v; ctx.setParams({ step: v }); update(); }, { testid: 'cluster-step-select' })));
    el.appendChild(tools);
    if (doc.note) el.appendChild(banner('warn', h('strong', null, 'Note: '), doc.note));

    el.appendChild(statCards([
      { label: 'Ranks', value: String(doc.ranks?.length || 0) },
      { label: 'Parallel mode', value: doc.parallel_mode || '–' },
      { label: 'Stages', value: String(doc.stage_num ?? 1) },
      { label: 'Source', value: doc.source || '–' },
    ], 'cluster-summary'));

    // the call-outs: slow rank (and its host), slow link
    const props = doc.proposals || [];
    const slow = props.find((p) => p.id === 'slow_rank');
    if (slow) {
      el.appendChild(banner('warn',
        h('strong', { testid: 'cluster-slow-rank' }, `Slow rank: ${slow.rank}`),
        slow.host ? h('span', { testid: 'cluster-slow-host' }, ` on host ${slow.host}`) : null,
        ` — step interval ${fmtUs(slow.value_us)}, ${slow.percent}% above the mean` +
        (slow.excess_us !== undefined ? `, ${fmtUs(slow.excess_us)} per step more than the other ranks.` : '.')));
    }
    const links = props.filter((p) => p.id === 'slow_link');
    for (const l of links) {
      el.appendChild(banner('warn', h('strong', { testid: 'cluster-slow-link' },
        `Slow link: ${l.src_rank} → ${l.dst_rank} (${l.link_type})`), ` — ${l.percent}% below the mean bandwidth of its type.`));
    }
    el.appendChild(panel('Proposals', props.length
      ? h('ul', { testid: 'cluster-proposals', class: 'proposals' }, props.map(proposalBox))
      : h('div', { class: 'muted', testid: 'cluster-proposals' }, 'No rank, link or stage stands out (MindInsight thresholds: 20 % step interval / FLOPS / bandwidth, 10 % communication).')));

    const chart = chartBox('chart-cluster', 320);
    el.appendChild(panel('Step time per rank (' + (step ? `step ${step}` : 'average step') + ')', chart));
    const openRank = (row) => {
      if (!row.worker || job) return; // MindSpore ranks have no worker in this logdir
      const q = new URLSearchParams({ view: 'steptrace', run: ctx.run, worker: row.worker });
      if (ctx.span) q.set('span', ctx.span);
      location.hash = '#' + q.toString();
    };
    const table = createTable({
      name: 'cluster-ranks', rows: rankRows(doc, step), sortKey: 'rank', sortDir: 'asc', search: true,
      searchPlaceholder: 'Search ranks / hosts…',
      onRowClick: openRank,
      rowClass: (r) => (slow && r.rank === slow.rank ? 'hl' : ''),
      columns: columns('cluster_ranks', ['rank', 'host', !job && 'worker', 'stage', 'iteration_interval_us',
        'fp_bp_us', 'tail_us', 'total_us', 'communication_us', job && 'wait_us']),
    });
    el.appendChild(panel('Ranks', table.el));

    if ((doc.links || []).length) {
      el.appendChild(h('div', { testid: 'cluster-links' }, panel('Communication links', createTable({
        name: 'cluster-links', rows: doc.links, sortKey: 'bandwidth_kbps', sortDir: 'asc',
        columns: columns('cluster_links', ['reported_by', 'src_rank', 'dst_rank', 'link_type', 'time_us', 'size_kb', 'bandwidth_kbps']),
      }).el)));
    }
    el.appendChild(h('div', { class: 'muted', testid: 'cluster-clock' },
      doc.clock_aligned
        ? `Step starts on one clock (CLOCK_REALTIME); misalignment bound ${doc.clock_error_us === null || doc.clock_error_us === undefined ? 'unknown (no NTP state)' : fmtUs(doc.clock_error_us)}.`
        : 'Ranks are not on a common clock: per-step starts are not compared.'));

    let chartObj = null;
    function update() {
      const rows = rankRows(doc, step);
      table.setRows(rows);
      const names = rows.map((r) => `rank ${r.rank}`);
      const option = {
        tooltip: { trigger: 'axis', axisPointer: { type: 'shadow' }, formatter: usAxisTooltip, confine: true },
        legend: { top: 0 },
        grid: { left: 64, right: 12, top: 30, bottom: 40 },
        xAxis: { type: 'category', data: names, axisLabel: { interval: 0, rotate: names.length > 8 ? 30 : 0 } },
        yAxis: { type: 'value', axisLabel: { formatter: axisUs } },
        series: named('cluster_ranks', PARTS).map((p) => ({
          name: p.name, type: 'bar', stack: 'r', barMaxWidth: 48, itemStyle: { color: p.color },
          data: rows.map((r) => ({ value: r[p.key] || 0, itemStyle: slow && r.rank === slow.rank ? { borderColor: '#e15759', borderWidth: 2 } : undefined })),
        })),
      };
      if (chartObj) chartObj.setOption(option, true);
      else {
        chartObj = makeChart(chart, option);
        if (chartObj) chartObj.on('click', (e) => openRank(rankRows(doc, step)[e.dataIndex] || {}));
      }
    }
    update();
  },
  dispose() {},
};
