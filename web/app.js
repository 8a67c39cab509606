// nnscope single-page UI shell: run/worker/span selectors, nav, hash state,
// the shared api() helper with 202-progress polling, lazy view loading, and
// live runs: while the selected worker is being written (/api/runs "live")
// a LIVE badge shows, and the current view is rendered again every second
// (tab visible) off screen and swapped in, keeping the tables' sort and
// search, the charts' zoom (lib/keep.js), the scroll positions and the
// focused input; when the run ends the view renders its final documents.
// The Cluster view is per run: it is live (refreshed, badge shown) while any
// worker of the selected run is; while the selected run is live the shell
// also polls its alert hits (lib/live_alerts.js: the "⚠ N alerts" badge).
import { h, errorBox, emptyState, fmtBytes } from './lib/util.js';
import { disposeCharts, loadCharts } from './lib/charts.js';
import { loadSchema } from './lib/schema.js';
import { keepActive, keepClear } from './lib/keep.js';
import { createAlertBadge } from './lib/live_alerts.js';

export const VIEWS = [
  { id: 'overview', title: 'Overview' },
  { id: 'operator', title: 'Operator' },
  { id: 'kernel', title: 'GPU Kernel' },
  { id: 'trace', title: 'Trace' },
  { id: 'memory', title: 'Memory' },
  { id: 'distributed', title: 'Distributed' },
  { id: 'hta', title: 'HTA' },
  { id: 'cluster', title: 'Cluster' },
  { id: 'mindspore', title: 'MindSpore' },
  { id: 'module', title: 'Module' },
  { id: 'steptrace', title: 'Step Trace' },
  { id: 'datapipe', title: 'Data Pipeline' },
  { id: 'cpu', title: 'CPU Utilization' },
  { id: 'diff', title: 'Diff' },
];
const VIEW_IDS = new Set(VIEWS.map((v) => v.id));
// the /api/view document each view starts from (prefetched by the shell)
const VIEW_DOC = {
  overview: 'overview', operator: 'operators', kernel: 'kernels', memory: 'memory',
  module: 'modules', steptrace: 'steptrace', datapipe: 'datapipe', cpu: 'cpu',
  mindspore: 'steptrace',
};
const CORE = ['view', 'run', 'worker', 'span'];
const POLL_MS = 300;
// how long the server may hold a request whose trace is loading before it
// answers 202 (docs/SERVER.md, X-Nnscope-Wait): the load's end is seen at
// once, the progress every HOLD_MS
const HOLD_MS = 300;
const API_HEADERS = { Accept: 'application/json', 'X-Nnscope-Wait': String(HOLD_MS) };
const RUNS_POLL_MS = 5000;
const LIVE_RUNS_POLL_MS = 2000; // the end of a live run shows within this
const LIVE_REFRESH_MS = 1000;
// the views drawn from a live run's documents (/api/view answers the live
// document of overview, operators, kernels, memory, cpu, datapipe; /api/cluster
// the live cluster of a run), rendered again every LIVE_REFRESH_MS; the Trace
// view follows the tail itself
const LIVE_VIEWS = new Set(['overview', 'operator', 'kernel', 'memory', 'cpu', 'datapipe', 'cluster']);
// the views of a whole run: live while any worker of the selected run is
// (the others: while the selected worker is)
const RUN_VIEWS = new Set(['cluster']);

const $ = (id) => document.getElementById(id);
const runSel = $('run-select');
const workerSel = $('worker-select');
const spanSel = $('span-select');
const nav = $('nav');
const content = $('content');
const liveBadge = $('live-badge');
const alertBadge = createAlertBadge({
  badge: $('live-alerts'), line: $('live-alert-last'),
  onOpen: () => go(hashFor('cluster', state.run, state.worker, state.span, keepParams(state.params))),
});

const state = {
  runs: null, // the /api/runs document
  generation: null,
  view: 'overview',
  run: '',
  worker: '',
  span: '',
  params: {},
};
let current = null; // { mod, root, controller, key, sel, live }
let renderToken = 0;
let liveBusy = false; // a live refresh is under way
let liveCount = 0; // live refreshes swapped in since the view rendered (data-refreshes)

/* ------------------------------------------------------------------ api */

class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

