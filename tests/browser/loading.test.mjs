// Browser test of the loading view (issue 20, item 4): while a span's trace
// loads slowly the page says which file, its size, the phase, the bytes read,
// the time spent and why it is slow, and lists the other loads under way;
// a small span opened meanwhile shows its view at once.
// Logdir (tests/browser/run.sh): big/w0 and big/w1, the same 16 GB .gz trace
// of profiler markers (tests/e2e/lib/serve_probe.py mkbig), and small/w.
// One PASS/FAIL line per check; exit status 1 on any FAIL.
// env: NNS_URL (a server on that logdir), NNS_SHOTS, NNS_CHROMIUM, NNS_ROOT.
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checker } from './lib.mjs';

const ROOT = process.env.NNS_ROOT || process.cwd();
const { chromium } = await import(pathToFileURL(path.join(ROOT, 'web/node_modules/playwright-core/index.mjs')).href);
const URL0 = process.env.NNS_URL;
const SHOTS = process.env.NNS_SHOTS;
const T = checker();
const { check } = T;

const browser = await chromium.launch({ executablePath: process.env.NNS_CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
const page = await context.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));

// big/w1 loads too (asked for every 300 ms, as a second tab would)
let asking = true;
const keepAsking = (async () => {
  while (asking) {
    await fetch(`${URL0}/api/view?run=big&worker=w1&view=overview`).then((r) => r.arrayBuffer()).catch(() => {});
    await new Promise((res) => setTimeout(res, 300));
  }
})();

try {
  await page.goto(`${URL0}/#view=overview&run=big&worker=w0`);

  await check('a slow load: the page names the file, its size, phase, bytes read, time and why it is slow', async () => {
    await page.waitForSelector('[data-testid="progress-detail"] [data-testid="progress-slow"]', { timeout: 20000 });
    const detail = await page.textContent('[data-testid="progress-detail"]');
    assert.match(detail, /big\/w0\.pt\.trace\.json\.gz \(\d+(\.\d+)? MB\)/, detail);
    assert.match(detail, /parsing/, detail);
    assert.match(detail, /\d+(\.\d+)? (KB|MB) read/, detail);
    assert.match(detail, / \d+ s/, detail);
    assert.match(detail, /slow: compressed file: .* read in \d+ s/, detail);
    assert.equal(await page.getAttribute('[data-testid="progress"]', 'data-slow'), '1');
  });

  await check('... and lists the other load under way (big/w1)', async () => {
    await page.waitForFunction(() => /big\/w1\.pt\.trace\.json\.gz/.test(document.querySelector('[data-testid="progress-loads"]')?.textContent || ''), null, { timeout: 10000 });
    assert.equal(await page.isHidden('[data-testid="progress-loads"]'), false);
  });
  if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'loading-slow.png'), fullPage: true });

  await check('a small span opened meanwhile shows its view within 5 s, while the big ones still load', async () => {
    const t0 = Date.now();
    await page.goto(`${URL0}/#view=overview&run=small&worker=w`);
    await page.waitForSelector('[data-testid="view-overview"][data-loaded="1"]', { timeout: 5000, state: 'attached' });
    const ms = Date.now() - t0;
    const loads = await (await fetch(`${URL0}/api/loads`)).json();
    assert.ok(loads.loads.some((l) => l.file === 'big/w1.pt.trace.json.gz' && !l.queued), `big/w1 is not loading any more: ${JSON.stringify(loads)}`);
    assert.ok(ms < 5000, `${ms} ms`);
    assert.equal(await page.isHidden('[data-testid="progress"]'), true, 'the progress bar is still shown');
  });

  await check('no page errors', async () => assert.deepEqual(errors, []));
} finally {
  asking = false;
  await keepAsking;
  await browser.close();
}
console.log(`loading: ${T.passed} passed, ${T.failed} failed`);
process.exit(T.failed ? 1 : 0);
