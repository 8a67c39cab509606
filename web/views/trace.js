// Trace view: nnscope's own canvas timeline (web/trace/timeline.js) with a
// toolbar, an event details panel and a box-selection summary.
// Data: /api/trace/meta, /api/trace/window, /api/trace/event,
// /api/trace/summary (docs/SERVER.md, "Trace API"), fetched with the shell's
// ctx.api (202 polling and the progress bar in one place, web/app.js).
// A live run (ctx.live: its trace is being written) answers from snapshots
// of the file that the server takes again as it grows: every LIVE_META_MS
// the view asks for the meta again and, when it changed, draws the new
// extent; a view that showed the end of the trace moves with it (same
// width, the newest events), one the user zoomed or panned away from the
// end stays where it is ("Follow the end" brings it back).
import { h, fmtInt } from '../lib/util.js';
import { Timeline, EMPTY_PROBE } from '../trace/timeline.js';
import { fmtDur, fmtTime, colorFor } from '../trace/format.js';
import { attachCriticalPath } from '../trace/critpath.js';
import { msprofControls } from '../trace/msprof.js';

const CSS_HREF = new URL('../trace/trace.css', import.meta.url).href;
const LIVE_META_MS = 2000;

function ensureCss() {
  if (document.querySelector('link[data-nns-trace-css]')) return;
  const l = document.createElement('link');
  l.rel = 'stylesheet';
  l.href = CSS_HREF;
  l.dataset.nnsTraceCss = '1';
  document.head.append(l);
}

