// What a view keeps across its re-renders while the run it shows is live
// (app.js renders a live run's view again every second, off screen, then
// swaps it in): each table's sort, search and page (by table name), each
// chart's zoom and legend selection (by its box's test id). Inactive (every
// call a no-op) unless the shell turned it on for a live run; the shell
// clears it when the view or the selection changes.
const store = new Map();
let active = false;

/** Turn keeping on (a live run is shown) or off. */
export function keepActive(on) { active = !!on; }

/** Forget everything (another view, run, worker or span). */
export function keepClear() { store.clear(); }

/** Whether re-renders keep state now. */
export function keeping() { return active; }

/** The state kept under key, or undefined. */
export function kept(key) { return active ? store.get(key) : undefined; }

/** Merge value into the state kept under key. */
export function keep(key, value) {
  if (active) store.set(key, { ...store.get(key), ...value });
}
