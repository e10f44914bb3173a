/**
 * Issue 27 apps: MCP Apps end to end in a real browser. Headless Chromium opens the example host
 * page (examples/apps/: a Keel McpClient over Streamable HTTP + ext-apps' AppBridge), which renders
 * the Keel server's app (its ui:// resource, with ext-apps' App inside) in a sandboxed iframe. The
 * host hands the app the forecast tool's result, and the app calls the server's app-only tool back
 * through the host. The test reads what the page and the iframe show.
 *
 * Needs /usr/bin/chromium (Debian's `chromium`; CHROMIUM_PATH overrides). Without it the test is
 * skipped on a workstation and FAILS under CI, which installs it (.ci/run).
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Frame } from 'puppeteer-core';
import { afterAll, describe, expect, test } from 'vitest';
import { startWeatherDemo } from '../../examples/apps/demo.js';
import { runningInCi } from '../helpers/ci.js';
import { useProcessGuard, within } from '../helpers/guard.js';

useProcessGuard();

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const installed = existsSync(CHROMIUM);
const WAIT_MS = 30_000;

let browser: Browser | undefined;
let demo: { close(): Promise<void> } | undefined;

async function closeAll(): Promise<void> {
  const [b, d] = [browser, demo];
  browser = undefined;
  demo = undefined;
  await b?.close();
  await d?.close();
}
afterAll(closeAll);

describe('MCP Apps in Chromium', () => {
  test.runIf(installed || runningInCi())(
    'issue 27 apps: the host renders the Keel app in a sandboxed iframe and the app calls a Keel tool through it',
    async () => {
      if (!installed) throw new Error(`Chromium is required in CI (${CHROMIUM}): apt-get install chromium`);
      const started = await within(startWeatherDemo({ port: 0 }), WAIT_MS, 'the example server');
      demo = started;
      browser = await within(
        puppeteer.launch({
          executablePath: CHROMIUM,
          headless: true,
          // Root in a container has no user namespace for Chromium's sandbox; the iframe sandbox
          // under test is the page's, not the browser process's.
          args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        }),
        WAIT_MS,
        'chromium launch',
      );
      try {
        const page = await browser.newPage();
        const pageErrors: string[] = [];
        page.on('pageerror', (error) => pageErrors.push(String(error)));
        await page.goto(started.url, { timeout: WAIT_MS, waitUntil: 'load' });

        const iframe = await page.waitForSelector('#app iframe', { timeout: WAIT_MS });
        expect(await iframe!.evaluate((el) => el.getAttribute('sandbox'))).toBe('allow-scripts');
        await page.waitForFunction(
          () => document.querySelector('#log')?.textContent?.includes('app calls refresh'),
          {
            timeout: WAIT_MS,
          },
        );
        const frame = page.frames().find((f) => f !== page.mainFrame()) as Frame;
        await frame.waitForFunction(() => document.getElementById('refreshed')?.textContent !== '', {
          timeout: WAIT_MS,
        });
        const shown = await frame.evaluate(() => ({
          forecast: document.getElementById('forecast')?.textContent,
          refreshed: document.getElementById('refreshed')?.textContent,
          origin: window.origin,
          csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content'),
        }));
        // The forecast tool's text, handed over by the host, rendered by the app.
        expect(shown.forecast).toBe('Oslo: sunny, 21 °C');
        // The app-only tool, called by the app through the host and the Keel client.
        expect(shown.refreshed).toBe('Oslo: refreshed, 22 °C');
        // Sandboxed without allow-same-origin: an opaque origin, and the host's CSP allows no network.
        expect(shown.origin).toBe('null');
        expect(shown.csp).toContain("connect-src 'none'");
        // The model sees the UI tool but not the app-only one.
        expect(await page.$eval('#model-tools', (el) => el.textContent)).toBe('forecast');
        expect(await page.$eval('#log', (el) => el.textContent)).toContain(
          'rendering ui://weather/forecast.html',
        );
        expect(pageErrors).toEqual([]);
      } finally {
        await closeAll();
      }
    },
    120_000,
  );
});
