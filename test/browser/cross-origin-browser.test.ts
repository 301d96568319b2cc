import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, PASSWORD, type BuiltClient } from '../helpers/factories';

// A real browser (Debian's Chromium, headless) against a real server: what a
// page on another origin can and cannot do with the API. Three origins, all on
// loopback: the wip server, a web app listed in WIP_CORS_ORIGINS, and an
// attacker's page. All three are 127.0.0.1 on different ports — the same
// *site*, so SameSite=Lax cookies flow between them and only the origin checks
// stand in the way.

/** A tiny page server: path → HTML. */
async function pageServer(
  pages: Record<string, string> = {},
): Promise<{ url: string; server: http.Server; pages: Record<string, string> }> {
  const server = http.createServer((req, res) => {
    const page = pages[req.url ?? '/'] ?? '<!doctype html><title>page</title><p>page</p>';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, pages };
}

let wip: TestServer;
let webApp: Awaited<ReturnType<typeof pageServer>>;
let attacker: Awaited<ReturnType<typeof pageServer>>;
let browser: Browser;
let context: BrowserContext;
let victim: BuiltClient;
let intruder: BuiltClient;

const test = suite('a browser and pages on other origins');
test.before(async () => {
  webApp = await pageServer();
  attacker = await pageServer();
  wip = await startTestServer({ env: { WIP_CORS_ORIGINS: webApp.url } });
  victim = await buildClient(wip);
  intruder = await buildClient(wip);
  // not a skip: without the browser this suite fails, never passes silently
  browser = await launchChromium();
  context = await browser.newContext();
});
test.after(async () => {
  await browser?.close();
  await wip?.stop();
  webApp?.server.close();
  attacker?.server.close();
});

const wipSession = async () => (await context.cookies(wip.url)).find((c) => c.name === 'wip_session');

test('a cross-site page auto-submitting a sign-in form does not sign the browser in (login CSRF)', async () => {
  for (const enctype of ['application/x-www-form-urlencoded', 'text/plain']) {
    // text/plain forms can smuggle JSON: name='{"email":"…","password":"…","x":"' value='"}'
    const fields =
      enctype === 'text/plain'
        ? `<input name='{"email":"${intruder.owner.email}","password":"${PASSWORD}","x":"' value='"}'>`
        : `<input name="email" value="${intruder.owner.email}"><input name="password" value="${PASSWORD}">`;
    attacker.pages['/login-csrf'] =
      `<!doctype html><form method="post" enctype="${enctype}" action="${wip.url}/api/client/auth/sign-in">${fields}</form>
      <script>document.forms[0].submit()</script>`;
    const page = await context.newPage();
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${wip.url}/api/client/auth/sign-in`),
      page.goto(`${attacker.url}/login-csrf`),
    ]);
    assert.ok([403, 415].includes(answer.status()), `${enctype}: ${answer.status()} ${await answer.text()}`);
    assert.is((await answer.json()).success, false);
    assert.is(await wipSession(), undefined, `${enctype}: the browser holds no wip session`);
    await page.close();
  }
});

test('a page on a listed origin signs in with fetch(credentials: include), reads /me with the cookie and writes with X-CSRF-Token', async () => {
  const page = await context.newPage();
  await page.goto(webApp.url);
  const result = await page.evaluate<Record<string, unknown>>(`(async () => {
    const api = ${JSON.stringify(wip.url)};
    const json = { 'content-type': 'application/json' };
    const signIn = await fetch(api + '/api/client/auth/sign-in', {
      method: 'POST', credentials: 'include', headers: json,
      body: JSON.stringify({ email: ${JSON.stringify(victim.owner.email)}, password: ${JSON.stringify(PASSWORD)} }),
    });
    // the app is on another origin: it cannot count on reading the API's cookie, so it takes the header
    const csrf = signIn.headers.get('x-csrf-token');
    const me = await fetch(api + '/api/client/auth/me', { credentials: 'include' });
    const write = (headers) => fetch(api + '/api/client/auth/two-factor/setup', {
      method: 'POST', credentials: 'include', headers, body: JSON.stringify({ password: ${JSON.stringify(PASSWORD)} }),
    });
    const withToken = await write({ ...json, 'x-csrf-token': csrf });
    const withoutToken = await write(json);
    return {
      signIn: signIn.status, csrf: typeof csrf === 'string' && csrf.length > 20, requestId: signIn.headers.get('x-request-id') !== null,
      me: me.status, email: (await me.json()).data.email,
      withToken: withToken.status, withoutToken: withoutToken.status, code: (await withoutToken.json()).error.code,
    };
  })()`);
  assert.equal(result, {
    signIn: 200,
    csrf: true,
    requestId: true,
    me: 200,
    email: victim.owner.email,
    withToken: 200,
    withoutToken: 403,
    code: 'CSRF_FAILED',
  });
  assert.ok(await wipSession(), 'the browser holds the session cookie');
  await page.close();
});

test('a page on an unlisted origin cannot read the API, even with the victim signed in', async () => {
  assert.ok(await wipSession(), 'the victim is signed in (previous test)');
  const page = await context.newPage();
  await page.goto(attacker.url);
  const result = await page.evaluate<string[]>(`(async () => {
    const api = ${JSON.stringify(wip.url)};
    const attempt = (path, init) => fetch(api + path, { credentials: 'include', ...init }).then((r) => 'read ' + r.status, (e) => 'rejected ' + e.name);
    return [
      await attempt('/api/client/auth/me'),
      await attempt('/api/client/auth/sign-in', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
    ];
  })()`);
  assert.equal(result, ['rejected TypeError', 'rejected TypeError']);
  // a blind no-cors write from the attacker (text/plain, no CSRF token) changes nothing either
  const blind = await page.evaluate<string>(`fetch(${JSON.stringify(wip.url + '/api/client/auth/sign-out')}, {
    method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: 'x',
  }).then((r) => r.type, (e) => 'rejected ' + e.name)`);
  // sent either way; the answer is opaque at best (helmet's Cross-Origin-Resource-Policy blocks even that)
  assert.ok(['opaque', 'rejected TypeError'].includes(blind), blind);
  await page.close();
  const app = await context.newPage();
  await app.goto(webApp.url);
  const me = await app.evaluate<number>(
    `fetch(${JSON.stringify(wip.url + '/api/client/auth/me')}, { credentials: 'include' }).then((r) => r.status)`,
  );
  assert.is(me, 200, 'still signed in');
  await app.close();
});

test.run();