const progressEl = $('progress');
const progressLabel = $('progress-label');
const progressFill = $('progress-fill');
const progressDetail = $('progress-detail');
const progressLoads = $('progress-loads');
const pending = new Map(); // key -> {phase, progress, doc (the 202 answer)}
let pendingSeq = 0;

function fmtElapsed(ms) {
  const s = Math.max(0, Math.round((ms || 0) / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

// One load of a 202 answer (docs/SERVER.md): which file, how big, what it
// is doing, how far and for how long; and, when slow, why.
function describeLoad(d, testid) {
  const parts = [`${d.file} (${fmtBytes(d.size)})`, d.phase];
  if (!d.queued && d.bytes_read > 0) parts.push(`${fmtBytes(d.bytes_read)} read`);
  parts.push(d.queued ? `queued for ${fmtElapsed(d.elapsed_ms)}` : fmtElapsed(d.elapsed_ms));
  const out = [parts.join(' · ')];
  if (d.slow) out.push(' — ', h('span', { class: 'slow', testid }, `slow: ${d.cause || 'no cause known'}`));
  else if (d.cause) out.push(' — ', d.cause);
  return out;
}

function showProgress() {
  if (!pending.size) { progressEl.hidden = true; return; }
  let p = 1; let phase = ''; let doc = null;
  for (const v of pending.values()) { if (v.progress <= p) { p = v.progress; phase = v.phase; doc = v.doc; } }
  const pct = Math.max(0, Math.min(100, Math.round(p * 100)));
  progressEl.hidden = false;
  progressEl.setAttribute('aria-valuenow', String(pct));
  progressEl.dataset.phase = phase || '';
  progressEl.dataset.slow = doc?.slow ? '1' : '';
  progressLabel.textContent = `Analysing the trace: ${phase || 'working'} ${pct}%`;
  progressFill.style.width = pct + '%';
  progressDetail.replaceChildren(...(doc?.file ? describeLoad(doc, 'progress-slow') : []));
  // the other loads under way: which file holds the loaders, and why
  const others = (doc?.loads || []).filter((d) => d.file !== doc?.file);
  progressLoads.replaceChildren(...others.map((d) => h('li', { class: d.slow ? 'slow-load' : '' }, describeLoad(d, 'progress-load-slow'))));
  progressLoads.hidden = !others.length;
}

const sleep = (ms, signal) => new Promise((resolve, reject) => {
  const t = setTimeout(resolve, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(t); reject(new DOMException('aborted', 'AbortError')); }, { once: true });
});

// The answer to the request web/boot.js sent for url while the page loaded,
// once, to the first api() call for it; null otherwise.
function bootAnswer(url) {
  const b = window.nnsBoot;
  const res = b && b[url];
  if (!res) return null;
  delete b[url];
  return res;
}

/**
 * Fetch a JSON document from the server. On 202 (analysis in progress) shows the
 * progress bar and asks again until 200 (the server holds each request up to
 * HOLD_MS while the load goes on). Errors throw ApiError with the
 * server's {"error"} message.
 */
export async function api(path, params, opts = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null) continue;
    if (v === '' && (k === 'span' || k === 'span2')) continue;
    q.set(k, String(v));
  }
  const url = path + (q.toString() ? '?' + q : '');
  const signal = opts.signal;
  const key = ++pendingSeq;
  try {
    for (let polls = 0; ; polls++) {
      let res;
      const asked = performance.now();
      try {
        res = await (bootAnswer(url) || fetch(url, { signal, headers: API_HEADERS }));
      } catch (e) {
        if (e.name === 'AbortError') throw e;
        throw new ApiError(`cannot reach the nnscope server (${e.message})`, 0);
      }
      if (res.status === 202) {
        let doc = {};
        try { doc = await res.json(); } catch { /* keep polling */ }
        pending.set(key, { phase: doc.phase || doc.state || 'analysing', progress: typeof doc.progress === 'number' ? doc.progress : 0, doc });
        showProgress();
        // the server held the request until the load settled or
        // HOLD_MS passed (X-Nnscope-Wait); one that answers at once (a
        // load it does not hold for) is asked again after 30, 60, 90, ...
        // up to POLL_MS ms
        await sleep(Math.max(0, Math.min(POLL_MS, 30 * (polls + 1)) - (performance.now() - asked)), signal);
        continue;
      }
      if (!res.ok) {
        let msg = `${res.status} ${res.statusText}`;
        try { const doc = await res.json(); if (doc && doc.error) msg = doc.error; } catch { /* not JSON */ }
        throw new ApiError(msg, res.status);
      }
      return await res.json();
    }
  } finally {
    if (pending.delete(key)) showProgress();
  }
}

