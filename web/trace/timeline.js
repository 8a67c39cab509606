// The canvas timeline of the Trace view.
//
// Rows are the tracks of /api/trace/meta (grouped by process / GPU under
// collapsible headers) below a group of counter rows; a fixed ruler with
// step labels sits on top. Data comes only from /api/trace/window slices:
// the last answer is redrawn immediately (scaled / shifted) while zooming or
// panning, and a new slice (1.5x the visible range) is asked for, debounced,
// with stale requests aborted and out-of-order answers ignored.
import {
  fmtDur, fmtTime, fmtValue, fmtCount, tickStep, tickUnit, fmtTick, colorFor,
} from './format.js';

const LABEL_W = 200;   // label column (css px)
const RULER_H = 22;
const STEP_H = 16;
const ROW_H = 18;      // one nesting level
const TRACK_PAD = 4;
const GROUP_H = 20;
const COUNTER_H = 34;
const MIN_SPAN = 100;  // ns
const FONT = '11px system-ui, -apple-system, "Segoe UI", sans-serif';
const FLOW_COLORS = ['rgba(214, 92, 0, 0.9)', 'rgba(110, 60, 190, 0.9)'];
const COUNTER_COLORS = ['#2a9d8f', '#e76f51', '#457b9d', '#8e44ad', '#d4a017', '#43aa8b'];

