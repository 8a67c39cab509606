// The canvas timeline of the Trace view.
//
// Rows are the tracks of /api/trace/meta (grouped by process / GPU under
// collapsible headers) below a group of counter rows; a fixed ruler with
// step labels sits on top. Data comes only from /api/trace/window slices:
// the last answer is redrawn immediately (scaled / shifted) while zooming or
// panning, and a new slice (1.5x the visible range) is asked for, debounced,
// with stale requests aborted and out-of-order answers ignored.
//
// This file holds the state, the view (zoom / pan / reveal), data fetching
// and input (mouse, wheel, W/A/S/D keys) plus the public API, including
// probe(): the read-only view of the state that the browser tests use (the
// Trace view publishes it as window.__nnsTrace). Timeline extends
// TimelineDraw (frame rendering, web/trace/draw.js), which extends
// TimelineLayout (row layout and hit testing, web/trace/layout.js).
import { h, fmtInt } from '../lib/util.js';
import { fmtDur, fmtTime, fmtValue, colorFor } from './format.js';
import { LABEL_W, RULER_H, STEP_H, ROW_H, clamp } from './layout.js';
import { TimelineDraw } from './draw.js';

const MIN_SPAN = 100;  // ns
const MOVE_IDLE_MS = 120; // the view rests after this long without a move
const FIRST_FETCH = -1; // fetchTimer while the first window is about to be asked for (a microtask)

function isTyping(t) {
  if (!t || !t.tagName) return false;
  const n = t.tagName;
  return n === 'INPUT' || n === 'TEXTAREA' || n === 'SELECT' || t.isContentEditable;
}

