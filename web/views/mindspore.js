// MindSpore view: MindInsight's pages for the selected MindSpore device (a
// worker device_<id> of a run whose /api/runs kind is "mindspore"): step
// trace summary and training-trace graph, AI Core operators by type and by
// op, FLOPs, AI CPU, data pipeline, dynamic shape, memory, GPU / host CPU
// operators and host information (the last two only where present). One panel
// module each under web/mindspore/; each reads its own /api/view document
// and fails alone (a panel whose document the server does not write shows a
// muted "no data" line, an error shows in its slot only).
import { h, errorBox, emptyState } from '../lib/util.js';
import { loadCharts } from '../lib/charts.js';
import { docCache } from '../mindspore/common.js';

// order on the page; each entry is web/mindspore/<file>.js
export const PANELS = [
  { file: 'steptrace', title: 'Step trace' },
  { file: 'ops', title: 'AI Core operators' },
  { file: 'flops', title: 'FLOPs' },
  { file: 'aicpu', title: 'AI CPU operators' },
  { file: 'minddata', title: 'Data pipeline' },
  { file: 'dynshape', title: 'Dynamic shape' },
  { file: 'memory', title: 'Memory' },
  { file: 'hostops', title: 'GPU and host CPU operators' },
  { file: 'host', title: 'Host information' },
  { file: 'parallel', title: 'Parallel strategy and stage timeline' },
];

export default {
  id: 'mindspore',
  title: 'MindSpore',
  async render(el, ctx) {
    const run = (ctx.runs?.runs || []).find((r) => r.name === ctx.run);
    if (!run || run.kind !== 'mindspore') {
      el.appendChild(emptyState('This worker is not a MindSpore device.',
        'The MindSpore tab shows MindInsight\'s analyses of a MindSpore profiler directory (the one holding ' +
        'step_trace_raw_<id>_detail_time.csv, aicore_intermediate_<id>_type.csv, minddata_pipeline_raw_<id>.csv, ...). ' +
        'Put such a directory under the logdir and pick its run (kind "mindspore") and a device_<id> worker.'));
      return;
    }
    // the FLOPs scope diagram (sankey) is only in the full chart build; load
    // it before the first chart so that every chart of the tab uses it
    await loadCharts(true).catch(() => { /* the common build still draws the rest */ });
    if (!ctx.alive()) return;
    const many = (run.workers || []).length > 1;
    el.appendChild(h('div', { class: 'muted' },
      `MindInsight's profiler pages for ${ctx.worker} of ${ctx.run} (docs/MINDSPORE.md says where nnscope reads each file).`,
      many ? h('span', null, ` This run has ${run.workers.length} devices: pick one above, or compare them in the `,
        h('a', { href: '#', testid: 'ms-cluster-link', onclick: (e) => { e.preventDefault(); ctx.navigate('cluster'); } }, 'Cluster view'), '.') : null));
    const mctx = { ...ctx, doc: docCache(ctx) };
    const slots = PANELS.map((p) => {
      const slot = h('div', { class: 'ms-slot', testid: `ms-${p.file}-slot` });
      el.appendChild(slot);
      return slot;
    });
    await Promise.all(PANELS.map(async (p, i) => {
      try {
        const mod = await import(`../mindspore/${p.file}.js`);
        if (!ctx.alive()) return;
        await mod.render(slots[i], mctx);
      } catch (e) {
        if (e && e.name === 'AbortError') return;
        console.error(e);
        slots[i].appendChild(h('div', { class: 'panel-body' }, h('strong', null, p.title + ': '), errorBox(e)));
      }
    }));
  },
};