function argText(v) {
  if (v == null) return '';
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

class TraceView {
  constructor(el, ctx) {
    this.el = el;
    this.ctx = ctx;
    this.alive = true;
    this.tl = null;
    this.evCtrl = null;
    this.sumCtrl = null;
    this.hashTimer = 0;
    this.base = { run: ctx.run || '', worker: ctx.worker || '' };
    if (ctx.span) this.base.span = ctx.span;
    if (ctx.params && ctx.params.timeline) this.base.timeline = ctx.params.timeline;
    this.sumSort = { key: 'total', desc: true };
  }

  params(extra) {
    return { ...this.base, ...extra };
  }

  async start() {
    ensureCss();
    // The shell's view root already carries data-testid="view-trace" (and
    // gets data-loaded when render() resolves); without a shell, ours does.
    const shellRoot = this.el.dataset && this.el.dataset.testid === 'view-trace';
    const root = h('div', { class: 'nns-trace', testid: shellRoot ? null : 'view-trace' });
    this.root = root;
    this.top = shellRoot ? this.el : root;
    this.el.append(root);
    this.firstDraw = new Promise((resolve) => { this.firstDrawDone = resolve; });
    if (!this.ctx.run || !this.ctx.worker) {
      this.empty('No run selected', 'Pick a run and a worker to see its timeline.');
      return;
    }
    root.append(h('div', { class: 'nns-trace-loading', text: 'Loading the trace…' }));
    let meta;
    try {
      meta = await this.ctx.api('/api/trace/meta', this.params());
    } catch (err) {
      if (!this.alive) return;
      root.replaceChildren(h('div', { class: 'nns-trace-error', text: `Could not load the trace: ${err.message || err}` }));
      this.loaded();
      return;
    }
    if (!this.alive) return;
    this.meta = meta;
    root.replaceChildren();
    if (!meta || !meta.tracks || !meta.tracks.length) {
      this.empty('This trace has no events',
        'The profiler recorded no CPU or GPU activity for this worker and span, so there is nothing to draw. '
        + 'Check that profiling was active during the steps you captured (schedule, warm-up) or pick another span.');
      return;
    }
    this.buildUi();
    // resolve render() once the first window is drawn (the shell marks the
    // view loaded then); give up waiting after 20 s
    await Promise.race([this.firstDraw, new Promise((r) => { this.loadTimer = setTimeout(r, 20000); })]);
    clearTimeout(this.loadTimer);
  }

  // Shows another view of an msprof rank: the timeline again from its meta,
  // the choice kept in the page's address (timeline=, read back by the
  // constructor on a load of that address).
  reload(timeline) {
    this.dispose();
    this.alive = true;
    this.base.timeline = timeline;
    this.updateHash({ timeline });
    return this.start();
  }

  loaded() {
    if (this.top) this.top.dataset.loaded = '1';
    if (this.root) this.root.dataset.loaded = '1';
    if (this.firstDrawDone) this.firstDrawDone();
  }

  empty(title, text) {
    this.root.replaceChildren(h('div', { class: 'nns-trace-empty', testid: 'empty-state' },
      h('h3', { text: title }), h('p', { text })));
    this.loaded();
    this.publishProbe(EMPTY_PROBE);
  }

  // The browser tests read the timeline's probe (Timeline.probe()) as
  // window.__nnsTrace; this is the one place that sets it, and dispose()
  // takes it back.
  publishProbe(probe) {
    this.probe = probe;
    window.__nnsTrace = probe;
  }

  buildUi() {
    const meta = this.meta;
    const root = this.root;
    this.flowsShow = h('input', { type: 'checkbox', checked: true, testid: 'trace-flows-show' });
    this.flowsAll = h('input', { type: 'checkbox', testid: 'trace-flows-toggle' });
    const onFlows = () => this.tl && this.tl.setFlows(this.flowsShow.checked, this.flowsAll.checked);
    this.flowsShow.addEventListener('change', () => {
      if (!this.flowsShow.checked) this.flowsAll.checked = false;
      onFlows();
    });
    this.flowsAll.addEventListener('change', () => {
      if (this.flowsAll.checked) this.flowsShow.checked = true;
      onFlows();
    });
    this.selBtn = h('button', { type: 'button', 'aria-pressed': 'false', testid: 'trace-select-mode', title: 'Drag to select a time range (or hold Shift while dragging)' }, 'Select');
    this.selBtn.addEventListener('click', () => {
      const on = this.selBtn.getAttribute('aria-pressed') !== 'true';
      this.selBtn.setAttribute('aria-pressed', String(on));
      this.tl.setSelectMode(on);
    });
    const reset = h('button', { type: 'button', testid: 'trace-reset', title: 'Show the whole trace (0)' }, 'Reset zoom');
    reset.addEventListener('click', () => this.tl.reset());
    // a live run: the view follows the end while it shows it
    this.liveEl = this.ctx.live ? h('span', { class: 'nns-trace-live', testid: 'trace-live' }) : null;
    this.followBtn = this.ctx.live ? h('button', { type: 'button', testid: 'trace-live-follow', title: 'Show the newest events and follow them as the trace grows' }, 'Follow the end') : null;
    if (this.followBtn) this.followBtn.addEventListener('click', () => this.followEnd());
    this.info = h('span', { class: 'nns-trace-info' });
    const help = h('span', { class: 'nns-trace-help' },
      h('kbd', {}, 'W'), '/', h('kbd', {}, 'S'), ' zoom · ', h('kbd', {}, 'A'), '/', h('kbd', {}, 'D'),
      ' pan · wheel zoom · drag pan · ', h('kbd', {}, 'Shift'), '+drag select · ', h('kbd', {}, 'F'), ' fit selection');
    // an msprof timeline rank: its views (web/trace/msprof.js)
    const ms = meta.msprof ? msprofControls(meta.msprof, (v) => this.reload(v)) : '';
    const bar = h('div', { class: 'nns-trace-bar' },
      ms, this.liveEl, this.followBtn, reset, this.selBtn,
      h('label', { title: 'Arrows op→kernel and forward→backward of the selected event' }, this.flowsShow, 'Flows'),
      h('label', { title: 'Show every flow arrow, not only those of the selected event' }, this.flowsAll, 'All flows'),
      this.statsEl = h('span', { class: 'nns-trace-info', testid: 'trace-stats', text: this.statsText(meta) }),
      this.info, help);
    this.errBox = h('div', { class: 'nns-trace-error', hidden: true });
    const main = h('div', { class: 'nns-trace-main' });
    this.details = h('section', { class: 'nns-trace-details', testid: 'trace-details', hidden: true });
    this.summary = h('section', { class: 'nns-trace-summary', testid: 'trace-summary-panel', hidden: true });
    const panel = h('div', { class: 'nns-trace-panel' }, this.details, this.summary);
    root.append(bar, this.errBox, main, panel);
    this.main = main;
    this.fitHeight();
    this.onResize = () => this.fitHeight();
    window.addEventListener('resize', this.onResize);
    this.panelRo = new ResizeObserver(() => this.fitHeight());
    this.panelRo.observe(panel);

    const p = this.ctx.params || {};
    const t0 = p.t0 != null && p.t0 !== '' ? Number(p.t0) : NaN;
    const t1 = p.t1 != null && p.t1 !== '' ? Number(p.t1) : NaN;
    this.tl = new Timeline(main, {
      meta,
      view: isFinite(t0) && isFinite(t1) && t1 > t0 ? { t0, t1 } : null,
      fetchWindow: (q, signal) => this.ctx.api('/api/trace/window', this.params(q), signal),
      onSelect: (id, item) => this.select(id, item, false),
      onRange: (sel) => this.loadSummary(sel),
      onView: (a, b) => this.viewChanged(a, b),
      onFirstDraw: () => this.loaded(),
      onError: (err) => { this.showError(err); this.loaded(); },
      onLayout: () => this.fitHeight(),
      onEscape: () => { this.select(null); this.summary.hidden = true; },
    });
    this.publishProbe(this.tl.probe());
    attachCriticalPath(this, bar);
    this.fitHeight();
    this.viewChanged(this.tl.v.t0, this.tl.v.t1);
    if (p.ev != null && p.ev !== '' && isFinite(Number(p.ev))) this.select(Number(p.ev), null, true);
    if (this.ctx.live) this.startLive();
  }

  statsText(meta) {
    const stepCount = (meta.steps || []).length;
    return `${fmtInt(meta.events || 0)} events · ${meta.tracks.length} tracks${stepCount ? ` · ${stepCount} steps` : ''} · ${fmtDur((meta.end || 0) - (meta.start || 0))}`;
  }

  // ---- a live run ----------------------------------------------------------------

  // Whether the view shows the end of the trace (within 2 % of its width):
  // then it follows the trace as it grows.
  atEnd() {
    const v = this.tl.v;
    return v.t1 >= (this.meta.end || 0) - (v.t1 - v.t0) * 0.02;
  }

  showLiveState() {
    if (!this.liveEl) return;
    const follow = this.atEnd();
    this.liveEl.textContent = follow ? 'LIVE · following the end' : 'LIVE · paused here';
    this.liveEl.dataset.follow = follow ? '1' : '';
    this.followBtn.hidden = follow;
  }

  followEnd() {
    const v = this.tl.v;
    const end = this.meta.end || 0;
    this.tl.setView(end - (v.t1 - v.t0), end);
  }

  startLive() {
    this.showLiveState();
    const tick = async () => {
      if (!this.alive) return;
      if (!document.hidden && !this.liveCtrl) {
        const ctrl = new AbortController();
        this.liveCtrl = ctrl;
        try {
          const meta = await this.ctx.api('/api/trace/meta', this.params(), ctrl.signal);
          if (this.alive && !ctrl.signal.aborted) this.liveMeta(meta);
        } catch { /* the next tick asks again; the run may have just ended */ }
        if (this.liveCtrl === ctrl) this.liveCtrl = null;
      }
      if (this.alive) this.liveTimer = setTimeout(tick, LIVE_META_MS);
    };
    this.liveTimer = setTimeout(tick, LIVE_META_MS);
  }

  // The meta of a newer snapshot: the same view, moved to the new end when
  // it showed the end.
  liveMeta(meta) {
    if (!meta || !meta.tracks || !meta.tracks.length || !this.tl) return;
    if (meta.end === this.meta.end && meta.events === this.meta.events && meta.tracks.length === this.meta.tracks.length) return;
    const v = this.tl.v;
    const follow = this.atEnd();
    const end = meta.end || 0;
    this.meta = meta;
    this.tl.setMeta(meta, follow ? { t0: end - (v.t1 - v.t0), t1: end } : null);
    this.statsEl.textContent = this.statsText(meta);
    this.publishProbe(this.tl.probe());
    this.showLiveState();
  }

  // Make the view fill the window below its top, leaving room for the panel.
  fitHeight() {
    if (!this.alive || !this.root || !this.main) return;
    const top = this.main.getBoundingClientRect().top + window.scrollY;
    const panel = this.details.hidden && this.summary.hidden ? 0 : Math.min(window.innerHeight * 0.38, 280) + 8;
    let hgt = Math.max(260, window.innerHeight - top - panel - 12);
    if (this.tl) hgt = Math.min(hgt, Math.max(160, this.tl.preferredHeight));
    this.main.style.height = `${Math.round(hgt)}px`;
  }

  showError(err) {
    this.errBox.textContent = `Trace query failed: ${err && err.message ? err.message : err}`;
    this.errBox.hidden = false;
    clearTimeout(this.errTimer);
    this.errTimer = setTimeout(() => { this.errBox.hidden = true; }, 8000);
  }

  viewChanged(t0, t1) {
    if (this.liveEl && this.tl) this.showLiveState();
    if (this.info) this.info.textContent = `view ${fmtTime(t0 - (this.meta.start || 0))} – ${fmtTime(t1 - (this.meta.start || 0))} (${fmtDur(t1 - t0)})`;
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => this.updateHash({ t0: Math.round(t0), t1: Math.round(t1) }), 250);
  }

  updateHash(set) {
    if (!this.alive) return;
    if (this.ctx.setParams) {
      // the shell records view state in the hash without re-rendering
      const cur = this.ctx.params || {};
      if (Object.entries(set).every(([k, v]) => (v == null ? cur[k] == null || cur[k] === '' : String(cur[k]) === String(v)))) return;
      this.ctx.setParams(set, true);
      return;
    }
    const hp = new URLSearchParams(location.hash.replace(/^#/, ''));
    const view = hp.get('view');
    if (view && view !== 'trace') return;
    for (const [k, v] of Object.entries(set)) {
      if (v == null) hp.delete(k);
      else hp.set(k, String(v));
    }
    const next = '#' + hp.toString();
    if (next !== location.hash) history.replaceState(history.state, '', next);
  }

  // ---- details ---------------------------------------------------------------

  async select(id, item, reveal) {
    if (this.evCtrl) this.evCtrl.abort();
    this.evCtrl = null;
    if (id == null) {
      this.details.hidden = true;
      this.tl.setSelected(null);
      this.updateHash({ ev: null });
      this.fitHeight();
      return;
    }
    this.updateHash({ ev: id });
    const d = this.details;
    d.hidden = false;
    this.fitHeight();
    const nameEl = h('span', { class: 'nns-trace-title', testid: 'trace-details-name', text: (item && item.name) || `event ${id}` });
    d.replaceChildren(this.panelHead(nameEl, h('span', { class: 'nns-trace-sub', text: 'loading…' }), () => this.select(null)));
    const ctrl = new AbortController();
    this.evCtrl = ctrl;
    let ev;
    try {
      ev = await this.ctx.api('/api/trace/event', this.params({ id }), ctrl.signal);
    } catch (err) {
      if (!this.alive || ctrl.signal.aborted) return;
      d.replaceChildren(this.panelHead(nameEl, null, () => this.select(null)),
        h('div', { class: 'nns-trace-error', text: `Could not load event ${id}: ${err.message || err}` }));
      return;
    }
    if (!this.alive || ctrl.signal.aborted) return;
    this.evCtrl = null;
    this.tl.setSelected(ev);
    if (reveal) this.tl.reveal(ev);
    this.renderDetails(ev);
  }

  panelHead(title, sub, onClose) {
    return h('div', { class: 'nns-trace-phead' }, title, sub,
      h('button', { type: 'button', title: 'Close', 'aria-label': 'Close', onclick: onClose }, '×'));
  }

  renderDetails(ev) {
    const meta = this.meta;
    const base = meta.start || 0;
    const track = meta.tracks.find((t) => t.id === ev.track);
    const name = h('span', { class: 'nns-trace-title', testid: 'trace-details-name' },
      h('span', { class: 'nns-trace-swatch', style: `background:${colorFor(ev.name)}` }), ev.name || '');
    const rows = [
      ['Category', ev.cat],
      ['Track', track ? `${track.group ? track.group + ' / ' : ''}${track.name}` : ev.track],
      ['Start', fmtTime(ev.start - base)],
      ['Duration', fmtDur(ev.dur)],
      ['End', fmtTime(ev.start + ev.dur - base)],
      ['Depth', ev.depth],
      ['Id', ev.id],
    ];
    const kv = h('table', { class: 'nns-trace-kv' },
      h('tbody', {}, rows.filter((r) => r[1] != null && r[1] !== '').map(([k, v]) => h('tr', {}, h('th', { text: k }), h('td', { text: String(v) })))));
    const kids = [this.panelHead(name, h('span', { class: 'nns-trace-sub', text: fmtDur(ev.dur) }), () => this.select(null)), kv];
    const args = Object.entries(ev.args || {});
    if (args.length) {
      kids.push(h('div', { class: 'nns-trace-h', text: 'Arguments' }));
      kids.push(h('table', { class: 'nns-trace-kv', testid: 'trace-details-args' }, h('tbody', {}, args.map(([k, v]) => {
        const s = argText(v);
        return h('tr', {}, h('th', { text: k }), h('td', {}, s.includes('\n') || s.length > 160 ? h('pre', { text: s }) : s));
      }))));
    }
    const links = ev.links || [];
    if (links.length) {
      kids.push(h('div', { class: 'nns-trace-h', text: 'Related events' }));
      kids.push(h('ul', { class: 'nns-trace-links', testid: 'trace-details-links' }, links.map((l) => {
        const a = h('a', { href: '#', 'data-id': l.id, text: l.name || `event ${l.id}` });
        a.addEventListener('click', (e) => {
          e.preventDefault();
          this.tl.setSelected({ ...l, depth: undefined });
          this.tl.reveal(l);
          this.select(l.id, { name: l.name }, true);
        });
        const tr = meta.tracks.find((t) => t.id === l.track);
        return h('li', {}, h('span', { class: 'nns-trace-rel', text: `${l.rel}: ` }), a,
          h('span', { class: 'nns-trace-rel', text: ` · ${fmtDur(l.dur)}${tr ? ' · ' + tr.name : ''}` }));
      })));
    }
    this.details.replaceChildren(...kids);
  }

  // ---- selection summary -------------------------------------------------------

  async loadSummary(sel) {
    if (this.sumCtrl) this.sumCtrl.abort();
    const ctrl = new AbortController();
    this.sumCtrl = ctrl;
    const s = this.summary;
    s.hidden = false;
    this.fitHeight();
    s.replaceChildren(this.panelHead(h('span', { class: 'nns-trace-title', text: `Selection ${fmtDur(sel.t1 - sel.t0)}` }),
      h('span', { class: 'nns-trace-sub', text: 'loading…' }), () => this.closeSummary()));
    const q = { t0: sel.t0, t1: sel.t1 };
    if (sel.tracks && sel.tracks.length && sel.tracks.length < this.meta.tracks.length) q.tracks = sel.tracks.join(',');
    let ans;
    try {
      ans = await this.ctx.api('/api/trace/summary', this.params(q), ctrl.signal);
    } catch (err) {
      if (!this.alive || ctrl.signal.aborted) return;
      s.append(h('div', { class: 'nns-trace-error', text: `Summary failed: ${err.message || err}` }));
      return;
    }
    if (!this.alive || ctrl.signal.aborted) return;
    this.sumCtrl = null;
    this.sum = { sel, ans };
    this.renderSummary();
  }

  closeSummary() {
    if (this.sumCtrl) this.sumCtrl.abort();
    this.summary.hidden = true;
    this.tl.clearRange();
    this.fitHeight();
  }

  renderSummary() {
    const { sel, ans } = this.sum;
    const base = this.meta.start || 0;
    const rows = (ans.rows || []).slice();
    const { key, desc } = this.sumSort;
    rows.sort((a, b) => {
      const x = a[key];
      const y = b[key];
      const c = typeof x === 'string' ? String(x).localeCompare(String(y)) : (x || 0) - (y || 0);
      return desc ? -c : c;
    });
    // total is clipped to the selected range, min and max are whole event
    // durations: no average of the two, which could fall below the minimum
    const cols = [['name', 'Name'], ['cat', 'Category'], ['count', 'Count', 1], ['total', 'Total in range', 1], ['min', 'Min duration', 1], ['max', 'Max duration', 1]];
    const head = h('tr', {}, cols.map(([k, label, num]) => {
      const th = h('th', { class: num ? 'num' : '', text: label + (k === key ? (desc ? ' ▼' : ' ▲') : '') });
      th.addEventListener('click', () => {
        this.sumSort = { key: k, desc: k === key ? !desc : !!num };
        this.renderSummary();
      });
      return th;
    }));
    const body = rows.map((r) => h('tr', {},
      h('td', { class: 'name', title: r.name }, h('span', { class: 'nns-trace-swatch', style: `background:${colorFor(r.name)}` }), r.name),
      h('td', { text: r.cat || '' }),
      h('td', { class: 'num', text: fmtInt(r.count) }),
      h('td', { class: 'num', text: fmtDur(r.total) }),
      h('td', { class: 'num', text: fmtDur(r.min) }),
      h('td', { class: 'num', text: fmtDur(r.max) })));
    const table = h('table', { class: 'nns-trace-sum', testid: 'trace-summary' }, h('thead', {}, head), h('tbody', {}, body));
    const ntr = sel.tracks ? sel.tracks.length : this.meta.tracks.length;
    const sub = `${fmtTime(sel.t0 - base)} – ${fmtTime(sel.t1 - base)} · ${fmtInt(ans.events || 0)} events · ${ntr} track${ntr === 1 ? '' : 's'}`;
    const kids = [this.panelHead(h('span', { class: 'nns-trace-title', text: `Selection ${fmtDur(sel.t1 - sel.t0)}` }),
      h('span', { class: 'nns-trace-sub', text: sub }), () => this.closeSummary()), table];
    if (!rows.length) kids.push(h('div', { class: 'nns-trace-sub', text: 'No events in the selection.' }));
    this.summary.replaceChildren(...kids);
  }

  dispose() {
    this.alive = false;
    clearTimeout(this.hashTimer);
    clearTimeout(this.errTimer);
    clearTimeout(this.loadTimer);
    clearTimeout(this.liveTimer);
    if (this.liveCtrl) this.liveCtrl.abort();
    this.liveCtrl = null;
    if (this.firstDrawDone) this.firstDrawDone();
    if (this.evCtrl) this.evCtrl.abort();
    if (this.sumCtrl) this.sumCtrl.abort();
    if (this.onResize) window.removeEventListener('resize', this.onResize);
    if (this.panelRo) this.panelRo.disconnect();
    if (this.tl) this.tl.dispose();
    this.tl = null;
    if (this.probe && window.__nnsTrace === this.probe) delete window.__nnsTrace;
    if (this.root) this.root.remove();
  }
}

let current = null;

export default {
  id: 'trace',
  title: 'Trace',
  render(el, ctx) {
    if (current) current.dispose();
    current = new TraceView(el, ctx);
    return current.start();
  },
  dispose() {
    if (current) current.dispose();
    current = null;
  },
};
