// MindSpore tab: host information (Profiler(profile_framework=...):
// host_info/host_info_<rank>.csv), split as MindSpore's analyse does: the
// host time per module / event / stage (the hostinfo view), the host memory
// rows (host_memory_<rank>.csv: ms_host.memory) and the host timeline
// (timeline_<rank>.json; nnscope analyse writes it as host_timeline.json:
// ms_host.timeline gives its counts). A device without host_info rows
// gets a "no data" line. src/output/ms_host_out.h has the definitions.
import { h, fmtNum } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { section, cards, noData } from './common.js';

const int = (v) => (typeof v === 'number' ? String(v) : '–');

export async function render(el, ctx) {
  const [doc, hi] = await Promise.all([ctx.doc('ms_host'), ctx.doc('hostinfo').catch(() => null)]);
  if (!doc || !doc.rows) { // no host_info rows
    el.appendChild(section('Host information', 'ms-host', null, noData('No host information for this device (host_info/host_info_<rank>.csv).')));
    return;
  }
  const mem = doc.memory;
  const tl = doc.timeline;
  const events = (hi && Array.isArray(hi.events)) ? hi.events : [];
  const memRows = mem ? mem.object.map((r) => Object.fromEntries(mem.col_name.map((c, i) => [c, r[i]]))) : [];
  el.appendChild(section('Host information (host_info)', 'ms-host',
    cards([
      { id: 'ms-host-rows', label: 'host_info rows', value: int(doc.rows) },
      { id: 'ms-host-mem-rows', label: 'Host memory rows', value: int(mem ? mem.size : 0), hint: 'Rows with memory_usage(kB) ≠ 0 (MindSpore: host_memory_<rank>.csv)' },
      { id: 'ms-host-peak', label: 'Peak host memory', value: mem ? `${fmtNum(mem.peak_kb, 0)} kB` : '–' },
      { id: 'ms-host-spans', label: 'Timeline stages', value: tl ? int(tl.spans) : '–', sub: tl ? `${tl.instants} instants; ${tl.unmatched_starts + tl.unmatched_ends} unmatched` : null, hint: 'The host timeline (MindSpore: timeline_<rank>.json; nnscope analyse writes host_timeline.json)' },
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
        columns: mem.col_name.map((c) => (['module_name', 'event', 'stage', 'custom_info'].includes(c)
          ? { key: c, title: c, fmt: 'text' } : { key: c, title: c, fmt: 'int' })),
      }).el) : null,
    h('div', { class: 'muted', testid: 'ms-host-dataset' }, doc.dataset_note || '')));
}
