// What the views show of a live run (a trace still being written: its
// documents carry "live": {...}, docs/SERVER.md "Live runs"): the
// Overview's live line (steps completed, last and median step time,
// throughput, what the last refresh read) and the other views' note.
import { h, fmtUs, fmtInt, fmtNum, fmtBytes } from './util.js';

const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

/** Step statistics of the last `last` of overview steps [{total_us, start_us, end_us}]:
 * {n, last_us, median_us, per_s}. */
export function stepStats(steps, last = 20) {
  const s = (steps || []).filter((x) => isNum(x?.total_us)).slice(-last);
  const out = { n: s.length, last_us: null, median_us: null, per_s: null };
  if (!s.length) return out;
  const t = s.map((x) => x.total_us).sort((a, b) => a - b);
  out.last_us = s[s.length - 1].total_us;
  out.median_us = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
  const span = (s[s.length - 1].end_us - s[0].start_us) / 1e6;
  if (isNum(span) && span > 0) out.per_s = s.length / span;
  return out;
}

function refreshText(live) {
  return `last refresh read ${fmtBytes(live.refresh_bytes)} (${fmtBytes(live.bytes_read)} of ${fmtBytes(live.file_size)} in all)`;
}

/** The Overview's live line: live is the document's "live" head, steps its steps. */
export function liveLine(live, steps) {
  const st = stepStats(steps);
  const n = live?.steps_completed ?? (steps || []).length;
  return h('div', { class: 'live-line', testid: 'live-line', dataset: { steps: String(n) } },
    h('strong', null, live?.live === false ? 'Ended' : 'Live'),
    h('span', { testid: 'live-steps' }, h('b', null, fmtInt(n)), ' steps completed'),
    h('span', null, 'last ', h('b', null, fmtUs(st.last_us))),
    h('span', { title: `median of the last ${st.n} steps` }, 'median ', h('b', null, fmtUs(st.median_us))),
    h('span', { title: `over the last ${st.n} steps` }, h('b', null, st.per_s == null ? '–' : fmtNum(st.per_s, 1)), ' steps/s'),
    h('span', { testid: 'live-bytes' }, refreshText(live || {})));
}

/** A live run's note above another view: what it shows while the run is written. */
export function liveNote(live, extra) {
  return h('div', { class: 'live-line', testid: 'live-note' },
    h('strong', null, live?.live === false ? 'Ended' : 'Live'),
    h('span', null, `${fmtInt(live?.steps_completed)} steps so far; refreshed every second while the run is written.`),
    extra ? h('span', { class: 'muted' }, extra) : null);
}