function el(tag, cls) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function clamp(x, lo, hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

function isTyping(t) {
  if (!t || !t.tagName) return false;
  const n = t.tagName;
  return n === 'INPUT' || n === 'TEXTAREA' || n === 'SELECT' || t.isContentEditable;
}

export class Timeline {
  // opts: { meta, fetchWindow(params, signal) -> Promise<answer>,
  //         view: {t0, t1} | null, onSelect(id, item|null), onRange(sel|null),
  //         onView(t0, t1), onFirstDraw(), onError(err) }
  constructor(host, opts) {
    this.host = host;
    this.opts = opts;
    this.meta = opts.meta;
    this.full = {
      t0: this.meta.start || 0,
      t1: Math.max((this.meta.end || 0), (this.meta.start || 0) + 1000),
    };
    this.scroller = el('div', 'nns-tl-scroll');
    this.canvas = el('canvas', 'nns-tl-canvas');
    this.canvas.dataset.testid = 'trace-canvas';
    this.canvas.tabIndex = 0;
    this.spacer = el('div', 'nns-tl-spacer');
    this.tip = el('div', 'nns-tl-tip');
    this.tip.hidden = true;
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
    this.installTestHooks();
  }

  dispose() {
    this.disposed = true;
    for (const [t, type, fn, o] of this.handlers) t.removeEventListener(type, fn, o);
    this.handlers = [];
    if (this.ro) this.ro.disconnect();
    clearTimeout(this.fetchTimer);
    this.fetchTimer = 0;
    cancelAnimationFrame(this.keyRaf);
    cancelAnimationFrame(this.drawRaf);
    if (this.inflight) this.inflight.abort();
    this.inflight = null;
    if (window.__nnsTrace && window.__nnsTrace.__owner === this) delete window.__nnsTrace;
  }

  // ---- layout -------------------------------------------------------------

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
  }

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

  fullView() {
    const span = this.full.t1 - this.full.t0;
    return { t0: this.full.t0 - span * 0.01, t1: this.full.t1 + span * 0.01 };
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

  zoomAt(t, f) {
    const span = this.v.t1 - this.v.t0;
    const ns = clamp(span * f, MIN_SPAN, Math.max((this.full.t1 - this.full.t0) * 1.2, MIN_SPAN * 10));
    const t0 = t - (t - this.v.t0) * ns / span;
    this.v = { t0, t1: t0 + ns };
    this.viewChanged();
  }

  panBy(dt) {
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
    const need = (v.t1 - v.t0) / this.timeW;
    return c.res <= need * 1.3 && c.res >= need / 4;
  }

  ensureData() {
    if (this.disposed || !this.cssW) return;
    if (this.covers(this.data) || this.covers(this.pending)) return;
    // at most one request per 40 ms while the view moves (the request is
    // built from the view when the timer fires)
    if (this.fetchTimer) return;
    this.fetchTimer = setTimeout(() => this.fetchNow(), this.data ? 40 : 0);
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
    const px = clamp(Math.round(this.timeW * (q1 - q0) / span), 1, 8192);
    const c0 = q0 <= f.t0 ? -Infinity : q0;
    const c1 = q1 >= f.t1 ? Infinity : q1;
    const cover = { c0, c1, res: (q1 - q0) / px };
    if (this.inflight) this.inflight.abort();
    const ctrl = new AbortController();
    this.inflight = ctrl;
    this.pending = cover;
    const seq = ++this.seq;
    const started = performance.now();
    Promise.resolve()
      .then(() => this.opts.fetchWindow({ t0: q0, t1: q1, px }, ctrl.signal))
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

  // ---- drawing --------------------------------------------------------------

  makeHatch() {
    const c = document.createElement('canvas');
    c.width = 6;
    c.height = 6;
    const g = c.getContext('2d');
    g.strokeStyle = 'rgba(0,0,0,0.45)';
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(0, 6);
    g.lineTo(6, 0);
    g.moveTo(-1, 1);
    g.lineTo(1, -1);
    g.moveTo(5, 7);
    g.lineTo(7, 5);
    g.stroke();
    return this.g.createPattern(c, 'repeat');
  }

  requestDraw() {
    if (this.drawRaf || this.disposed) return;
    this.drawRaf = requestAnimationFrame(() => {
      this.drawRaf = 0;
      this.draw();
    });
  }

  rowTop(row) {
    return this.headerH + row.y - this.scroller.scrollTop;
  }

  fitText(s, w) {
    const g = this.g;
    let tw = this.textW.get(s);
    if (tw === undefined) {
      tw = g.measureText(s).width;
      if (this.textW.size > 20000) this.textW.clear();
      this.textW.set(s, tw);
    }
    if (tw <= w) return s;
    const n = Math.floor(s.length * (w - 8) / tw);
    return n >= 2 ? s.slice(0, n) + '…' : null;
  }

  draw() {
    if (this.disposed || !this.cssW) return;
    const g = this.g;
    const W = this.cssW;
    const H = this.cssH;
    const hdr = this.headerH;
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    g.font = FONT;
    g.textBaseline = 'middle';
    g.fillStyle = '#fff';
    g.fillRect(0, 0, W, H);
    const v = this.v;
    const span = v.t1 - v.t0;
    const k = this.timeW / span;
    const d = this.data;
    const step = tickStep(span / this.timeW, 90);

    // time area: step bands, grid, items, counters, flows, selection
    g.save();
    g.beginPath();
    g.rect(LABEL_W, hdr, W - LABEL_W, H - hdr);
    g.clip();
    const steps = this.meta.steps || [];
    steps.forEach((s, i) => {
      const x0 = Math.max(LABEL_W, this.xOf(s.start));
      const x1 = Math.min(W, this.xOf(s.end));
      if (x1 <= x0) return;
      g.fillStyle = i % 2 ? 'rgba(60, 90, 160, 0.06)' : 'rgba(60, 90, 160, 0.02)';
      g.fillRect(x0, hdr, x1 - x0, H - hdr);
    });
    g.strokeStyle = 'rgba(0,0,0,0.06)';
    g.lineWidth = 1;
    g.beginPath();
    const first = Math.ceil(v.t0 / step) * step;
    for (let i = 0; ; i++) {
      const t = first + i * step;
      if (t > v.t1) break;
      const x = Math.round(this.xOf(t)) + 0.5;
      g.moveTo(x, hdr);
      g.lineTo(x, H);
    }
    g.stroke();

    let nItems = 0;
    for (const row of this.rows) {
      const top = this.rowTop(row);
      if (top + row.h < hdr || top > H) continue;
      if (row.type === 'track') {
        g.fillStyle = '#e6e6e6';
        g.fillRect(LABEL_W, top + row.h - 1, W - LABEL_W, 1);
        if (d) nItems += this.drawTrack(row, top, d, k, hdr, H);
      } else if (row.type === 'counter') {
        g.fillStyle = '#eee';
        g.fillRect(LABEL_W, top + row.h - 1, W - LABEL_W, 1);
        if (d) this.drawCounter(row, top, d);
      }
    }
    this.stats.items = nItems;
    this.stats.flows = d && this.showFlows ? this.drawFlows(d) : 0;
    this.drawSelection();
    this.drawRange(hdr, H);
    g.restore();

    this.drawLabels(hdr, W, H);
    this.drawRuler(step, W);
    if (d && d !== this.lastDrawnData) {
      this.lastDrawnData = d;
      this.stats.drawn++;
      if (!this.firstDrawn) {
        this.firstDrawn = true;
        try { performance.mark('nns-trace-first-draw'); } catch (e) { /* ignore */ }
        if (this.opts.onFirstDraw) this.opts.onFirstDraw();
      }
    }
  }

  drawTrack(row, top, d, k, hdr, H) {
    const items = d.trackItems.get(row.track.id);
    if (!items) return 0;
    const g = this.g;
    const W = this.cssW;
    const t0 = this.v.t0;
    const merged = [];
    let n = 0;
    const texts = [];
    for (let i = 0; i < items.length; i++) {
      const it = items[i];
      let x = LABEL_W + (it[0] - t0) * k;
      let w = it[1] * k;
      if (x > W || x + w < LABEL_W) continue;
      const y = top + 2 + it[2] * ROW_H;
      if (y + ROW_H < hdr || y > H) continue;
      n++;
      if (w < 1) w = 1;
      if (it[4] < 0) {
        merged.push(x, y, w);
        continue;
      }
      g.fillStyle = d.colors[it[3]] || '#ccc';
      g.fillRect(x, y, w, ROW_H - 1);
      if (w > 4) {
        g.fillStyle = 'rgba(0,0,0,0.18)';
        g.fillRect(x + w - 1, y, 1, ROW_H - 1);
      }
      if (w >= 24) {
        const x0 = Math.max(x, LABEL_W);
        const vis = Math.min(x + w, W) - x0;
        if (vis >= 24) texts.push(x0 + 3, y + ROW_H / 2, vis - 6, it[3]);
      }
    }
    if (merged.length) {
      g.fillStyle = 'rgba(120, 130, 150, 0.45)';
      for (let i = 0; i < merged.length; i += 3) g.fillRect(merged[i], merged[i + 1] + 3, merged[i + 2], ROW_H - 7);
      g.fillStyle = this.hatch;
      for (let i = 0; i < merged.length; i += 3) g.fillRect(merged[i], merged[i + 1] + 3, merged[i + 2], ROW_H - 7);
    }
    if (texts.length) {
      g.fillStyle = '#1b1b1b';
      for (let i = 0; i < texts.length; i += 4) {
        const s = this.fitText(d.names[texts[i + 3]] || '', texts[i + 2]);
        if (s) g.fillText(s, texts[i], texts[i + 1]);
      }
    }
    return n;
  }

  drawCounter(row, top, d) {
    const c = d.counters.get(row.counter.id);
    if (!c || !c.points.length) return;
    const g = this.g;
    const unit = row.counter.unit;
    let max = unit === 'ratio' ? Math.max(1, c.max) : unit === 'percent' ? Math.max(100, c.max) : c.max;
    if (!(max > 0)) max = 1;
    const base = top + row.h - 2;
    const hh = row.h - 6;
    const pts = c.points;
    const W = this.cssW;
    g.beginPath();
    g.moveTo(Math.max(LABEL_W - 1, this.xOf(pts[0][0])), base);
    let lastY = base;
    for (let i = 0; i < pts.length; i++) {
      const x = this.xOf(pts[i][0]);
      const y = base - hh * clamp(pts[i][1] / max, 0, 1);
      if (i > 0) g.lineTo(x, lastY);
      g.lineTo(x, y);
      lastY = y;
      if (x > W) break;
    }
    const xe = Math.min(W + 1, this.xOf(d.t1));
    g.lineTo(xe, lastY);
    g.lineTo(xe, base);
    g.closePath();
    g.globalAlpha = 0.35;
    g.fillStyle = row.color;
    g.fill();
    g.globalAlpha = 1;
    g.strokeStyle = row.color;
    g.lineWidth = 1;
    g.stroke();
    row.max = max;
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

  drawFlows(d) {
    const g = this.g;
    const sel = this.selected;
    const list = [];
    const seen = new Set();
    for (const f of d.flows) {
      if (this.allFlows || (sel && (f[0] === sel.id || f[1] === sel.id))) {
        list.push(f);
        seen.add(f[0] + ':' + f[1]);
      }
    }
    // the selected event's links that the window's flows did not carry
    if (sel && sel.links) {
      for (const l of sel.links) {
        let f = null;
        if (l.rel === 'kernel' || l.rel === 'backward') f = [sel.id, l.id, l.rel === 'kernel' ? 0 : 1];
        else if (l.rel === 'launch' || l.rel === 'launcher' || l.rel === 'forward') f = [l.id, sel.id, l.rel === 'forward' ? 1 : 0];
        if (f && !seen.has(f[0] + ':' + f[1])) {
          seen.add(f[0] + ':' + f[1]);
          list.push(f);
        }
      }
    }
    let n = 0;
    g.lineWidth = 1.3;
    for (const [from, to, kind] of list) {
      const a = this.geomFor(from, d);
      const b = this.geomFor(to, d);
      if (!a || !b) continue;
      const x0 = a.x + Math.min(a.w, 3);
      const y0 = a.y + ROW_H / 2;
      const x1 = b.x;
      const y1 = b.y + ROW_H / 2;
      const c = Math.max(24, Math.abs(x1 - x0) * 0.5);
      const col = FLOW_COLORS[kind] || FLOW_COLORS[0];
      const mine = sel && (from === sel.id || to === sel.id);
      g.globalAlpha = mine || !this.allFlows ? 1 : 0.45;
      g.lineWidth = mine ? 1.6 : 1;
      g.strokeStyle = col;
      g.fillStyle = col;
      g.beginPath();
      g.moveTo(x0, y0);
      g.bezierCurveTo(x0 + c, y0, x1 - c, y1, x1, y1);
      g.stroke();
      g.beginPath();
      g.moveTo(x1, y1);
      g.lineTo(x1 - 7, y1 - 3.5);
      g.lineTo(x1 - 7, y1 + 3.5);
      g.closePath();
      g.fill();
      g.beginPath();
      g.arc(x0, y0, 2, 0, Math.PI * 2);
      g.fill();
      n++;
    }
    g.globalAlpha = 1;
    return n;
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

  drawSelection() {
    const s = this.selected;
    if (!s || s.start == null) return;
    const row = this.trackRow.get(s.track);
    if (!row) return;
    const g = this.g;
    const x = this.xOf(s.start);
    const w = Math.max(2, this.xOf(s.start + (s.dur || 0)) - x);
    const y = this.rowTop(row) + 2 + (s.depth || 0) * ROW_H;
    g.lineWidth = 2;
    g.strokeStyle = '#111';
    g.strokeRect(x - 1, y - 1, w + 2, ROW_H + 1);
    g.lineWidth = 1;
    g.strokeStyle = '#fff';
    g.strokeRect(x + 0.5, y + 0.5, Math.max(1, w - 1), ROW_H - 2);
  }

  drawRange(hdr, H) {
    const g = this.g;
    const st = this.scroller.scrollTop;
    const b = this.box || this.range;
    if (!b) return;
    const x0 = this.xOf(Math.min(b.t0, b.t1));
    const x1 = this.xOf(Math.max(b.t0, b.t1));
    g.fillStyle = 'rgba(40, 110, 220, 0.08)';
    g.fillRect(x0, hdr, x1 - x0, H - hdr);
    const y0 = hdr + Math.min(b.y0, b.y1) - st;
    const y1 = hdr + Math.max(b.y0, b.y1) - st;
    g.fillStyle = 'rgba(40, 110, 220, 0.12)';
    g.fillRect(x0, y0, x1 - x0, y1 - y0);
    g.strokeStyle = 'rgba(40, 110, 220, 0.9)';
    g.lineWidth = 1;
    g.strokeRect(Math.round(x0) + 0.5, Math.round(y0) + 0.5, Math.round(x1 - x0), Math.round(y1 - y0));
  }

  drawLabels(hdr, W, H) {
    const g = this.g;
    g.save();
    g.beginPath();
    g.rect(0, hdr, W, H - hdr);
    g.clip();
    g.fillStyle = '#f7f8fa';
    g.fillRect(0, hdr, LABEL_W, H - hdr);
    for (const row of this.rows) {
      const top = this.rowTop(row);
      if (top + row.h < hdr || top > H) continue;
      if (row.type === 'group') {
        g.fillStyle = '#e9edf3';
        g.fillRect(0, top, W, row.h);
        g.fillStyle = '#cfd6e0';
        g.fillRect(0, top + row.h - 1, W, 1);
        const open = !this.collapsed.has(row.key);
        g.fillStyle = '#445';
        g.beginPath();
        if (open) {
          g.moveTo(8, top + 7); g.lineTo(16, top + 7); g.lineTo(12, top + 13);
        } else {
          g.moveTo(9, top + 6); g.lineTo(15, top + 10); g.lineTo(9, top + 14);
        }
        g.fill();
        g.font = 'bold ' + FONT;
        g.fillStyle = '#223';
        const label = `${row.name}${row.n > 1 ? `  (${row.n})` : ''}`;
        g.fillText(this.fitText(label, W - 30) || '', 22, top + row.h / 2);
        g.font = FONT;
      } else if (row.type === 'track') {
        g.fillStyle = '#e3e3e3';
        g.fillRect(0, top + row.h - 1, LABEL_W, 1);
        g.fillStyle = '#333';
        const s = this.fitText(row.track.name || `Track ${row.track.id}`, LABEL_W - 22);
        if (s) g.fillText(s, 14, top + Math.min(row.h, ROW_H + TRACK_PAD) / 2);
      } else if (row.type === 'counter') {
        g.fillStyle = '#e3e3e3';
        g.fillRect(0, top + row.h - 1, LABEL_W, 1);
        g.fillStyle = '#333';
        const s = this.fitText(row.counter.name, LABEL_W - 22);
        if (s) g.fillText(s, 14, top + 11);
        if (row.max != null) {
          g.fillStyle = '#888';
          g.fillText(`max ${fmtValue(row.max, row.counter.unit)}`, 14, top + 25);
        }
        g.fillStyle = row.color;
        g.fillRect(4, top + 6, 4, row.h - 12);
      }
    }
    g.fillStyle = '#d5d9df';
    g.fillRect(LABEL_W - 1, hdr, 1, H - hdr);
    if (!this.rows.some((r) => r.type === 'track') && this.contentH + hdr < H) {
      g.fillStyle = '#999';
      g.fillText('All groups are collapsed.', LABEL_W + 12, hdr + this.contentH + 16);
    }
    g.restore();
  }

  drawRuler(step, W) {
    const g = this.g;
    const v = this.v;
    g.fillStyle = '#f3f4f6';
    g.fillRect(0, 0, W, this.headerH);
    g.fillStyle = '#cfd3d9';
    g.fillRect(0, this.headerH - 1, W, 1);
    g.fillRect(LABEL_W - 1, 0, 1, this.headerH);
    const base = this.full.t0;
    const unit = tickUnit(step);
    const first = Math.ceil((v.t0 - base) / step) * step + base;
    const ticks = [];
    for (let i = 0; ; i++) {
      const t = first + i * step;
      if (t > v.t1) break;
      ticks.push(t);
    }
    let rel = null;
    const long = ticks.some((t) => fmtTick(t - base, unit).length > 11);
    if (long && ticks.length) rel = ticks[0];
    g.save();
    g.beginPath();
    g.rect(LABEL_W, 0, W - LABEL_W, this.headerH);
    g.clip();
    g.strokeStyle = '#9aa1ab';
    g.lineWidth = 1;
    g.beginPath();
    const minor = step / 5;
    const mfirst = Math.ceil((v.t0 - base) / minor) * minor + base;
    for (let i = 0; ; i++) {
      const t = mfirst + i * minor;
      if (t > v.t1) break;
      const x = Math.round(this.xOf(t)) + 0.5;
      g.moveTo(x, RULER_H - 4);
      g.lineTo(x, RULER_H);
    }
    for (const t of ticks) {
      const x = Math.round(this.xOf(t)) + 0.5;
      g.moveTo(x, 2);
      g.lineTo(x, RULER_H);
    }
    g.stroke();
    g.fillStyle = '#333';
    g.font = FONT;
    g.textBaseline = 'middle';
    for (const t of ticks) {
      const x = this.xOf(t);
      const s = rel == null ? fmtTick(t - base, unit) : (t === rel ? fmtTick(0, unit) : '+' + fmtTick(t - rel, unit));
      g.fillText(s, x + 3, RULER_H / 2);
    }
    // steps
    const steps = this.meta.steps || [];
    if (steps.length) {
      const y = RULER_H;
      steps.forEach((s, i) => {
        const x0 = this.xOf(s.start);
        const x1 = this.xOf(s.end);
        if (x1 < LABEL_W || x0 > W) return;
        g.fillStyle = i % 2 ? '#dbe3f1' : '#e9eef7';
        g.fillRect(x0, y, x1 - x0, STEP_H - 1);
        g.fillStyle = '#9fb0cc';
        g.fillRect(Math.round(x0), y, 1, STEP_H - 1);
        const vx0 = Math.max(x0, LABEL_W);
        const vw = Math.min(x1, W) - vx0;
        const lab = this.fitText(`Step ${s.name}`, vw - 6);
        if (lab) {
          g.fillStyle = '#2c3e60';
          g.fillText(lab, vx0 + 3, y + STEP_H / 2);
        }
      });
    }
    g.restore();
    g.fillStyle = '#555';
    const lab = rel == null ? `span ${fmtDur(v.t1 - v.t0)}` : `@ ${fmtTime(rel - base)}`;
    g.fillText(lab, 8, RULER_H / 2);
    if (steps.length) {
      g.fillStyle = '#777';
      g.fillText('Steps', 8, RULER_H + STEP_H / 2);
    }
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
        this.showTip(e, [[`${fmtCount(-it[4])} events`, true], [`first: ${hit.name}`], [`span ${fmtDur(it[1])} at ${fmtTime(it[0] - this.full.t0)}`], ['click to zoom in', false, true]]);
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
      this.showTip(e, [[t.name, true], [t.group || ''], [`${fmtCount(t.events || 0)} events, ${t.kind || 'track'}`]]);
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
      const d = el('div', bold ? 'nns-tl-tip-b' : dim ? 'nns-tl-tip-d' : '');
      d.textContent = text;
      tip.append(d);
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

  // ---- test hooks ------------------------------------------------------------

  installTestHooks() {
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
    window.__nnsTrace = {
      __owner: tl,
      get drawn() { return tl.stats.drawn; },
      get visible() { return { t0: tl.v.t0, t1: tl.v.t1 }; },
      get lastQueryMs() { return tl.stats.lastQueryMs; },
      get items() { return tl.stats.items; },
      get flows() { return tl.stats.flows; },
      get selected() { return tl.selected ? tl.selected.id : null; },
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

export { LABEL_W, ROW_H };