/* ----------------------------------------------------------- hash state */

function parseHash() {
  const q = new URLSearchParams(location.hash.replace(/^#/, ''));
  const out = { params: {} };
  for (const [k, v] of q) {
    if (CORE.includes(k)) out[k] = v; else out.params[k] = v;
  }
  return out;
}

function hashFor(view, run, worker, span, params) {
  const q = new URLSearchParams();
  q.set('view', view);
  if (run) q.set('run', run);
  if (worker) q.set('worker', worker);
  if (span) q.set('span', span);
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  return '#' + q.toString();
}

const stateHash = () => hashFor(state.view, state.run, state.worker, state.span, state.params);

function findRun(name) { return state.runs?.runs?.find((r) => r.name === name) || null; }
function findWorker(run, name) { return run?.workers?.find((w) => w.name === name) || null; }
/** Whether the selected worker's trace is being written (/api/runs "live"). */
function selectedLive() { return !!findWorker(findRun(state.run), state.worker)?.live; }
/** Whether a worker of the selected run is being written. */
function runLive() {
  const run = findRun(state.run);
  return !!(run && (run.live || run.workers?.some((w) => w.live)));
}
/** Whether the current view shows something being written: the selected run for the views of a
 * whole run (RUN_VIEWS), the selected worker for the others. */
function viewLive() { return RUN_VIEWS.has(state.view) ? runLive() : selectedLive(); }

/** Make state.run/worker/span valid for the current runs document. */
function resolveSelection(want) {
  const runs = state.runs?.runs || [];
  const run = findRun(want.run) || runs[0] || null;
  const worker = (run && (findWorker(run, want.worker) || run.workers?.[0])) || null;
  const spans = worker?.spans || [];
  const span = spans.includes(want.span) ? want.span : (spans[0] ?? '');
  state.run = run ? run.name : '';
  state.worker = worker ? worker.name : '';
  state.span = span || '';
}

/* ------------------------------------------------------------ selectors */

function fillSelect(sel, items, value, emptyLabel) {
  sel.textContent = '';
  if (!items.length) {
    sel.appendChild(h('option', { value: '' }, emptyLabel));
    sel.disabled = true;
    sel.value = '';
    return;
  }
  for (const it of items) sel.appendChild(h('option', { value: it.value }, it.label));
  sel.disabled = false;
  sel.value = value;
}

function refreshSelectors() {
  const runs = state.runs?.runs || [];
  const liveMark = (x) => (x.live ? ' ● LIVE' : '');
  fillSelect(runSel, runs.map((r) => ({ value: r.name, label: (r.kind && r.kind !== 'kineto' ? `${r.name} (${r.kind})` : r.name) + liveMark(r) })), state.run, 'no runs');
  const run = findRun(state.run);
  fillSelect(workerSel, (run?.workers || []).map((w) => ({ value: w.name, label: w.name + liveMark(w) })), state.worker, '—');
  liveBadge.hidden = !viewLive();
  liveBadge.title = RUN_VIEWS.has(state.view)
    ? 'A worker of this run is being written: the view follows it'
    : 'This worker\'s trace is being written: the view follows it';
  alertBadge.show(state.run);
  const w = findWorker(run, state.worker);
  fillSelect(spanSel, (w?.spans || []).map((s) => ({ value: s, label: s })), state.span, 'no spans');
  const ld = $('logdir');
  ld.textContent = state.runs?.logdir || '';
  ld.title = state.runs?.logdir ? `logdir: ${state.runs.logdir}` : '';
  updateNavLinks();
}

function buildNav() {
  nav.textContent = '';
  for (const v of VIEWS) {
    nav.appendChild(h('a', { href: '#', class: 'tab', testid: `nav-${v.id}`, dataset: { view: v.id } }, v.title));
  }
}

function updateNavLinks() {
  for (const a of nav.querySelectorAll('a.tab')) {
    const id = a.dataset.view;
    a.href = hashFor(id, state.run, state.worker, state.span, id === state.view ? state.params : keepParams(state.params));
    a.classList.toggle('active', id === state.view);
    if (id === state.view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
}

// parameters that survive a change of view (diff's experiment selection)
function keepParams(p) {
  const out = {};
  for (const k of ['run2', 'worker2', 'span2']) if (p[k]) out[k] = p[k];
  return out;
}

function go(hash, replace) {
  if (hash === location.hash) { onHashChange(); return; }
  if (replace) { history.replaceState(null, '', hash); onHashChange(); } else location.hash = hash;
}

runSel.addEventListener('change', () => {
  const run = findRun(runSel.value);
  const w = run?.workers?.[0];
  go(hashFor(state.view, runSel.value, w?.name || '', w?.spans?.[0] || '', keepParams(state.params)));
});
workerSel.addEventListener('change', () => {
  const w = findWorker(findRun(state.run), workerSel.value);
  const span = w?.spans?.includes(state.span) ? state.span : (w?.spans?.[0] || '');
  go(hashFor(state.view, state.run, workerSel.value, span, keepParams(state.params)));
});
spanSel.addEventListener('change', () => {
  go(hashFor(state.view, state.run, state.worker, spanSel.value, keepParams(state.params)));
});

/* ------------------------------------------------------------- views */

// a live run that ends renders again (its final documents)
function renderKey() {
  return stateHash() + '|' + (state.runs ? 'r' : 'n') + (viewLive() ? '|live' : '');
}

function onHashChange() {
  const want = parseHash();
  state.view = VIEW_IDS.has(want.view) ? want.view : 'overview';
  state.params = want.params;
  resolveSelection(want);
  const canonical = stateHash();
  if (canonical !== location.hash) history.replaceState(null, '', canonical);
  refreshSelectors();
  const key = renderKey();
  if (current && current.key === key) return;
  renderView(key);
}

function makeCtx(root, controller) {
  const signal = controller.signal;
  const ctx = {
    run: state.run,
    worker: state.worker,
    span: state.span,
    runs: state.runs,
    params: { ...state.params },
    signal,
    /** the selected worker's trace (for the Cluster view: a worker of the run) is being
     * written: the view is rendered again every second (LIVE_VIEWS) or follows it itself (Trace) */
    live: viewLive(),
    /** GET path?params; own: a signal of the caller's (aborted by the caller, e.g. on dispose)
     * instead of the view's */
    api: (path, params, own) => api(path, params, { signal: own || signal }),
    /** the /api/view document `name` of the current run/worker/span */
    view: (name, extra) => api('/api/view', { run: state.run, worker: state.worker, span: state.span, view: name, ...(extra || {}) }, { signal }),
    navigate: (view, extra) => go(hashFor(view || state.view, state.run, state.worker, state.span, extra || {})),
    /** change the global run/worker/span selection (keeps the view); a view
     * that calls it while rendering is not marked loaded: the new selection's
     * render is (ctx.redirected) */
    select: (sel, extra) => {
      const hash = hashFor(state.view, sel.run ?? state.run, sel.worker ?? state.worker, sel.span ?? state.span, extra ?? keepParams(state.params));
      if (hash !== location.hash) ctx.redirected = true;
      go(hash);
    },
    redirected: false,
    /** record view-internal state in the hash without re-rendering */
    setParams: (extra, replace = true) => {
      const p = { ...state.params, ...extra };
      for (const k of Object.keys(p)) if (p[k] === undefined || p[k] === null || p[k] === '') delete p[k];
      state.params = p;
      ctx.params = { ...p };
      const hash = stateHash();
      if (current) current.key = renderKey();
      if (replace) history.replaceState(null, '', hash); else history.pushState(null, '', hash);
      updateNavLinks();
    },
    alive: () => !signal.aborted,
  };
  return ctx;
}

async function renderView(key) {
  const token = ++renderToken;
  const sel = stateHash();
  const live = viewLive();
  // what the tables and charts keep: kept across a live run's end (the
  // final documents keep the sort and zoom), forgotten on another selection
  if (!current || current.sel !== sel) keepClear();
  keepActive(live || (current && current.sel === sel && current.live));
  if (current) {
    current.controller.abort();
    try { current.mod?.dispose?.(); } catch (e) { console.error('dispose failed', e); }
  }
  disposeCharts(content);
  content.textContent = '';
  delete document.body.dataset.ready;
  const id = state.view;
  const root = h('div', { class: 'view view-' + id, testid: `view-${id}`, dataset: { view: id } });
  content.appendChild(root);
  const controller = new AbortController();
  current = { mod: null, root, controller, key, sel, live };
  liveCount = 0;
  document.title = `${VIEWS.find((v) => v.id === id)?.title || id} · ${state.run || 'nnscope'} · nnscope`;

  let ctx = null;
  try {
    if (!state.runs) {
      root.appendChild(h('div', { class: 'loading' }, 'Loading runs…'));
      return;
    }
    if (!state.runs.runs?.length && id !== 'diff') {
      root.appendChild(emptyState(`No runs found under ${state.runs.logdir || 'the logdir'}.`,
        'nnscope looks (recursively) for PyTorch profiler traces (*.pt.trace.json[.gz]), Chrome-trace JSON, ' +
        'nnscope trace directories (*.nnst) and MindSpore profiler directories. New runs appear here automatically.'));
      return;
    }
    // the view module, its main document and (except for the canvas-only
    // Trace view) the chart library all load in parallel: ctx.view() hands
    // the view the request already in flight
    ctx = makeCtx(root, controller);
    const doc = VIEW_DOC[id];
    if (doc) {
      const first = ctx.view(doc);
      first.catch(() => { /* the view reports it */ });
      const view = ctx.view;
      let used = false;
      ctx.view = (name, extra) => {
        if (!used && name === doc && !extra) { used = true; return first; }
        return view(name, extra);
      };
    }
    const [ns] = await Promise.all([import(`./views/${id}.js`),
      id === 'trace' ? null : loadCharts(id === 'module'), loadSchema((p) => api(p))]);
    const mod = ns.default;
    if (token !== renderToken) return;
    current.mod = mod;
    await mod.render(root, ctx);
  } catch (e) {
    if (e && e.name === 'AbortError') return;
    if (token !== renderToken) return;
    console.error(e);
    root.appendChild(errorBox(e));
  } finally {
    if (token === renderToken && !ctx?.redirected) {
      root.dataset.loaded = '1';
      document.body.dataset.ready = '1';
    }
    if (token === renderToken) keepActive(live);
    warmCharts();
  }
}

// The chart library, once the first view is drawn (the views with charts
// have it by then; after the Trace view, which has none, the next view
// opens without waiting for it): not before, where it would compete with
// that view's load for the CPU.
let chartsWarm = false;
function warmCharts() {
  if (chartsWarm) return;
  chartsWarm = true;
  loadCharts().catch(() => { /* reported by the view that needs it */ });
}

/* ---------------------------------------------------------- live runs */


// The scroll offsets of the scrolled boxes of root, by the test id of the
// nearest element that has one (the tables' boxes: table-<name>).
function scrollsOf(root) {
  const out = new Map();
  for (const el of root.querySelectorAll('.tbl-scroll, [data-keep-scroll]')) {
    const id = el.closest('[data-testid]')?.getAttribute('data-testid');
    if (id && (el.scrollTop || el.scrollLeft) && !out.has(id)) out.set(id, [el.scrollTop, el.scrollLeft]);
  }
  return out;
}

function restoreScrolls(root, saved) {
  for (const el of root.querySelectorAll('.tbl-scroll, [data-keep-scroll]')) {
    const id = el.closest('[data-testid]')?.getAttribute('data-testid');
    const s = id && saved.get(id);
    if (s) [el.scrollTop, el.scrollLeft] = s;
  }
}

// The focused control of root (a table's search box), to focus its
// namesake after the swap with the caret where it was.
function focusOf(root) {
  const a = document.activeElement;
  if (!a || !root.contains(a) || !a.getAttribute('data-testid')) return null;
  return { id: a.getAttribute('data-testid'), start: a.selectionStart, end: a.selectionEnd };
}

function restoreFocus(root, f) {
  const el = f && root.querySelector(`[data-testid="${CSS.escape(f.id)}"]`);
  if (!el) return;
  el.focus({ preventScroll: true });
  if (f.start != null && el.setSelectionRange) try { el.setSelectionRange(f.start, f.end); } catch { /* not a text box */ }
}

/** Renders the current view of a live run again, off screen (same width, so
 * that the charts size themselves), from fresh documents, and swaps it in
 * place: the page keeps its scroll, the tables their sort, search and page,
 * the charts their zoom (lib/keep.js), the focused box its caret. A render
 * that fails (the run just ended: 202, a network error) leaves the page as
 * it is. */
async function liveRefresh() {
  const old = current;
  if (!old || !old.live || !old.mod || old.root.dataset.loaded !== '1' || !LIVE_VIEWS.has(state.view)) return;
  const token = renderToken;
  const root = h('div', { class: old.root.className, testid: old.root.getAttribute('data-testid'), dataset: { view: old.root.dataset.view } });
  Object.assign(root.style, { position: 'fixed', left: '0', top: '0', width: old.root.getBoundingClientRect().width + 'px', visibility: 'hidden', pointerEvents: 'none', zIndex: '-1' });
  root.setAttribute('aria-hidden', 'true');
  content.appendChild(root);
  const controller = new AbortController();
  const ctx = makeCtx(root, controller);
  let ok = false;
  try {
    await old.mod.render(root, ctx);
    ok = !ctx.redirected;
  } catch (e) {
    if (e?.name !== 'AbortError') console.warn('live refresh failed', e);
  }
  if (!ok || token !== renderToken || current !== old) {
    controller.abort();
    disposeCharts(root);
    root.remove();
    return;
  }
  const sx = window.scrollX;
  const sy = window.scrollY;
  const scrolls = scrollsOf(old.root);
  const focus = focusOf(old.root);
  root.removeAttribute('style');
  root.removeAttribute('aria-hidden');
  content.replaceChild(root, old.root);
  old.controller.abort();
  disposeCharts(old.root);
  old.root = root;
  old.controller = controller;
  restoreScrolls(root, scrolls);
  restoreFocus(root, focus);
  window.scrollTo(sx, sy);
  root.dataset.loaded = '1';
  root.dataset.refreshes = String(++liveCount);
}

setInterval(() => {
  if (document.hidden || liveBusy || !current?.live) return;
  liveBusy = true;
  liveRefresh().finally(() => { liveBusy = false; });
}, LIVE_REFRESH_MS);

/* ------------------------------------------------------------ startup */

async function loadRuns(initial) {
  let doc;
  try {
    doc = await api('/api/runs');
  } catch (e) {
    alertBadge.poll(state.run, runLive());
    if (initial) {
      content.textContent = '';
      const root = h('div', { class: 'view', testid: `view-${parseHash().view || 'overview'}` }, errorBox(e));
      content.appendChild(root);
      root.dataset.loaded = '1';
      document.body.dataset.ready = '1';
    }
    return;
  }
  if (!initial && doc.generation === state.generation) {
    alertBadge.poll(state.run, runLive());
    return;
  }
  const hadRuns = state.runs;
  state.runs = doc;
  state.generation = doc.generation;
  if (initial || !hadRuns) { onHashChange(); alertBadge.poll(state.run, runLive()); return; }
  // keep the selection when it still exists; re-render only if it changed
  // (or the selected worker started or stopped being live)
  const before = `${state.run}\u0000${state.worker}\u0000${state.span}`;
  resolveSelection({ run: state.run, worker: state.worker, span: state.span });
  refreshSelectors();
  if (`${state.run}\u0000${state.worker}\u0000${state.span}` !== before || !(hadRuns.runs || []).length ||
    (current && current.key !== renderKey())) {
    go(stateHash(), true);
  }
  alertBadge.poll(state.run, runLive());
}

buildNav();
window.addEventListener('hashchange', onHashChange);
loadRuns(true);
// /api/runs every 5 s, every 2 s while a worker of the selected run is live
// (and with it the run's alert hits)
let runsPolled = Date.now();
setInterval(() => {
  const every = runLive() ? LIVE_RUNS_POLL_MS : RUNS_POLL_MS;
  if (document.hidden || Date.now() - runsPolled < every - 50) return;
  runsPolled = Date.now();
  loadRuns(false);
}, 500);
