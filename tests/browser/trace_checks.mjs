// trace_checks.mjs - the Trace view's checks that ui.test.mjs runs on each
// trace page it opens (its timeline drawn): W/S zoom, wheel, A/D pan, a
// clicked event's details, box selection against /api/trace/summary, the
// flow arrows, collapsed groups left out of the window requests.
// ctx: { check (lib.mjs), api (a JSON answer of the server, after its 202s),
// shoot (a screenshot), loadMs (how long a page may take to draw) }.
import assert from 'node:assert/strict';

/**
 * Trace box selection (shift+drag) and the "All flows" toggle on a trace page
 * whose timeline is drawn.
 */
export async function traceSelectionChecks(ctx, o, sel, label) {
  const page = o.page;
  let lastWindow = null;
  page.on('request', (r) => { if (r.url().includes('/api/trace/window')) lastWindow = r.url(); });
  const settle = async () => {
    await page.waitForTimeout(400);
    await page.waitForFunction(() => !!window.__nnsTrace && window.__nnsTrace.drawn >= 1);
  };
  await page.keyboard.press('0');
  await settle();
  const box = await page.$eval('[data-testid="trace-canvas"]', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
  let req = null;
  await ctx.check(`trace ${label}: shift+drag selects a range, trace-summary matches /api/trace/summary`, async () => {
    const v = await page.evaluate(() => window.__nnsTrace.visible);
    const x0 = box.x + box.w * 0.45, x1 = box.x + box.w * 0.7, y = box.y + Math.min(box.h * 0.5, 160);
    const reqP = page.waitForRequest((r) => r.url().includes('/api/trace/summary'), { timeout: 15000 });
    await page.keyboard.down('Shift');
    await page.mouse.move(x0, y);
    await page.mouse.down();
    await page.mouse.move((x0 + x1) / 2, y, { steps: 4 });
    await page.mouse.move(x1, y, { steps: 4 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    req = new URL((await reqP).url());
    const q = Object.fromEntries(req.searchParams);
    const t0 = Number(q.t0), t1 = Number(q.t1);
    // the window is the dragged part of the visible range
    assert.ok(t1 > t0, `window ${q.t0}..${q.t1}`);
    assert.ok(t0 >= Math.floor(v.t0) && t1 <= Math.ceil(v.t1), `window ${t0}..${t1} outside the visible ${v.t0}..${v.t1}`);
    const frac = (t1 - t0) / (v.t1 - v.t0);
    assert.ok(frac > (x1 - x0) / box.w * 0.95 && frac < 0.5, `window is ${frac} of the visible range for a drag of ${(x1 - x0) / box.w} of the canvas`);
    assert.equal(q.run, sel.run);
    assert.equal(q.worker, sel.worker);
    await page.waitForSelector('[data-testid="trace-summary"] tbody tr', { timeout: 30000 });
    const shown = await page.$$eval('[data-testid="trace-summary"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent.trim())));
    const ans = await ctx.api('/api/trace/summary', { ...sel, t0: q.t0, t1: q.t1, tracks: q.tracks });
    assert.ok(ans.rows.length > 0, 'API: no rows in the window');
    assert.equal(shown.length, ans.rows.length, 'summary rows != API rows');
    assert.equal(shown[0][0], ans.rows[0].name, 'first row name');
    assert.equal(Number(shown[0][2].replace(/,/g, '')), ans.rows[0].count, 'first row count');
    const panelSub = await page.$eval('[data-testid="trace-summary-panel"]', (e) => e.textContent);
    assert.ok(panelSub.includes(`${ans.events.toLocaleString('en-US')} events`), `panel does not show ${ans.events} events: ${panelSub.slice(0, 200)}`);
  });
  await ctx.shoot(page, 'trace-selection', label);
  await ctx.check(`trace ${label}: "All flows" draws flow arrows`, async () => {
    await page.keyboard.press('Escape'); // no selected event: only "All flows" draws arrows
    await settle();
    assert.equal(await page.evaluate(() => window.__nnsTrace.flows), 0, 'flows drawn with no selected event and "All flows" off');
    // the whole trace (0): the API answer of the page's last window request has flows
    await page.keyboard.press('0');
    await settle();
    let wq;
    if (lastWindow) wq = Object.fromEntries(new URL(lastWindow).searchParams);
    else { // the page's answer was still cached: ask for the visible range
      const v = await page.evaluate(() => window.__nnsTrace.visible);
      wq = { ...sel, t0: Math.floor(v.t0), t1: Math.ceil(v.t1), px: Math.round(box.w) };
    }
    const win = await ctx.api('/api/trace/window', wq);
    assert.ok((win.flows || []).length > 0, `API: no flows in the page's window ${wq.t0}..${wq.t1} px ${wq.px}`);
    await page.click('[data-testid="trace-flows-toggle"]');
    await page.waitForFunction(() => window.__nnsTrace.flows > 0, null, { timeout: 15000 }).catch(async () => {
      throw new Error(`__nnsTrace.flows = ${await page.evaluate(() => window.__nnsTrace.flows)} after the toggle`);
    });
    assert.equal(await page.$eval('[data-testid="trace-flows-toggle"]', (e) => e.checked), true);
    await page.click('[data-testid="trace-flows-toggle"]');
    await page.waitForFunction(() => window.__nnsTrace.flows === 0, null, { timeout: 15000 });
  });
  await ctx.check(`trace ${label}: a collapsed group's tracks are left out of the window requests, and come back when expanded`, async () => {
    const meta = await ctx.api('/api/trace/meta', sel);
    const gpu = meta.tracks.find((t) => t.kind === 'stream');
    assert.ok(gpu, 'no GPU stream track in this trace');
    const hidden = meta.tracks.filter((t) => t.group === gpu.group).map((t) => String(t.id));
    let req = page.waitForRequest((r) => r.url().includes('/api/trace/window') && r.url().includes('tracks='), { timeout: 15000 });
    // collapsing needs no request (the answer in hand covers more); the
    // next window asked for after a zoom leaves the group out
    await page.evaluate((g) => window.__nnsTrace.toggleGroup(g), gpu.group);
    await page.evaluate(() => document.activeElement && document.activeElement.blur()); // W/A/S/D are ignored in inputs
    await page.keyboard.press('w');
    const asked = new URL((await req).url()).searchParams.get('tracks').split(',');
    assert.ok(asked.length > 0 && hidden.every((id) => !asked.includes(id)), `collapsed tracks ${hidden} requested: ${asked}`);
    req = page.waitForRequest((r) => r.url().includes('/api/trace/window') && !r.url().includes('tracks='), { timeout: 15000 });
    await page.evaluate((g) => window.__nnsTrace.toggleGroup(g), gpu.group);
    await req;
  });
}

/**
 * The timeline of a trace page drawn; with interact, W/S zoom, the wheel,
 * A/D pan and a clicked event's details.
 */
export async function traceChecks(ctx, o, sel, label, { interact }) {
  await ctx.check(`trace ${label}: timeline drawn`, async () => {
    await o.page.waitForFunction(() => window.__nnsTrace && window.__nnsTrace.drawn >= 1, null, { timeout: ctx.loadMs });
    const st = await o.page.evaluate(() => ({ items: window.__nnsTrace.items, v: window.__nnsTrace.visible }));
    assert.ok(st.items > 0, `no items drawn (${st.items})`);
    assert.ok(st.v && st.v.t1 > st.v.t0, 'no visible range');
    const c = await o.page.$eval('[data-testid="trace-canvas"]', (c) => ({ w: c.width, h: c.height }));
    assert.ok(c.w > 0 && c.h > 0, 'canvas has no size');
  });
  if (!interact) return;
  const vis = () => o.page.evaluate(() => window.__nnsTrace.visible);
  const settle = async () => {
    await o.page.waitForTimeout(400);
    await o.page.waitForFunction(() => !!window.__nnsTrace && window.__nnsTrace.drawn >= 1);
  };
  const box = await o.page.$eval('[data-testid="trace-canvas"]', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top, w: r.width, h: r.height }; });
  await ctx.check(`trace ${label}: 'w' zooms in`, async () => {
    const a = await vis();
    await o.page.mouse.move(box.x + box.w * 0.6, box.y + Math.min(120, box.h / 2));
    await o.page.keyboard.down('w');
    await o.page.waitForTimeout(250);
    await o.page.keyboard.up('w');
    await settle();
    const b = await vis();
    assert.ok(b.t1 - b.t0 < (a.t1 - a.t0) * 0.9, `range ${a.t1 - a.t0} -> ${b.t1 - b.t0}`);
  });
  await ctx.check(`trace ${label}: mouse wheel zooms in`, async () => {
    const a = await vis();
    await o.page.mouse.move(box.x + box.w * 0.6, box.y + Math.min(120, box.h / 2));
    await o.page.mouse.wheel(0, -300);
    await settle();
    const b = await vis();
    assert.ok(b.t1 - b.t0 < (a.t1 - a.t0) * 0.95, `range ${a.t1 - a.t0} -> ${b.t1 - b.t0}`);
  });
  await ctx.check(`trace ${label}: 'd' pans right`, async () => {
    const a = await vis();
    await o.page.keyboard.press('d');
    await settle();
    const b = await vis();
    assert.ok(b.t0 > a.t0, `t0 ${a.t0} -> ${b.t0}`);
    assert.ok(Math.abs((b.t1 - b.t0) - (a.t1 - a.t0)) <= (a.t1 - a.t0) * 0.01 + 1, 'pan changed the zoom');
  });
  await ctx.check(`trace ${label}: clicking an event shows its details`, async () => {
    await o.page.keyboard.press('0'); // reset zoom: the whole trace
    await settle();
    const fi = await o.page.evaluate(() => window.__nnsTrace.firstItem());
    assert.ok(fi && fi.id >= 0, `firstItem() = ${JSON.stringify(fi)}`);
    const ev = await ctx.api('/api/trace/event', { ...sel, id: fi.id });
    assert.ok(ev.name, 'event has no name');
    await o.page.mouse.click(fi.x, fi.y);
    await o.page.waitForFunction((name) => {
      const e = document.querySelector('[data-testid="trace-details-name"]');
      return e && e.textContent.trim() === name;
    }, ev.name, { timeout: 15000 }).catch(async () => {
      const got = await o.page.$eval('[data-testid="trace-details-name"]', (e) => e.textContent.trim()).catch(() => '(no trace-details-name)');
      throw new Error(`details show "${got}", want "${ev.name}" (event ${fi.id})`);
    });
    const sel2 = await o.page.evaluate(() => window.__nnsTrace.selected);
    if (sel2 !== undefined && sel2 !== null) assert.equal(sel2, fi.id);
  });
}
