// Small DOM and formatting helpers shared by the views. No framework.

/** Create an element: h('div', {class: 'x', dataset: {testid: 'y'}}, child, 'text', [more]). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') el.className = v;
      else if (k === 'testid') el.setAttribute('data-testid', v);
      else if (k === 'style' && typeof v === 'object') Object.assign(el.style, v);
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else if (k in el && typeof v !== 'string') el[k] = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** HTML-escape a string (for the rare places that build markup, e.g. chart tooltips). */
export function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** Microseconds -> "523 µs" / "142.46 ms" / "1.234 s". */
export function fmtUs(us) {
  if (!isNum(us)) return '–';
  const a = Math.abs(us);
  if (a === 0) return '0';
  if (a < 1) return `${(us * 1000).toFixed(0)} ns`;
  if (a < 1000) return `${trim(us, a < 10 ? 2 : a < 100 ? 1 : 0)} µs`;
  if (a < 1e6) return `${trim(us / 1000, a < 1e4 ? 3 : a < 1e5 ? 2 : 1)} ms`;
  return `${trim(us / 1e6, 3)} s`;
}

/** Axis label for µs values: compact unit-aware. */
export function axisUs(v) {
  if (!isNum(v)) return '';
  return v === 0 ? '0' : fmtUs(v);
}

/** Microseconds always as milliseconds (axes). */
export function fmtMs(us, digits = 2) {
  if (!isNum(us)) return '–';
  return `${trim(us / 1000, digits)} ms`;
}

/** Bytes -> "12 B" / "1.5 KB" / "12.3 MB" / "1.23 GB" (binary units, as tb_plugin). */
export function fmtBytes(b) {
  if (!isNum(b)) return '–';
  const a = Math.abs(b);
  if (a < 1024) return `${b} B`;
  if (a < 1024 ** 2) return `${trim(b / 1024, 2)} KB`;
  if (a < 1024 ** 3) return `${trim(b / 1024 ** 2, 2)} MB`;
  if (a < 1024 ** 4) return `${trim(b / 1024 ** 3, 2)} GB`;
  return `${trim(b / 1024 ** 4, 2)} TB`;
}

/** Ratio 0..1 -> "12.3%". */
export function fmtPct(r, digits = 1) {
  if (!isNum(r)) return '–';
  return `${(r * 100).toFixed(digits)}%`;
}

/** Plain percent value (already 0..100) -> "49.1%". */
export function fmtPct100(p, digits = 1) {
  if (!isNum(p)) return '–';
  return `${p.toFixed(digits)}%`;
}

// One formatter for every integer: Number's toLocaleString('en-US') builds
// a new Intl.NumberFormat on each call (15 ms of the Overview's first
// render went there). Same output: toLocaleString's defaults.
const EN = new Intl.NumberFormat('en-US');

export function fmtNum(n, digits = 2) {
  if (!isNum(n)) return '–';
  if (Number.isInteger(n)) return EN.format(n);
  return trim(n, digits);
}

export function fmtInt(n) {
  if (!isNum(n)) return '–';
  return EN.format(Math.round(n));
}

function trim(x, digits) {
  // toFixed then drop trailing zeros, keep thousands separators for the integer part
  let s = x.toFixed(digits);
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  const neg = s.startsWith('-');
  if (neg) s = s.slice(1);
  const [i, f] = s.split('.');
  const ii = i.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (neg ? '-' : '') + ii + (f ? '.' + f : '');
}

/** Signed variants for deltas. */
export function fmtDeltaUs(us) {
  if (!isNum(us)) return '–';
  return (us > 0 ? '+' : '') + fmtUs(us);
}

export const formatters = {
  us: fmtUs,
  ms: fmtMs,
  bytes: fmtBytes,
  pct: fmtPct,
  pct100: fmtPct100,
  num: fmtNum,
  int: fmtInt,
  dus: fmtDeltaUs,
  dint: (n) => (isNum(n) ? (n > 0 ? '+' : '') + fmtInt(n) : '–'),
  bool: (b) => (b === true ? 'yes' : b === false ? 'no' : '–'),
  text: (s) => (s === null || s === undefined ? '' : String(s)),
};

/** Text with URLs turned into links; everything is inserted as text nodes (no HTML injection). */
export function linkify(text) {
  const frag = document.createDocumentFragment();
  const s = String(text ?? '');
  const re = /https?:\/\/[^\s)<>"']+/g;
  let last = 0;
  let m;
  while ((m = re.exec(s))) {
    if (m.index > last) frag.appendChild(document.createTextNode(s.slice(last, m.index)));
    let url = m[0].replace(/[.,;]+$/, '');
    const a = document.createElement('a');
    a.href = url;
    a.target = '_blank';
    a.rel = 'noopener noreferrer';
    a.textContent = url;
    frag.appendChild(a);
    last = m.index + url.length;
    re.lastIndex = last;
  }
  if (last < s.length) frag.appendChild(document.createTextNode(s.slice(last)));
  return frag;
}

/** Empty state block: why there is no data and how to collect it. */
export function emptyState(title, how) {
  return h('div', { class: 'empty-state', testid: 'empty-state' },
    h('div', { class: 'empty-title' }, title),
    how ? h('div', { class: 'empty-how' }, how) : null);
}

export function errorBox(err) {
  const msg = err && err.message ? err.message : String(err);
  return h('div', { class: 'error', testid: 'error', role: 'alert' },
    h('strong', null, err && err.status ? `Error ${err.status}: ` : 'Error: '), msg);
}

export function banner(kind, ...children) {
  return h('div', { class: `banner banner-${kind}` }, ...children);
}

/** A titled panel (card) with optional right-side tools. */
export function panel(title, body, tools) {
  return h('section', { class: 'panel' },
    title ? h('div', { class: 'panel-head' }, h('h3', null, title), tools ? h('div', { class: 'panel-tools' }, tools) : null) : null,
    h('div', { class: 'panel-body' }, body));
}

/** Key figure cards: [{label, value, hint}] */
export function statCards(items, testid) {
  return h('div', { class: 'cards', testid },
    items.map((it) => h('div', { class: 'card' + (it.cls ? ' ' + it.cls : '') , title: it.hint || '' },
      h('div', { class: 'card-label' }, it.label),
      h('div', { class: 'card-value' }, it.value ?? '–'),
      it.sub ? h('div', { class: 'card-sub' }, it.sub) : null)));
}

/** <select> with options [{value, label}] or strings. */
export function select(options, value, onchange, attrs = {}) {
  const s = h('select', attrs);
  for (const o of options) {
    const opt = typeof o === 'object' ? o : { value: o, label: o };
    const e = h('option', { value: opt.value }, opt.label);
    s.appendChild(e);
  }
  if (value !== undefined) s.value = value;
  if (onchange) s.addEventListener('change', () => onchange(s.value));
  return s;
}

export function labeled(label, control) {
  return h('label', { class: 'ctl' }, h('span', null, label), control);
}

/** A long name shortened with a middle ellipsis (shorten), in full as its tooltip (table cells). */
export function shortText(s, n) {
  return h('span', { title: s }, shorten(s, n));
}

/** Middle-ellipsis for long names in chart legends. */
export function shorten(s, n = 48) {
  s = String(s ?? '');
  if (s.length <= n) return s;
  const k = Math.floor((n - 1) / 2);
  return s.slice(0, k) + '…' + s.slice(s.length - k);
}
