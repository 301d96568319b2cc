import path from 'node:path';
import { buildSync } from 'esbuild';
import type { BrowserContext, Page } from 'playwright-core';
import { PASSWORD } from './factories';

const root = path.resolve(__dirname, '..', '..', '..');
let bundle: string | undefined;

/**
 * The floor app's offline machinery (src/app/offline/testing.ts → globalThis.wipOffline), bundled by esbuild
 * from the sources, for evaluating in a page of the app's origin: the same IndexedDB, cookie and code as the app.
 */
export function offlineHarness(): string {
  bundle ??= buildSync({
    entryPoints: [path.join(root, 'src', 'app', 'offline', 'testing.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'chrome110',
    write: false,
    logLevel: 'warning',
  }).outputFiles[0].text;
  return bundle;
}

/**
 * A blank page of the server's origin (fulfilled by the browser itself: it runs none of the app, and has no CSP
 * to keep the harness from fetching), signed in as the user by the cookie sign-in, with the harness loaded: the
 * queue is driven by the test alone.
 */
export async function harnessPage(
  context: BrowserContext,
  baseUrl: string,
  user: { email: string; password?: string },
  clientId: number,
): Promise<Page> {
  const page = await context.newPage();
  const signedIn = await page.request.post(`${baseUrl}/api/client/auth/sign-in`, {
    data: { email: user.email, password: user.password || PASSWORD, clientId },
  });
  if (!signedIn.ok()) throw new Error(`sign-in: ${signedIn.status()} ${await signedIn.text()}`);
  await page.route(`${baseUrl}/offline-harness`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>harness</title>' }),
  );
  await page.goto(`${baseUrl}/offline-harness`);
  await page.evaluate(offlineHarness());
  return page;
}
