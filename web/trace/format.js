// Formatting and colour helpers for the Trace view. All times are integer
// nanoseconds (the trace API's unit). Bytes print as everywhere else in the
// UI (web/lib/util.js fmtBytes: 1024-based, "KB").
import { fmtBytes } from '../lib/util.js';

function trim(s) {
  return s.indexOf('.') >= 0 ? s.replace(/\.?0+$/, '') : s;
}

// A duration with a unit and about 4 significant digits: "12.35 ms".
export function fmtDur(ns) {
  if (ns == null || !isFinite(ns)) return '';
  const a = Math.abs(ns);
  if (a < 1e3) return `${Math.round(ns)} ns`;
  if (a < 1e6) return `${trim((ns / 1e3).toFixed(a < 1e4 ? 3 : a < 1e5 ? 2 : 1))} us`;
  if (a < 1e9) return `${trim((ns / 1e6).toFixed(a < 1e7 ? 3 : a < 1e8 ? 2 : 1))} ms`;
  return `${trim((ns / 1e9).toFixed(3))} s`;
}

// A point in time (relative to the trace start), precise to the microsecond
// or the nanosecond: "1,234.567 ms".
export function fmtTime(ns) {
  if (ns == null || !isFinite(ns)) return '';
  const a = Math.abs(ns);
  if (a < 1e6) return `${trim((ns / 1e3).toFixed(3))} us`;
  const ms = (ns / 1e6).toFixed(Number.isInteger(ns) && ns % 1000 !== 0 ? 6 : 3);
  const [i, f] = ms.split('.');
  return `${i.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${f} ms`;
}

const UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];

// The tick spacing (ns, 1-2-5 sequence) so that ticks are >= minPx apart.
export function tickStep(nsPerPx, minPx) {
  const raw = Math.max(1, nsPerPx * minPx);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// Unit and decimals for tick labels at spacing step.
export function tickUnit(step) {
  for (const [u, name] of UNITS) {
    if (step >= (u === 1e9 ? u / 10 : u / 100) || u === 1) {
      const dec = Math.max(0, Math.ceil(Math.log10(u / step) - 1e-9));
      return { u, name, dec };
    }
  }
  return { u: 1, name: 'ns', dec: 0 };
}

export function fmtTick(t, unit) {
  return `${trim((t / unit.u).toFixed(unit.dec))} ${unit.name}`;
}

export function fmtValue(v, unit) {
  if (v == null || !isFinite(v)) return '';
  if (unit === 'bytes') return fmtBytes(v);
  if (unit === 'ratio') return `${(v * 100).toFixed(1)} %`;
  if (unit === 'percent' || unit === '%') return `${v.toFixed(1)} %`;
  if (unit === 'ns') return fmtDur(v);
  const s = Math.abs(v) >= 100 || Number.isInteger(v) ? String(Math.round(v)) : v.toPrecision(3);
  return unit && unit !== 'count' ? `${s} ${unit}` : s;
}

// Stable colours by name: FNV-1a hash into a palette readable with dark text.
const PALETTE = [
  '#8ecae6', '#f4a261', '#a8dadc', '#e9c46a', '#b5e48c', '#cdb4db', '#ffafcc',
  '#90be6d', '#f9c74f', '#98c1d9', '#e5989b', '#b8c0ff', '#99d98c', '#ffd6a5',
  '#9bf6ff', '#bdb2ff', '#fdffb6', '#caffbf', '#ffc6ff', '#a0c4ff', '#d4a373',
  '#ccd5ae', '#f28482', '#84a59d',
];

export function hashName(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function colorFor(name) {
  return PALETTE[hashName(name || '') % PALETTE.length];
}
