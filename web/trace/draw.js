// Rendering of one frame of the Trace timeline (web/trace/timeline.js)
// onto its canvas: step bands and grid, track items (merged blocks
// hatched, names where they fit), counter areas, flow arrows, the selected
// event, the box / range selection, the label column with group headers,
// and the ruler with step labels on top. Reads the Timeline's state and
// never changes the view or asks for data. TimelineDraw extends
// TimelineLayout and is the base of Timeline (web/trace/timeline.js).
import {
  fmtDur, fmtTime, fmtValue, tickStep, tickUnit, fmtTick,
} from './format.js';
import { LABEL_W, RULER_H, STEP_H, ROW_H, TRACK_PAD, clamp, TimelineLayout } from './layout.js';

const FONT = '11px system-ui, -apple-system, "Segoe UI", sans-serif';
const FLOW_COLORS = ['rgba(214, 92, 0, 0.9)', 'rgba(110, 60, 190, 0.9)'];

// Frame rendering on the row geometry of TimelineLayout; the base class of Timeline.
export class TimelineDraw extends TimelineLayout {
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
    if (this.critOverlay && this.critical) this.critOverlay(this); // web/trace/critpath.js
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
}
