// MindSpore tab: memory. The device's memory document (the Memory view's)
// summarised as the peak allocated / reserved bytes per memory device, with
// a link to the Memory tab for the curve and the allocations; a muted line
// when the device recorded no memory.
import { h } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { section, noData } from './common.js';

export async function render(el, ctx) {
  const doc = await ctx.doc('memory');
  const devs = Object.entries((doc && doc.devices) || {});
  if (!devs.length) {
    el.appendChild(section('Memory', 'ms-memory', noData('No memory records for this device.')));
    return;
  }
  const rows = devs.map(([name, d]) => {
    let a = d.peak_allocated_bytes ?? null;
    let r = null;
    for (const c of d.curve || []) {
      if (a === null || c[1] > a) a = c[1];
      if (r === null || c[2] > r) r = c[2];
    }
    return { name, peak_allocated: a, peak_reserved: r, events: (d.events || []).length };
  });
  el.appendChild(section('Memory', 'ms-memory',
    createTable({
      name: 'ms-memory', rows, search: false, sortKey: 'peak_allocated', sortDir: 'desc',
      columns: [
        { key: 'name', title: 'Memory device', fmt: 'text' },
        { key: 'peak_allocated', title: 'Peak allocated', fmt: 'bytes' },
        { key: 'peak_reserved', title: 'Peak reserved', fmt: 'bytes' },
        { key: 'events', title: 'Alloc/free events', fmt: 'int' },
      ],
    }).el,
    h('a', { href: '#', testid: 'ms-memory-link', onclick: (e) => { e.preventDefault(); ctx.navigate('memory'); } }, 'Open the Memory view')));
}
