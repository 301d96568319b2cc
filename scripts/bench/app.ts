import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium, type Page } from 'playwright-core';
import { json, median, root, startWip, stopProcess } from './harness';

/**
 * `app`: the floor app's shell on loopback in Debian's Chromium.
 *  - first load: a fresh browser profile (no HTTP cache, no service worker) opens /app/ signed in: milliseconds
 *    until the shell has loaded (the page's load event: its files fetched and run) and until the signed-in home
 *    page shows (that adds the API's answers: who, branding, texts, the home cards), and the bytes the page
 *    fetched from the server (headers and bodies; the worker's precache, fetched after, not counted);
 *  - repeat load: the same profile opens /app/ again (median of BENCH_APP_ROUNDS, default 5), the shell from
 *    the service worker's cache: milliseconds, and the bytes still fetched from the server (the API's answers);
 *  - JavaScript shipped: gzip sizes of the scripts the first load ran and of every script of the build
 *    (lazily loaded pages included), and of the style sheet.
 * Targets: the shell's first load on a LAN under 1 s; later loads from the cache.
 */
const CHROMIUM = '/usr/bin/chromium';
const OWNER = { email: 'floor@example.test', password: 'Quiet-Lantern-Harbor-42' };

export async function appScenario(): Promise<Record<string, unknown>> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-bench-app-'));
  const wip = await startWip(dataDir, { WIP_LOG_LEVEL: 'warn' }, 'wip-app');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const admin = await json<{ token: string }>(`${wip.url}/api/admin/auth/sign-in`, 'POST', {
      username: 'admin',
      password: 'bench-admin-password',
    });
    await json(`${wip.url}/api/admin/client`, 'POST', { name: 'Bench Works', owner: OWNER }, admin.token);
    const signIn = await fetch(`${wip.url}/api/client/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: wip.url },
      body: JSON.stringify(OWNER),
    });
    await signIn.arrayBuffer();
    const cookies = signIn.headers.getSetCookie().map((header) => {
      const [pair] = header.split(';');
      const at = pair.indexOf('=');
      return { name: pair.slice(0, at), value: pair.slice(at + 1), url: wip.url };
    });

    const context = await browser.newContext({ viewport: { width: 820, height: 1180 } });
    await context.addCookies(cookies);
    const page = await context.newPage();

    const first = await measuredLoad(page, `${wip.url}/app/`);
    const firstScripts = first.fetched.filter((f) => f.url.endsWith('.js')).map((f) => path.basename(new URL(f.url).pathname));
    // the worker installs after the page loaded: its precache is the rest of the build
    await page.evaluate(`new Promise((resolve) => {
      if (navigator.serviceWorker.controller) resolve();
      else navigator.serviceWorker.addEventListener('controllerchange', () => resolve());
    })`);
    const rounds = Number(process.env.BENCH_APP_ROUNDS ?? 5);
    const repeats = [];
    for (let i = 0; i < rounds; i++) repeats.push(await measuredLoad(page, `${wip.url}/app/`));
    await context.close();

    const dist = path.join(root, 'dist', 'app');
    const gz = (file: string) => zlib.gzipSync(fs.readFileSync(path.join(dist, file)), { level: 9 }).length;
    const builtScripts = fs.readdirSync(dist).filter((f) => f.endsWith('.js') && f !== 'sw.js');
    const kb = (bytes: number) => Number((bytes / 1024).toFixed(1));
    const figures = {
      app: {
        loadAverage: os.loadavg().map((n) => Number(n.toFixed(1))),
        firstLoad: {
          msToSignedInPage: first.ms,
          msShellLoaded: first.shellMs,
          msDomContentLoaded: first.domContentLoadedMs,
          bytesFromServer: first.bytes,
          requests: first.fetched.length,
        },
        repeatLoad: {
          msToSignedInPageMedian: median(repeats.map((r) => r.ms)),
          msShellLoadedMedian: median(repeats.map((r) => r.shellMs)),
          msDomContentLoadedMedian: median(repeats.map((r) => r.domContentLoadedMs)),
          msEach: repeats.map((r) => r.ms),
          bytesFromServerMedian: median(repeats.map((r) => r.bytes)),
          requestsToServer: repeats.at(-1)!.fetched.map((f) => new URL(f.url).pathname),
          fromServiceWorker: repeats.at(-1)!.fromWorker,
        },
        javascriptKbGzip: {
          firstLoad: kb(firstScripts.reduce((sum, file) => sum + gz(file), 0)),
          wholeBuild: kb(builtScripts.reduce((sum, file) => sum + gz(file), 0)),
          serviceWorker: kb(gz('sw.js')),
          files: builtScripts.length,
        },
        cssKbGzip: kb(
          fs
            .readdirSync(dist)
            .filter((f) => f.endsWith('.css'))
            .reduce((sum, file) => sum + gz(file), 0),
        ),
      },
    };
    console.log(JSON.stringify(figures, null, 2));
    return figures;
  } finally {
    await browser.close();
    await stopProcess(wip.child);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Opens `url` and waits for the page's heading; what came from the server and what from the service worker. */
async function measuredLoad(page: Page, url: string) {
  const fetched: { url: string; bytes: number }[] = [];
  let fromWorker = 0;
  const pending: Promise<void>[] = [];
  const onFinished = (request: import('playwright-core').Request) => {
    pending.push(
      (async () => {
        const response = await request.response();
        if (!response) return;
        if (response.fromServiceWorker()) {
          fromWorker++;
          return;
        }
        const sizes = await request.sizes();
        fetched.push({ url: request.url(), bytes: sizes.responseHeadersSize + sizes.responseBodySize });
      })(),
    );
  };
  page.on('requestfinished', onFinished);
  const started = performance.now();
  await page.goto(url);
  await page.locator('main h1').first().waitFor();
  await page.locator('.loading').waitFor({ state: 'detached' });
  const ms = Math.round(performance.now() - started);
  // the shell alone (its files fetched and run), apart from the API answers the signed-in page then waits for
  const timing = await page.evaluate<{ dcl: number; load: number }>(
    "(() => { const n = performance.getEntriesByType('navigation')[0]; return { dcl: Math.round(n.domContentLoadedEventEnd), load: Math.round(n.loadEventEnd) }; })()",
  );
  await page.waitForLoadState('networkidle');
  page.off('requestfinished', onFinished);
  await Promise.all(pending);
  return {
    ms,
    shellMs: timing.load,
    domContentLoadedMs: timing.dcl,
    bytes: fetched.reduce((sum, f) => sum + f.bytes, 0),
    fetched,
    fromWorker,
  };
}
