// HTA view: the analyses Holistic Trace Analysis users expect (temporal
// breakdown, idle time, kernel launches, CUDA queue length, memory bandwidth,
// user annotations, kernel sequences, critical path), one panel module each
// under web/hta/. A panel module exports `async render(el, ctx)`; a panel that
// fails to load or render shows its error without taking the others down.
import { h, errorBox } from '../lib/util.js';

// order on the page; each entry is web/hta/<file>.js
export const PANELS = [
  { file: 'time', title: 'Time breakdown, idle time, queue length, bandwidth' },
  { file: 'launch', title: 'Kernel launches, annotations, kernel sequences' },
  { file: 'critpath', title: 'Critical path' },
];

export default {
  id: 'hta',
  title: 'HTA',
  async render(el, ctx) {
    el.appendChild(h('div', { class: 'muted' },
      'Analyses with Holistic Trace Analysis\'s definitions (docs/HTA.md says where nnscope differs and why).'));
    const slots = PANELS.map((p) => {
      const slot = h('section', { class: 'hta-section', testid: `hta-${p.file}` });
      el.appendChild(slot);
      return slot;
    });
    await Promise.all(PANELS.map(async (p, i) => {
      try {
        const mod = await import(`../hta/${p.file}.js`);
        if (!ctx.alive()) return;
        await mod.render(slots[i], ctx);
      } catch (e) {
        if (e && e.name === 'AbortError') return;
        console.error(e);
        slots[i].appendChild(errorBox(e));
      }
    }));
  },
};
