// msprof.js - the Trace view's controls for a rank of an msprof (MindSpore
// cluster) timeline, shown only when /api/trace/meta has an `msprof` object
// (docs/MINDSPORE.md, "Cluster timeline"): summary (Step Trace, Overlap
// Analysis) or detail (adds Ascend Hardware, HCCL), sub-graphs merged or
// apart, and which sub-graph. A change calls onChange(view) with the trace
// API's `timeline` value ("summary/apart/2"); the view reloads with it.
// testids: trace-msprof, trace-msprof-level, trace-msprof-apart, trace-msprof-model.
import { h } from '../lib/util.js';

function pick(testid, title, options, value) {
  const s = h('select', { testid, title });
  for (const [v, label] of options) s.append(h('option', { value: v, text: label }));
  s.value = value;
  return s;
}

export function msprofControls(ms, onChange) {
  const [level = 'detail', mode = 'merged', models = 'all'] = String(ms.view || '').split('/');
  const lv = pick('trace-msprof-level', 'Summary: Step Trace and Overlap Analysis; detail adds Ascend Hardware and HCCL',
    [['detail', 'Detail'], ['summary', 'Summary']], level);
  const ap = pick('trace-msprof-apart', 'Step Trace of the sub-graphs in one row (merged) or one row each (apart)',
    [['merged', 'Sub-graphs merged'], ['apart', 'Sub-graphs apart']], mode);
  const md = pick('trace-msprof-model', 'Keep the events of one sub-graph (model id) only',
    [['all', 'All sub-graphs'], ...(ms.models || []).map((m) => [String(m), `Sub-graph ${m}`])],
    models.includes(',') ? 'all' : models);
  const fire = () => onChange(`${lv.value}/${ap.value}/${md.value}`);
  for (const s of [lv, ap, md]) s.addEventListener('change', fire);
  return h('span', { class: 'nns-trace-msprof', testid: 'trace-msprof', title: `Rank ${ms.rank} of an msprof timeline` },
    `Rank ${ms.rank}:`, lv, ap, md);
}
