// lib.mjs - what the browser tests (ui.test.mjs, mindspore.test.mjs) share:
// one PASS/FAIL/SKIP line per check, with its time and the first lines of
// a failure's message, and the counts for the summary and exit status.
export function checker() {
  const c = { passed: 0, failed: 0 };
  c.check = async (name, fn) => {
    const t = Date.now();
    try {
      await fn();
      c.passed++;
      console.log(`PASS ${name} (${Date.now() - t} ms)`);
    } catch (e) {
      c.failed++;
      const msg = String(e && e.message ? e.message : e).split('\n').filter(Boolean).slice(0, 4).join(' | ');
      console.log(`FAIL ${name}: ${msg}`);
    }
  };
  c.skip = (name, why) => console.log(`SKIP ${name}: ${why}`);
  return c;
}
