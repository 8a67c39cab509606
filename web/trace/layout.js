// Row layout and hit testing of the Trace timeline (web/trace/timeline.js).
//
// The geometry constants shared by the timeline and its renderer
// (web/trace/draw.js), the rows (counter group, then one collapsible
// header per process / GPU group with its tracks) and their content-y
// positions, and the queries from css px back to rows, items and counter
// samples (and from item ids to css px). TimelineLayout is the base of
// the Timeline's class chain (TimelineLayout <- TimelineDraw <- Timeline):
// these methods read the state that Timeline's constructor sets.

export const LABEL_W = 200;   // label column (css px)
export const RULER_H = 22;
export const STEP_H = 16;
export const ROW_H = 18;      // one nesting level
export const TRACK_PAD = 4;
const GROUP_H = 20;
const COUNTER_H = 34;
const COUNTER_COLORS = ['#2a9d8f', '#e76f51', '#457b9d', '#8e44ad', '#d4a017', '#43aa8b'];

export function clamp(x, lo, hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

// Row geometry and hit testing; the base class of TimelineDraw.
export class TimelineLayout {
  buildLayout() {
    const rows = [];
    let y = 0;
    const m = this.meta;
    this.trackRow = new Map();
    this.counterRow = new Map();
    if (m.counters && m.counters.length) {
      const key = 'counters';
      rows.push({ type: 'group', key, name: 'Counters', n: m.counters.length, y, h: GROUP_H });
      y += GROUP_H;
      if (!this.collapsed.has(key)) {
        m.counters.forEach((c, i) => {
          const r = { type: 'counter', counter: c, color: COUNTER_COLORS[i % COUNTER_COLORS.length], y, h: COUNTER_H };
          rows.push(r);
          this.counterRow.set(c.id, r);
          y += COUNTER_H;
        });
      }
    }
    const groupCount = new Map();
    for (const t of m.tracks) groupCount.set(t.group, (groupCount.get(t.group) || 0) + 1);
    let cur = null;
    for (const t of m.tracks) {
      const key = 'g:' + t.group;
      if (t.group !== cur) {
        cur = t.group;
        rows.push({ type: 'group', key, name: t.group || '(no group)', n: groupCount.get(t.group), y, h: GROUP_H });
        y += GROUP_H;
      }
      if (this.collapsed.has(key)) continue;
      const h = Math.max(1, t.depth || 1) * ROW_H + TRACK_PAD;
      const r = { type: 'track', track: t, y, h };
      rows.push(r);
      this.trackRow.set(t.id, r);
      y += h;
    }
    this.rows = rows;
    this.contentH = y;
    this.updateSpacer();
    if (this.opts.onLayout && this.cssW) this.opts.onLayout();
  }

  // The canvas height that shows every row (css px).
  get preferredHeight() {
    return this.headerH + this.contentH + 10;
  }

  updateSpacer() {
    const extra = Math.max(0, this.headerH + this.contentH + 8 - this.cssH);
    this.spacer.style.height = extra + 'px';
  }

  toggleGroup(key) {
    if (this.collapsed.has(key)) this.collapsed.delete(key);
    else this.collapsed.add(key);
    this.buildLayout();
    this.requestDraw();
    this.ensureData(); // an expanded group's tracks may be missing from the answer
  }

  rowTop(row) {
    return this.headerH + row.y - this.scroller.scrollTop;
  }

  // Geometry of an item id in the current answer: {x, w, y} (css px).
  itemGeom(id, d) {
    const e = d.idMap.get(id);
    if (!e) return null;
    const row = this.trackRow.get(e[1]);
    if (!row) return null;
    const it = e[0];
    const x = this.xOf(it[0]);
    const w = Math.max(1, this.xOf(it[0] + it[1]) - x);
    return { x, w, y: this.rowTop(row) + 2 + it[2] * ROW_H, it, track: e[1] };
  }

  // Geometry from the answer, or from the selected event / its links.
  geomFor(id, d) {
    const r = this.itemGeom(id, d);
    if (r) return r;
    const sel = this.selected;
    let ev = null;
    if (sel && sel.id === id) ev = sel;
    else if (sel && sel.links) ev = sel.links.find((l) => l.id === id);
    if (!ev) return null;
    const row = this.trackRow.get(ev.track);
    if (!row) return null;
    let depth = ev.depth;
    if (depth == null) {
      if ((row.track.depth || 1) !== 1) return null;
      depth = 0;
    }
    const x = this.xOf(ev.start);
    return { x, w: Math.max(1, this.xOf(ev.start + ev.dur) - x), y: this.rowTop(row) + 2 + depth * ROW_H };
  }

  // ---- hit testing ------------------------------------------------------------

  rowAt(y) {
    if (y < this.headerH) return null;
    const cy = y - this.headerH + this.scroller.scrollTop;
    const rows = this.rows;
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      const r = rows[m];
      if (cy < r.y) hi = m - 1;
      else if (cy >= r.y + r.h) lo = m + 1;
      else return { row: r, cy };
    }
    return null;
  }

  // The item under (x, y) css px: {it, track, names} or null.
  itemAt(x, y) {
    const d = this.data;
    if (!d || x < LABEL_W) return null;
    const h = this.rowAt(y);
    if (!h || h.row.type !== 'track') return null;
    const depth = Math.floor((h.cy - h.row.y - 2) / ROW_H);
    const items = d.trackItems.get(h.row.track.id);
    if (!items) return null;
    const t = this.tOf(x);
    const tol = 2 * (this.v.t1 - this.v.t0) / this.timeW;
    let exact = null;
    let near = null;
    let nearD = tol;
    for (const it of items) {
      if (it[2] !== depth) continue;
      if (t >= it[0] && t < it[0] + it[1]) {
        if (!exact || it[1] < exact[1]) exact = it;
        continue;
      }
      const dd = t < it[0] ? it[0] - t : t - (it[0] + it[1]);
      if (dd <= nearD) { near = it; nearD = dd; }
    }
    const best = exact || near;
    return best ? { it: best, track: h.row.track.id, name: d.names[best[3]] } : null;
  }

  counterAt(x, y) {
    const d = this.data;
    const h = this.rowAt(y);
    if (!d || !h || h.row.type !== 'counter' || x < LABEL_W) return null;
    const c = d.counters.get(h.row.counter.id);
    if (!c || !c.points.length) return null;
    const t = this.tOf(x);
    const p = c.points;
    let lo = 0;
    let hi = p.length - 1;
    if (t < p[0][0]) return null;
    while (lo < hi) {
      const m = (lo + hi + 1) >> 1;
      if (p[m][0] <= t) lo = m;
      else hi = m - 1;
    }
    return { counter: h.row.counter, t, value: p[lo][1] };
  }
}
