// bench/serve_lod.mjs - LOD query latency of /api/trace/window over HTTP
// (keep-alive node client), px=1920: the whole trace and 1/10, 1/1000, 1/1e5
// of it with random pans. Prints one table row per zoom plus "all".
// usage: node bench/serve_lod.mjs URL RUN WORKER [N_PER_ZOOM]
const [url, run, worker, nArg] = process.argv.slice(2);
const N = +(nArg || 75);
const base = url.replace(/\/$/, '');
const q = (p, extra) => `${base}${p}?` + new URLSearchParams({ run, worker, ...extra });

const meta = await (await fetch(q('/api/trace/meta'))).json();
const start = meta.start;
const span = meta.end - meta.start;
let seed = 12345;
const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };

const median = (a) => a[Math.floor((a.length - 1) / 2)];
const pct = (a, p) => a[Math.min(a.length - 1, Math.ceil((p / 100) * a.length) - 1)];
const all = [];
const rows = [];
let bytes = 0;
let items = 0;
// one warm-up request (the first touches the index pages)
await (await fetch(q('/api/trace/window', { t0: start, t1: meta.end, px: 1920 }))).arrayBuffer();
for (const [label, frac] of [['whole', 1], ['1/10', 1e-1], ['1/1000', 1e-3], ['1/1e5', 1e-5]]) {
  const w = Math.max(1, Math.round(span * frac));
  const times = [];
  for (let i = 0; i < N; i++) {
    const t0 = start + Math.floor(rnd() * (span - w));
    const t1 = t0 + w;
    const t = performance.now();
    const r = await fetch(q('/api/trace/window', { t0, t1, px: 1920 }));
    const body = await r.text();
    const dt = performance.now() - t;
    if (r.status !== 200) throw new Error(`window ${t0}..${t1}: HTTP ${r.status} ${body.slice(0, 200)}`);
    bytes += body.length;
    if (i === 0) { try { items += JSON.parse(body).stats.items; } catch { /* ignore */ } }
    times.push(dt);
    all.push(dt);
  }
  times.sort((a, b) => a - b);
  rows.push([label, w, times.length, median(times), pct(times, 95), times[times.length - 1]]);
}
all.sort((a, b) => a - b);
rows.push(['all', span, all.length, median(all), pct(all, 95), all[all.length - 1]]);
const f = (x) => x.toFixed(2).padStart(8);
console.log(`events ${meta.events}  tracks ${meta.tracks.length}  trace span ${(span / 1e9).toFixed(2)} s  mean answer ${(bytes / all.length / 1024).toFixed(1)} KiB`);
console.log(`${'zoom'.padEnd(8)} ${'window ns'.padStart(14)} ${'n'.padStart(4)} ${'median ms'.padStart(9)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)}`);
for (const [l, w, n, m, p, x] of rows) console.log(`${l.padEnd(8)} ${String(w).padStart(14)} ${String(n).padStart(4)} ${f(m).padStart(9)} ${f(p)} ${f(x)}`);
console.log(`RESULT lod_median_ms=${median(all).toFixed(2)} lod_p95_ms=${pct(all, 95).toFixed(2)} events=${meta.events}`);
