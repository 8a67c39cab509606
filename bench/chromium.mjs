// bench/chromium.mjs - the headless chromium the page benchmarks drive
// (serve_page.mjs, serve_pan.mjs), launched so that it measures the page and
// the server, not the browser's own window chrome:
//
// Chromium 156 (Debian's, installed by scripts/install-deps.sh) builds the
// omnibox popup of every new window as a WebUI page
// (chrome://omnibox-popup.top-chrome/) in a renderer of its own. Each
// browser.newContext() is a new headless window, and that renderer then keeps
// about one core busy for the first ~600 ms, exactly while the page under
// test loads and the server parses on the same 2 cores. A user who opens
// nnscope in a tab of a browser already running (on a laptop, not on the
// machine that serves) pays none of it. Measured on the 241 MB first open
// (bench/serve_page.mjs, alternated): median 594 ms with that renderer, 375
// ms without. The omnibox WebUI features are therefore disabled here.
//
// Chromium honours only the last --disable-features switch, so the list
// repeats playwright-core's own (1.65, chromiumSwitches in its bundle),
// which it would otherwise replace.
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = await import(pathToFileURL(path.join(here, '../web/node_modules/playwright-core/index.mjs')).href);

const PLAYWRIGHT_DISABLED = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding',
  'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin',
  'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
];
const WINDOW_CHROME = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'];

// BENCH_CHROMIUM_UI=1 keeps the browser's window chrome (the figures of a
// new browser window, for comparison)
export const chromiumArgs = ['--no-sandbox'].concat(process.env.BENCH_CHROMIUM_UI === '1' ? []
  : [`--disable-features=${PLAYWRIGHT_DISABLED.concat(WINDOW_CHROME).join(',')}`]);

export function launchChromium() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
}
