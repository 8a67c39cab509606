// Critical path overlay of the Trace timeline (HTA's critical path,
// docs/HTA.md): a "Critical path" toggle in the toolbar fetches
// /api/view?view=critical_path and outlines the events on the path in red,
// with the path's delays and waits drawn as red arrows between them.
//
// Self-contained: attachCriticalPath(view, bar) adds the toggle to the trace
// view's toolbar and installs timeline.critOverlay, which web/trace/draw.js
// calls after drawing the tracks. The hash parameter cp=1 turns it on.
import { h } from '../lib/util.js';
import { LABEL_W, ROW_H } from './layout.js';

const RED = '#d62728';

function fetchPath(view) {
  return view.ctx.api('/api/view', { ...view.params(), view: 'critical_path' });
}

// Draws the overlay on tl's canvas (called from the frame renderer).
function draw(tl) {
  const cp = tl.critical;
  const d = tl.data;
  if (!cp || !d) return;
  const g = tl.g;
  const k = tl.timeW / (tl.v.t1 - tl.v.t0);
  const pos = new Map(); // event id -> {x, w, y} of its visible item
  g.save();
  g.strokeStyle = RED;
  g.lineWidth = 2;
  for (const [track, items] of d.trackItems) {
    const row = tl.trackRow.get(track);
    if (!row) continue;
    const top = tl.rowTop(row);
    for (const it of items) {
      if (it[4] < 0 || !cp.ids.has(it[4])) continue;
      const x = LABEL_W + (it[0] - tl.v.t0) * k;
      const w = Math.max(2, it[1] * k);
      const y = top + 2 + it[2] * ROW_H;
      pos.set(it[4], { y: y + ROW_H / 2 });
      g.strokeRect(x - 1, y - 1, w + 2, ROW_H + 1);
    }
  }
  // delays and waits between two events: an arrow from the source time on the
  // source's row to the destination time on the destination's row
  g.lineWidth = 1.5;
  g.fillStyle = RED;
  for (const s of cp.arrows) {
    const a = pos.get(s.src_id);
    const b = pos.get(s.dst_id);
    if (!a || !b) continue;
    const x0 = tl.xOf(s.from);
    const x1 = tl.xOf(s.to);
    g.beginPath();
    g.moveTo(x0, a.y);
    g.lineTo(x1, b.y);
    g.stroke();
    const ang = Math.atan2(b.y - a.y, x1 - x0);
    g.beginPath();
    g.moveTo(x1, b.y);
    g.lineTo(x1 - 7 * Math.cos(ang - 0.4), b.y - 7 * Math.sin(ang - 0.4));
    g.lineTo(x1 - 7 * Math.cos(ang + 0.4), b.y - 7 * Math.sin(ang + 0.4));
    g.closePath();
    g.fill();
  }
  g.restore();
  tl.stats.critical = pos.size;
}

// Adds the toggle to bar (the trace view's toolbar) for view (TraceView).
export function attachCriticalPath(view, bar) {
  const box = h('input', { type: 'checkbox', testid: 'trace-critpath-toggle' });
  const label = h('label', { title: 'Outline the critical path of the first step (HTA critical path analysis)' }, box, 'Critical path');
  const note = h('span', { class: 'nns-trace-info', testid: 'trace-critpath-info' });
  bar.append(label, note);
  let doc = null;
  const p = view.ctx.params || {};
  // opened from the HTA panel (cp=1, no view in the hash): zoom to the path
  let zoom = String(p.cp) === '1' && (p.t0 == null || p.t0 === '');
  const tl = () => view.tl;
  const apply = async () => {
    if (!tl()) return;
    if (!box.checked) {
      tl().critical = null;
      note.textContent = '';
      tl().requestDraw();
      if (view.updateHash) view.updateHash({ cp: null });
      return;
    }
    try {
      if (!doc) doc = await fetchPath(view);
    } catch (err) {
      note.textContent = `critical path: ${err.message || err}`;
      return;
    }
    if (!view.alive || !box.checked) return;
    if (!doc.ok) {
      note.textContent = `No critical path: ${doc.reason || 'none'}`;
      return;
    }
    const origin = view.meta.origin_ns || 0;
    const rel = (us) => us * 1000 - origin;
    tl().critical = {
      ids: new Set(doc.critical_ids || []),
      arrows: (doc.arrows || [])
        .map((s) => ({ src_id: s.src_id, dst_id: s.dst_id, from: rel(s.from_us), to: rel(s.to_us) })),
    };
    tl().critOverlay = draw;
    if (zoom && doc.path_end_us > doc.path_start_us) {
      zoom = false;
      const a = rel(doc.path_start_us);
      const b = rel(doc.path_end_us);
      const pad = (b - a) * 0.03;
      tl().setView(a - pad, b + pad);
    }
    note.textContent = `step ${doc.step}: path ${Math.round(doc.total_us).toLocaleString('en-US')} us`
      + `${doc.critical_ids_truncated ? ' (outlines of the first events only)' : ''}`;
    tl().requestDraw();
    if (view.updateHash) view.updateHash({ cp: 1 });
  };
  box.addEventListener('change', apply);
  if (String(p.cp) === '1') {
    box.checked = true;
    apply();
  }
}