export class Timeline extends TimelineDraw {
  // opts: { meta, fetchWindow(params, signal) -> Promise<answer>,
  //         view: {t0, t1} | null, onSelect(id, item|null), onRange(sel|null),
  //         onView(t0, t1), onFirstDraw(), onError(err) }
  constructor(host, opts) {
    super();
    this.host = host;
    this.opts = opts;
    this.meta = opts.meta;
    this.full = {
      t0: this.meta.start || 0,
      t1: Math.max((this.meta.end || 0), (this.meta.start || 0) + 1000),
    };
    this.scroller = h('div', { class: 'nns-tl-scroll' });
    this.canvas = h('canvas', { class: 'nns-tl-canvas', testid: 'trace-canvas', tabIndex: 0 });
    this.spacer = h('div', { class: 'nns-tl-spacer' });
    this.tip = h('div', { class: 'nns-tl-tip', hidden: true });
    this.scroller.append(this.canvas, this.spacer);
    host.append(this.scroller, this.tip);
    this.g = this.canvas.getContext('2d');
    this.trackById = new Map(this.meta.tracks.map((t) => [t.id, t]));
    this.collapsed = new Set();
    this.headerH = RULER_H + (this.meta.steps && this.meta.steps.length ? STEP_H : 0);
    this.cssW = 0;
    this.cssH = 0;
    this.dpr = 1;
    this.data = null;
    this.lastDrawnData = null;
    this.pending = null;
    this.inflight = null;
    this.seq = 0;
    this.applied = 0;
    this.fetchTimer = 0;
    this.keys = new Set();
    this.keyRaf = 0;
    this.keyLast = 0;
    this.drawRaf = 0;
    this.mouse = null;
    this.drag = null;
    this.box = null;      // box being dragged (css coords, content y)
    this.range = null;    // committed selection {t0, t1, y0, y1} (content y)
    this.selected = null; // {id, track, depth, start, dur, links}
    this.showFlows = true;
    this.allFlows = false;
    this.selectMode = false;
    this.stats = { drawn: 0, lastQueryMs: 0, items: 0, flows: 0 };
    this.firstDrawn = false;
    this.disposed = false;
    this.hatch = this.makeHatch();
    this.textW = new Map();
    this.buildLayout();
    const v = opts.view;
    if (v && isFinite(v.t0) && isFinite(v.t1) && v.t1 > v.t0) this.v = { t0: +v.t0, t1: +v.t1 };
    else this.v = this.fullView();
    this.clampView();

    this.handlers = [];
    const on = (target, type, fn, o) => {
      target.addEventListener(type, fn, o);
      this.handlers.push([target, type, fn, o]);
    };
    on(this.canvas, 'mousedown', (e) => this.onDown(e));
    on(this.canvas, 'mousemove', (e) => this.onHover(e));
    on(this.canvas, 'mouseleave', () => { this.mouse = null; this.hideTip(); });
    on(this.canvas, 'wheel', (e) => this.onWheel(e), { passive: false });
    on(this.canvas, 'dblclick', (e) => this.onDblClick(e));
    on(this.scroller, 'scroll', () => this.requestDraw());
    on(window, 'mousemove', (e) => this.onDragMove(e));
    on(window, 'mouseup', (e) => this.onUp(e));
    on(window, 'keydown', (e) => this.onKeyDown(e));
    on(window, 'keyup', (e) => this.onKeyUp(e));
    on(window, 'blur', () => { this.keys.clear(); });
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.scroller);
    this.resize();
  }

  dispose() {
    this.disposed = true;
    for (const [t, type, fn, o] of this.handlers) t.removeEventListener(type, fn, o);
    this.handlers = [];
    if (this.ro) this.ro.disconnect();
    clearTimeout(this.fetchTimer);
    this.fetchTimer = 0;
    clearTimeout(this.idleTimer);
    this.idleTimer = 0;
    cancelAnimationFrame(this.keyRaf);
    cancelAnimationFrame(this.drawRaf);
    if (this.inflight) this.inflight.abort();
    this.inflight = null;
  }

  // ---- size (row layout: web/trace/layout.js) -----------------------------

  resize() {
    if (this.disposed) return;
    const w = Math.max(LABEL_W + 50, this.scroller.clientWidth);
    const h = Math.max(120, this.scroller.clientHeight);
    const dpr = window.devicePixelRatio || 1;
    if (w === this.cssW && h === this.cssH && dpr === this.dpr) return;
    this.cssW = w;
    this.cssH = h;
    this.dpr = dpr;
    this.canvas.style.width = w + 'px';
    this.canvas.style.height = h + 'px';
    this.canvas.width = Math.round(w * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.updateSpacer();
    this.draw();
    this.ensureData();
  }

  get timeW() {
    return Math.max(1, this.cssW - LABEL_W);
  }

  // ---- view -----------------------------------------------------------------

  // The whole trace, exactly its extent: the ruler starts at 0 (the first
  // event), never before it (a margin on the left showed negative times).
  fullView() {
    return { t0: this.full.t0, t1: this.full.t1 };
  }

  clampView() {
    const v = this.v;
    const fullSpan = this.full.t1 - this.full.t0;
    let span = clamp(v.t1 - v.t0, MIN_SPAN, Math.max(fullSpan * 1.2, MIN_SPAN * 10));
    let t0 = clamp(v.t0, this.full.t0 - span * 0.5, this.full.t1 - span * 0.5);
    this.v = { t0, t1: t0 + span };
  }

  setView(t0, t1) {
    this.v = { t0, t1 };
    this.viewChanged();
  }

  reset() {
    this.v = this.fullView();
    this.viewChanged();
  }

  // A newer meta of the same trace (a live trace's next snapshot, Trace
  // view): its extent and rows again (collapsed groups stay collapsed), the
  // view moved to `view` (or kept), and a window asked for again; what is
  // drawn stays until it comes.
  setMeta(meta, view) {
    this.meta = meta;
    this.opts.meta = meta;
    this.full = {
      t0: meta.start || 0,
      t1: Math.max((meta.end || 0), (meta.start || 0) + 1000),
    };
    this.trackById = new Map(meta.tracks.map((t) => [t.id, t]));
    this.headerH = RULER_H + (meta.steps && meta.steps.length ? STEP_H : 0);
    this.buildLayout();
    if (this.data) this.data = { ...this.data, c0: Infinity, c1: -Infinity }; // covers nothing now
    if (view && isFinite(view.t0) && isFinite(view.t1) && view.t1 > view.t0) this.v = { t0: +view.t0, t1: +view.t1 };
    this.viewChanged();
  }

  viewChanged() {
    this.clampView();
    this.requestDraw();
    this.ensureData();
    if (this.opts.onView) this.opts.onView(this.v.t0, this.v.t1);
  }

  xOf(t) {
    return LABEL_W + (t - this.v.t0) * this.timeW / (this.v.t1 - this.v.t0);
  }

  tOf(x) {
    return this.v.t0 + (x - LABEL_W) * (this.v.t1 - this.v.t0) / this.timeW;
  }

  // The user is zooming or panning: while the view moves, windows are
  // fetched at half resolution (half the items to parse per frame); once it
  // rests for MOVE_IDLE_MS, at full resolution again.
  userMoved() {
    this.lastMove = performance.now();
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => { this.idleTimer = 0; this.ensureData(); }, MOVE_IDLE_MS + 10);
  }

  zoomAt(t, f) {
    this.userMoved();
    const span = this.v.t1 - this.v.t0;
    const ns = clamp(span * f, MIN_SPAN, Math.max((this.full.t1 - this.full.t0) * 1.2, MIN_SPAN * 10));
    const t0 = t - (t - this.v.t0) * ns / span;
    this.v = { t0, t1: t0 + ns };
    this.viewChanged();
  }

  panBy(dt) {
    this.userMoved();
    this.v = { t0: this.v.t0 + dt, t1: this.v.t1 + dt };
    this.viewChanged();
  }

  anchorTime() {
    const m = this.mouse;
    if (m && m.x > LABEL_W && m.x < this.cssW) return this.tOf(m.x);
    return (this.v.t0 + this.v.t1) / 2;
  }

  // Bring an event {track, depth, start, dur} into view: pan to it, zoom
  // out if it is wider than the view, zoom in if it is narrower than a
  // couple of pixels, and scroll its track into view.
  reveal(ev, fit) {
    if (!ev) return;
    const span = this.v.t1 - this.v.t0;
    const dur = Math.max(0, ev.dur || 0);
    let ns = span;
    if (fit) ns = Math.max(MIN_SPAN, dur / 0.7);
    else if (dur > span * 0.8) ns = dur / 0.6;
    else if (dur * this.timeW / span < 2) ns = Math.max(MIN_SPAN * 4, dur * 30);
    const inView = ev.start >= this.v.t0 && ev.start + dur <= this.v.t1;
    if (ns !== span || !inView) {
      const c = ev.start + dur / 2;
      this.v = { t0: c - ns / 2, t1: c + ns / 2 };
    }
    const t = this.trackById.get(ev.track);
    if (t && this.collapsed.has('g:' + t.group)) {
      this.collapsed.delete('g:' + t.group);
      this.buildLayout();
    }
    const row = this.trackRow.get(ev.track);
    if (row) {
      const y = row.y + 2 + (ev.depth || 0) * ROW_H;
      const visH = this.cssH - this.headerH;
      const st = this.scroller.scrollTop;
      if (y < st || y + ROW_H > st + visH) this.scroller.scrollTop = Math.max(0, y - visH / 3);
    }
    this.viewChanged();
  }

  setSelected(ev) {
    this.selected = ev;
    this.requestDraw();
  }

  setFlows(show, all) {
    this.showFlows = show;
    this.allFlows = all;
    this.requestDraw();
  }

  setSelectMode(on) {
    this.selectMode = on;
    this.canvas.classList.toggle('nns-tl-selectmode', on);
  }

  clearRange() {
    this.range = null;
    this.requestDraw();
  }

  // ---- data -----------------------------------------------------------------

  // Does an answer (or pending request) cover the current view well enough?
  covers(c) {
    if (!c) return false;
    const v = this.v;
    if (v.t0 < c.c0 || v.t1 > c.c1) return false;
    if (c.tset) for (const id of this.trackRow.keys()) if (!c.tset.has(id)) return false;
    const need = (v.t1 - v.t0) / this.timeW;
    return c.res <= need * (this.moving() ? 2.6 : 1.3) && c.res >= need / 4;
  }

  moving() {
    return performance.now() - (this.lastMove || 0) < MOVE_IDLE_MS;
  }

  ensureData() {
    if (this.disposed || !this.cssW) return;
    if (this.covers(this.data) || this.covers(this.pending)) return;
    // at most one request per 40 ms while the view moves (the request is
    // built from the view when the timer fires); the first one once the
    // code that is running has set the view up (a microtask: a timer would
    // wait behind the next frame, ~30 ms on a busy machine)
    if (this.fetchTimer) return;
    if (this.data) {
      this.fetchTimer = setTimeout(() => this.fetchNow(), 40);
      return;
    }
    this.fetchTimer = FIRST_FETCH;
    queueMicrotask(() => { if (this.fetchTimer === FIRST_FETCH) this.fetchNow(); });
  }

  fetchNow() {
    this.fetchTimer = 0;
    if (this.disposed) return;
    if (this.covers(this.data) || this.covers(this.pending)) return;
    const v = this.v;
    const span = v.t1 - v.t0;
    const pad = span * 0.25;
    const f = this.full;
    let q0 = Math.floor(Math.max(f.t0, v.t0 - pad));
    let q1 = Math.ceil(Math.min(f.t1, v.t1 + pad));
    if (q1 <= q0) q1 = q0 + 1;
    const px = clamp(Math.round(this.timeW * (q1 - q0) / span * (this.moving() ? 0.5 : 1)), 1, 8192);
    const c0 = q0 <= f.t0 ? -Infinity : q0;
    const c1 = q1 >= f.t1 ? Infinity : q1;
    // only the tracks of expanded groups (all of them: no filter)
    const shown = [...this.trackRow.keys()];
    const filter = shown.length > 0 && shown.length < this.meta.tracks.length && shown.length <= 1000;
    const cover = { c0, c1, res: (q1 - q0) / px, tset: filter ? new Set(shown) : null };
    if (this.inflight) this.inflight.abort();
    const ctrl = new AbortController();
    this.inflight = ctrl;
    this.pending = cover;
    const seq = ++this.seq;
    const started = performance.now();
    Promise.resolve()
      .then(() => this.opts.fetchWindow(filter ? { t0: q0, t1: q1, px, tracks: shown.join(',') } : { t0: q0, t1: q1, px }, ctrl.signal))
      .then((ans) => {
        if (this.disposed || seq < this.applied) return;
        this.applied = seq;
        this.stats.lastQueryMs = Math.round((performance.now() - started) * 10) / 10;
        this.setData(ans, cover);
      })
      .catch((err) => {
        if (this.disposed || ctrl.signal.aborted || (err && err.name === 'AbortError')) return;
        if (this.opts.onError) this.opts.onError(err);
      })
      .finally(() => {
        if (this.inflight === ctrl) {
          this.inflight = null;
          this.pending = null;
        }
      });
  }

  setData(ans, cover) {
    const names = ans.names || [];
    const colors = names.map((n) => colorFor(n));
    const trackItems = new Map();
    const idMap = new Map();
    for (const tr of ans.tracks || []) {
      const items = tr.items || [];
      trackItems.set(tr.id, items);
      for (const it of items) if (it[4] >= 0) idMap.set(it[4], [it, tr.id]);
    }
    const counters = new Map();
    for (const c of ans.counters || []) {
      let max = 0;
      for (const p of c.points) if (p[1] > max) max = p[1];
      counters.set(c.id, { points: c.points, max });
    }
    this.data = {
      t0: ans.t0, t1: ans.t1, px: ans.px, names, colors, trackItems, idMap, counters,
      flows: ans.flows || [], stats: ans.stats || {}, ...cover,
    };
    this.requestDraw();
  }

  // ---- drawing (frames: web/trace/draw.js) ---------------------------------

  requestDraw() {
    if (this.drawRaf || this.disposed) return;
    this.drawRaf = requestAnimationFrame(() => {
      this.drawRaf = 0;
      this.draw();
    });
  }

  // ---- input ------------------------------------------------------------------

  local(e) {
    const r = this.canvas.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  onDown(e) {
    if (e.button !== 0) return;
    const p = this.local(e);
    this.canvas.focus({ preventScroll: true });
    e.preventDefault();
    this.hideTip();
    if ((e.shiftKey || this.selectMode) && p.x >= LABEL_W && p.y >= this.headerH) {
      const cy = p.y - this.headerH + this.scroller.scrollTop;
      const t = this.tOf(p.x);
      this.box = { t0: t, t1: t, y0: cy, y1: cy, sx: p.x, sy: p.y };
      this.drag = null;
      return;
    }
    this.drag = { x: p.x, y: p.y, t0: this.v.t0, t1: this.v.t1, st: this.scroller.scrollTop, moved: false };
  }

  onDragMove(e) {
    if (!this.drag && !this.box) return;
    const p = this.local(e);
    if (this.box) {
      const b = this.box;
      b.t1 = this.tOf(clamp(p.x, LABEL_W, this.cssW));
      b.y1 = clamp(p.y, this.headerH, this.cssH) - this.headerH + this.scroller.scrollTop;
      this.requestDraw();
      return;
    }
    const d = this.drag;
    const dx = p.x - d.x;
    const dy = p.y - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    d.moved = true;
    this.canvas.classList.add('nns-tl-dragging');
    const dt = dx * (d.t1 - d.t0) / this.timeW;
    this.userMoved();
    this.v = { t0: d.t0 - dt, t1: d.t1 - dt };
    this.scroller.scrollTop = d.st - dy;
    this.viewChanged();
  }

  onUp(e) {
    if (this.box) {
      const b = this.box;
      this.box = null;
      const p = this.local(e);
      if (Math.abs(p.x - b.sx) < 3) {
        this.click(p, e);
        return;
      }
      const t0 = Math.min(b.t0, b.t1);
      const t1 = Math.max(b.t0, b.t1);
      let y0 = Math.min(b.y0, b.y1);
      let y1 = Math.max(b.y0, b.y1);
      let tracks = this.rows.filter((r) => r.type === 'track' && r.y < y1 && r.y + r.h > y0).map((r) => r.track.id);
      if (Math.abs(b.y1 - b.y0) < 3 || !tracks.length) {
        // a flat box selects the time range on every (shown) track
        tracks = this.rows.filter((r) => r.type === 'track').map((r) => r.track.id);
        y0 = 0;
        y1 = this.contentH;
      }
      this.range = { t0, t1, y0, y1 };
      this.requestDraw();
      if (this.opts.onRange) this.opts.onRange({ t0: Math.floor(t0), t1: Math.ceil(t1), tracks });
      return;
    }
    const d = this.drag;
    if (!d) return;
    this.drag = null;
    this.canvas.classList.remove('nns-tl-dragging');
    if (!d.moved) this.click(this.local(e), e);
  }

  click(p) {
    const h = this.rowAt(p.y);
    if (h && h.row.type === 'group' && p.x >= 0) {
      this.toggleGroup(h.row.key);
      return;
    }
    if (p.x < LABEL_W || p.y < this.headerH) return;
    const hit = this.itemAt(p.x, p.y);
    if (hit && hit.it[4] >= 0) {
      const it = hit.it;
      this.selected = { id: it[4], track: hit.track, depth: it[2], start: it[0], dur: it[1], name: hit.name };
      this.requestDraw();
      if (this.opts.onSelect) this.opts.onSelect(it[4], this.selected);
    } else if (hit) {
      // a merged block: zoom into it
      const it = hit.it;
      const c = it[0] + it[1] / 2;
      const ns = Math.max(MIN_SPAN, it[1] * 1.5);
      this.setView(c - ns / 2, c + ns / 2);
    } else {
      if (this.selected && this.opts.onSelect) this.opts.onSelect(null, null);
      this.selected = null;
      this.requestDraw();
    }
  }

  onDblClick(e) {
    const p = this.local(e);
    const hit = this.itemAt(p.x, p.y);
    if (hit && hit.it[4] >= 0) this.reveal({ track: hit.track, depth: hit.it[2], start: hit.it[0], dur: hit.it[1] }, true);
  }

  onWheel(e) {
    const p = this.local(e);
    const dm = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? this.cssH : 1;
    const dx = e.deltaX * dm;
    const dy = e.deltaY * dm;
    // over the labels (and without ctrl) the wheel scrolls the rows natively
    if (p.x < LABEL_W && !e.ctrlKey) return;
    e.preventDefault();
    if (e.shiftKey && !e.ctrlKey) {
      this.scroller.scrollTop += dy || dx;
      return;
    }
    if (Math.abs(dx) > Math.abs(dy)) {
      this.panBy(dx * (this.v.t1 - this.v.t0) / this.timeW);
      return;
    }
    const f = Math.exp(clamp(dy, -300, 300) * (e.ctrlKey ? 0.01 : 0.002));
    this.zoomAt(this.tOf(Math.max(LABEL_W, p.x)), f);
  }

  onHover(e) {
    const p = this.local(e);
    this.mouse = p;
    if (this.drag || this.box) return;
    const hit = this.itemAt(p.x, p.y);
    if (hit) {
      const it = hit.it;
      if (it[4] < 0) {
        this.showTip(e, [[`${fmtInt(-it[4])} events`, true], [`first: ${hit.name}`], [`span ${fmtDur(it[1])} at ${fmtTime(it[0] - this.full.t0)}`], ['click to zoom in', false, true]]);
      } else {
        this.showTip(e, [[hit.name, true], [`duration ${fmtDur(it[1])}`], [`start ${fmtTime(it[0] - this.full.t0)}`]]);
      }
      this.canvas.style.cursor = 'pointer';
      return;
    }
    this.canvas.style.cursor = '';
    const c = this.counterAt(p.x, p.y);
    if (c) {
      this.showTip(e, [[c.counter.name, true], [fmtValue(c.value, c.counter.unit)], [`at ${fmtTime(c.t - this.full.t0)}`]]);
      return;
    }
    const h = this.rowAt(p.y);
    if (h && p.x < LABEL_W && h.row.type === 'track') {
      const t = h.row.track;
      this.showTip(e, [[t.name, true], [t.group || ''], [`${fmtInt(t.events || 0)} events, ${t.kind || 'track'}`]]);
      return;
    }
    if (h && h.row.type === 'group') {
      this.showTip(e, [[h.row.name, true], [this.collapsed.has(h.row.key) ? 'click to expand' : 'click to collapse', false, true]]);
      this.canvas.style.cursor = 'pointer';
      return;
    }
    this.hideTip();
  }

  showTip(e, lines) {
    const tip = this.tip;
    tip.replaceChildren();
    for (const [text, bold, dim] of lines) {
      tip.append(h('div', { class: bold ? 'nns-tl-tip-b' : dim ? 'nns-tl-tip-d' : '' }, text));
    }
    tip.hidden = false;
    const hr = this.host.getBoundingClientRect();
    let x = e.clientX - hr.left + 14;
    let y = e.clientY - hr.top + 14;
    const tw = tip.offsetWidth;
    const th = tip.offsetHeight;
    if (x + tw > hr.width) x = Math.max(0, e.clientX - hr.left - tw - 10);
    if (y + th > hr.height) y = Math.max(0, e.clientY - hr.top - th - 10);
    tip.style.left = x + 'px';
    tip.style.top = y + 'px';
  }

  hideTip() {
    this.tip.hidden = true;
  }

  onKeyDown(e) {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    const k = e.key.toLowerCase();
    if (k === 'w' || k === 'a' || k === 's' || k === 'd') {
      e.preventDefault();
      if (e.repeat || this.keys.has(k)) return;
      this.keys.add(k);
      // a tap moves a step; holding the key goes on smoothly
      this.keyStep(k, 0.12);
      if (!this.keyRaf) {
        this.keyLast = performance.now();
        this.keyRaf = requestAnimationFrame((t) => this.keyTick(t));
      }
    } else if (k === 'f' && this.selected) {
      e.preventDefault();
      this.reveal(this.selected, true);
    } else if (k === 'escape') {
      this.range = null;
      this.requestDraw();
      if (this.opts.onEscape) this.opts.onEscape();
    } else if (k === '0') {
      this.reset();
    }
  }

  onKeyUp(e) {
    const k = (e.key || '').toLowerCase();
    this.keys.delete(k);
  }

  keyStep(k, dt) {
    const span = this.v.t1 - this.v.t0;
    if (k === 'w') this.zoomAt(this.anchorTime(), Math.exp(-dt * 3));
    else if (k === 's') this.zoomAt(this.anchorTime(), Math.exp(dt * 3));
    else if (k === 'a') this.panBy(-span * dt * 0.9);
    else if (k === 'd') this.panBy(span * dt * 0.9);
  }

  keyTick(now) {
    this.keyRaf = 0;
    if (this.disposed || !this.keys.size) return;
    const dt = clamp((now - this.keyLast) / 1000, 0, 0.05);
    this.keyLast = now;
    for (const k of this.keys) this.keyStep(k, dt);
    this.keyRaf = requestAnimationFrame((t) => this.keyTick(t));
  }

  // ---- probe -------------------------------------------------------------------

  // A read-only view of the state for tests and tools: frames drawn, the
  // visible range, the last query's time, items and flows drawn, the
  // selected id, and the screen (client) point of an item to click.
  probe() {
    const tl = this;
    const clientOf = (x, y) => {
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + x, y: r.top + y };
    };
    const visibleCentre = (g) => {
      const x0 = Math.max(g.x, LABEL_W);
      const x1 = Math.min(g.x + g.w, tl.cssW);
      const y = g.y + ROW_H / 2;
      if (x1 <= x0 || y < tl.headerH || y > tl.cssH) return null;
      return clientOf((x0 + x1) / 2, y);
    };
    return {
      get drawn() { return tl.stats.drawn; },
      get visible() { return { t0: tl.v.t0, t1: tl.v.t1 }; },
      get lastQueryMs() { return tl.stats.lastQueryMs; },
      get items() { return tl.stats.items; },
      get flows() { return tl.stats.flows; },
      get selected() { return tl.selected ? tl.selected.id : null; },
      // the track groups of the meta, in order ("Step Trace rank0", "GPU 0")
      get groups() { return [...new Set(((tl.opts.meta || {}).tracks || []).map((t) => t.group))]; },
      // collapse or expand a track group by its name ("GPU 0", "Process 25738")
      toggleGroup(name) { tl.toggleGroup('g:' + name); },
      hit(id) {
        const d = tl.data;
        if (!d) return null;
        const g = tl.itemGeom(id, d);
        return g ? visibleCentre(g) : null;
      },
      firstItem() {
        const d = tl.data;
        if (!d) return null;
        let best = null;
        for (const [id, [it, track]] of d.idMap) {
          const row = tl.trackRow.get(track);
          if (!row) continue;
          const g = tl.itemGeom(id, d);
          const c = visibleCentre(g);
          if (!c) continue;
          const w = Math.min(g.x + g.w, tl.cssW) - Math.max(g.x, LABEL_W);
          if (!best || w > best.w) best = { id, x: c.x, y: c.y, w };
          if (w > 200 && it) break;
        }
        return best ? { id: best.id, x: best.x, y: best.y } : null;
      },
      setView(t0, t1) { tl.setView(t0, t1); },
    };
  }
}

// The probe of a Trace view with nothing to draw.
export const EMPTY_PROBE = Object.freeze({
  drawn: 0, visible: null, lastQueryMs: 0, items: 0, flows: 0, selected: null, groups: [],
  toggleGroup() {}, hit() { return null; }, firstItem() { return null; }, setView() {},
});

export { LABEL_W, ROW_H };
