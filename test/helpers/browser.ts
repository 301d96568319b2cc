import fs from 'node:fs';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { waitFor } from './wait';

/** Debian's Chromium: playwright's own browser downloads cannot reach their hosts here. */
export const CHROMIUM = '/usr/bin/chromium';
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Launches headless Chromium, or fails with how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install chromium; .ci/run does it as root)`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** axe-core on the current page: no serious or critical violation. */
export async function assertAccessible(page: Page, where: string): Promise<void> {
  // through DevTools, not a <script> (the console's CSP rightly refuses an inline one)
  if ((await page.evaluate('typeof window.axe')) === 'undefined') await page.evaluate(AXE);
  const violations = await page.evaluate<{ id: string; impact: string; nodes: { target: string[] }[] }[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.equal(serious, [], `${where}: ${JSON.stringify(serious)}`);
}

/**
 * Waits until `expression` is true in the page. Playwright's own
 * waitForFunction evaluates a string with eval() inside the page, which the
 * console's and the app's CSP (script-src 'self') refuse; page.evaluate goes
 * through DevTools and is not subject to it.
 */
export async function waitInPage(page: Page, expression: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(`${expression} in the page`, () => page.evaluate<boolean>(`Boolean(${expression})`), timeoutMs);
}

/** Opens a console page by its hash route and waits until it has loaded. */
export async function openConsolePage(page: Page, baseUrl: string, hash: string, heading: string | RegExp): Promise<void> {
  await page.goto(`${baseUrl}/console/#/${hash}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await page.locator('.loading').waitFor({ state: 'detached' });
}
