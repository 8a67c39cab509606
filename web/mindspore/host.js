// MindSpore tab: host information (Profiler(profile_framework=...):
// host_info/host_info_<rank>.csv, rank = device id), as MindSpore's analyse
// computes it: the host time per module / event / stage (the hostinfo view),
// the host memory rows (host_memory_<rank>.csv: ms_host.memory, the CSV's
// text), the host timeline's counts (timeline_<rank>.json: ms_host.timeline)
// and the dataset execution time per operation / stage (dataset_<rank>.csv:
// ms_host.dataset). A device without host_info gets a "no data" line.
// src/output/ms_host_out.h has the definitions.
import { h, fmtNum } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { section, cards, noData } from './common.js';

const int = (v) => (typeof v === 'number' ? String(v) : '–');
// a memory row's text as a number where it is one (for sorting), else the text
const numOr = (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v);
const NUM_COLS = ['memory_usage(kB)', 'time_stamp(us)'];

export async function render(el, ctx) {
  const [doc, hi] = await Promise.all([ctx.doc('ms_host'), ctx.doc('hostinfo').catch(() => null)]);
  if (!doc || !doc.rows) { // no host_info rows
    el.appendChild(section('Host information', 'ms-host', null, noData(doc && doc.error ? doc.error : 'No host information for this device (host_info/host_info_<rank>.csv).')));
    return;
  }
  const mem = doc.memory;
  const tl = doc.timeline;
  const events = (hi && Array.isArray(hi.events)) ? hi.events : [];
  const ds = doc.dataset;
  const memRows = mem ? mem.object.map((r) => Object.fromEntries(mem.col_name.map((c, i) => [c, NUM_COLS.includes(c) ? numOr(r[i]) : r[i]]))) : [];
  const dsRows = ds ? ds.object.map((r) => Object.fromEntries(ds.col_name.map((c, i) => [c, r[i]]))) : [];
  el.appendChild(section(`Host information (${doc.file || 'host_info'})`, 'ms-host',
    cards([
      { id: 'ms-host-rows', label: 'host_info rows', value: int(doc.rows) },
      { id: 'ms-host-mem-rows', label: 'Host memory rows', value: int(mem ? mem.size : 0), hint: 'Rows with memory_usage(kB) ≠ 0 (MindSpore: host_memory_<rank>.csv)' },
      { id: 'ms-host-peak', label: 'Peak host memory', value: mem ? `${fmtNum(mem.peak_kb, 0)} kB` : '–' },
      { id: 'ms-host-spans', label: 'Timeline stages', value: tl ? int(tl.spans) : '–', sub: tl ? `${tl.instants} instants; ${tl.unfinished} unfinished` : null, hint: `The host timeline (${tl ? tl.file : 'timeline_<rank>.json'}, as MindSpore writes it; nnscope analyse writes it into <out>/host_info)` },
      { id: 'ms-host-ds-rows', label: 'Dataset operations', value: ds ? int(ds.size) : '–', hint: `Dataset execution time per operation / stage (${ds ? ds.file : 'dataset_<rank>.csv'})` },
    ], 'ms-host-cards'),
    events.length ? h('div', { testid: 'ms-host-stages' },
      h('h4', null, 'Host time by stage'),
      createTable({
        name: 'ms-host-stage-table', rows: events, sortKey: 'total_us', sortDir: 'desc', search: events.length > 10,
        columns: [
          { key: 'module', title: 'Module', fmt: 'text' },
          { key: 'event', title: 'Event', fmt: 'text' },
          { key: 'stage', title: 'Stage', fmt: 'text', cls: 'name' },
          { key: 'level', title: 'Level', fmt: 'int' },
          { key: 'count', title: 'Count', fmt: 'int' },
          { key: 'avg_us', title: 'Average', fmt: 'us' },
          { key: 'total_us', title: 'Total', fmt: 'us' },
        ],
      }).el) : null,
    memRows.length ? h('div', { testid: 'ms-host-memory', 'data-rows': String(memRows.length) },
      h('h4', null, `Host memory (${mem.size} rows${mem.shown < mem.size ? `, first ${mem.shown} shown` : ''})`),
      createTable({
        name: 'ms-host-memory-table', rows: memRows, sortKey: 'time_stamp(us)', sortDir: 'asc', search: memRows.length > 10,
        columns: mem.col_name.map((c) => (NUM_COLS.includes(c)
          ? { key: c, title: c, fmt: 'int' } : { key: c, title: c, fmt: 'text' })),
      }).el) : null,
    h('div', { testid: 'ms-host-dataset', 'data-rows': String(dsRows.length) },
      h('h4', null, `Dataset execution time (${ds ? ds.file : 'dataset_<rank>.csv'})`),
      dsRows.length ? createTable({
        name: 'ms-host-dataset-table', rows: dsRows, sortKey: 'Avg. time (us)', sortDir: 'desc', search: dsRows.length > 10,
        columns: [
          { key: 'Operation', title: 'Operation', fmt: 'text' },
          { key: 'Stage', title: 'Stage', fmt: 'text', cls: 'name' },
          { key: 'Occurrences', title: 'Occurrences', fmt: 'int' },
          { key: 'Avg. time (us)', title: 'Avg. time (us)', fmt: (v) => fmtNum(v, 3), numeric: true },
          { key: 'Custom Info', title: 'Custom Info', fmt: 'text' },
        ],
      }).el : h('div', { class: 'muted' }, ds ? 'No Dataset start / end pairs in this host_info.' : 'No dataset table: MindSpore\'s analysis raises on this host_info.')),
    (doc.notes || []).length ? h('div', { class: 'muted', testid: 'ms-host-notes' }, doc.notes.join(' ')) : null));
}
