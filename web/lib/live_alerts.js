// The alert badge of a live run (docs/SERVER.md "Live runs"): the shell calls poll(run, live)
// with each /api/runs poll; while the selected run is live (and once more after it ended, for
// its last hits) it fetches /api/live_alerts?run=R, at most every 2 s, and when the run's rules
// have hits shows a red "⚠ N alerts" badge beside the LIVE badge (its tooltip: the newest hit's
// message) and that message in a line under the selectors. What it shows stays after the run
// ended, until another run is selected. No hits, an older server (404), a network error or a
// document without the expected keys: nothing shown, nothing thrown.
import { fmtNum } from './util.js';

const MIN_INTERVAL_MS = 2000;
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const arr = (v) => (Array.isArray(v) ? v : []);

/** The wall-clock time of a hit (wall_ns, CLOCK_REALTIME) as the browser's local time, or ''. */
export function hitTime(hit) {
  if (!isNum(hit?.wall_ns)) return '';
  return new Date(hit.wall_ns / 1e6).toLocaleTimeString();
}

/** The hits of an alerts document, newest first (by wall_ns, then by their order: the server
 * lists them oldest first). */
export function newestFirst(alerts) {
  return arr(alerts?.hits).map((x, i) => [x, i])
    .sort((a, b) => (b[0]?.wall_ns ?? 0) - (a[0]?.wall_ns ?? 0) || b[1] - a[1])
    .map((x) => x[0]).filter((x) => x && typeof x === 'object');
}

/** How many hits fired in all: the document's `fired`, else the hits it lists. */
export function firedCount(alerts) {
  return isNum(alerts?.fired) ? alerts.fired : arr(alerts?.hits).length;
}

/** A hit in one line: its message (the server says rule, rank/step, value and bound), else
 * what it is made of. */
export function hitText(hit) {
  if (hit?.message) return String(hit.message);
  const where = hit?.rank !== null && hit?.rank !== undefined && hit.rank >= 0 ? ` rank ${hit.rank}` : '';
  return `${hit?.text || 'alert'}:${where}${isNum(hit?.step) ? ` step ${hit.step}` : ''} ${fmtNum(hit?.value)} (bound ${fmtNum(hit?.bound)})`;
}

/**
 * createAlertBadge({ badge, line, onOpen }) -> { poll(run, live), show(run) }
 * badge: the element of the "⚠ N alerts" badge, line: the element of the newest hit's line
 * (both start hidden); onOpen(): what a click on the badge does (the Cluster view).
 */
export function createAlertBadge({ badge, line, onOpen }) {
  let run = ''; // the run that `alerts` belongs to
  let alerts = null; // its last alerts document with hits
  let wasLive = false; // polled while live: one more poll after the end
  let polled = 0;
  let busy = false;

  if (onOpen) badge.addEventListener('click', () => onOpen());

  function draw() {
    const n = alerts ? firedCount(alerts) : 0;
    const newest = alerts ? newestFirst(alerts)[0] : null;
    if (!n) {
      badge.hidden = true;
      line.hidden = true;
      line.textContent = '';
      badge.removeAttribute('data-count');
      return;
    }
    const msg = newest ? hitText(newest) : '';
    badge.textContent = `⚠ ${n} alert${n === 1 ? '' : 's'}`;
    badge.title = msg ? `Newest alert: ${msg}` : `${n} alerts`;
    badge.dataset.count = String(n);
    badge.hidden = false;
    line.textContent = '';
    const when = newest ? hitTime(newest) : '';
    line.append(`Alert${when ? ` at ${when}` : ''}: `, msg || `${n} alerts`);
    line.title = msg;
    line.hidden = false;
  }

  /** The selection changed to `r`: forget another run's alerts. */
  function show(r) {
    if (r === run) return;
    run = r;
    alerts = null;
    wasLive = false;
    polled = 0;
    draw();
  }

  async function poll(r, live) {
    show(r);
    if (!r || busy || !(live || wasLive) || Date.now() - polled < MIN_INTERVAL_MS - 50) return;
    polled = Date.now();
    wasLive = live;
    busy = true;
    let doc = null;
    try {
      const res = await fetch('/api/live_alerts?run=' + encodeURIComponent(r), { headers: { Accept: 'application/json' } });
      if (res.ok) doc = await res.json();
    } catch { /* an older server or none: nothing shown */ }
    busy = false;
    if (r !== run) return;
    const a = doc && typeof doc === 'object' && doc.alerts && typeof doc.alerts === 'object' ? doc.alerts : null;
    // a later answer with fewer hits (the server forgot the run after its end) keeps the last
    if (a && (!alerts || firedCount(a) >= firedCount(alerts))) alerts = a;
    draw();
  }

  return { poll, show };
}
