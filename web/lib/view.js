// The shape of a view module that starts from one /api/view document (the
// shell prefetches it: app.js VIEW_DOC). No framework.
import { emptyState } from './util.js';
import { liveNote } from './live.js';

/**
 * docView({ id, title, doc, rows, empty: [title, how], render(el, ctx, doc, rows), dispose,
 *           liveNote: true | false, liveText })
 * -> the view module the shell loads. Its render fetches document `doc` (ctx.view) and, when
 * rows(doc) is given and empty, shows the empty state [title, how] instead of calling render.
 * A live run's document ("live": {...}) gets a note above (lib/live.js; liveText: what the view
 * lacks while live) unless liveNote is false.
 */
export function docView(spec) {
  return {
    id: spec.id,
    title: spec.title,
    async render(el, ctx) {
      const doc = await ctx.view(spec.doc);
      if (doc && doc.live && spec.liveNote !== false) el.appendChild(liveNote(doc.live, spec.liveText));
      const rows = spec.rows ? spec.rows(doc) || [] : null;
      if (rows && !rows.length) {
        el.appendChild(emptyState(...spec.empty));
        return;
      }
      await spec.render(el, ctx, doc, rows);
    },
    dispose: spec.dispose || (() => {}),
  };
}
