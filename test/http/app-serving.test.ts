import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';

// The floor app is served at /app/ like the console at /console/ — its page for every path under
// /app/ that names no file (deep links survive a reload), its hashed files for a year, its service worker at a
// stable, revalidated path, the strict CSP — and / sends a signed-in client user without an administrator
// role there, everyone else to the console.

const test = suite('the floor app at /app/');
let wip: TestServer;
let client: BuiltClient;

test.before(async () => {
  wip = await startTestServer();
  client = await buildClient(wip);
});
test.after(async () => {
  await wip?.stop();
});

test('the page at /app/ and at every page path, revalidated, with the strict CSP; /app redirects there', async () => {
  const redirect = await wip.request('GET', '/app');
  assert.is(redirect.status, 302);
  assert.is(redirect.headers.get('location'), '/app/');
  for (const path of ['/app/', '/app/signin', '/app/board', '/app/jobs/12', '/app/jobs/12/run', '/app/templates/3/edit']) {
    const page = await wip.request('GET', path);
    assert.is(page.status, 200, path);
    assert.match(page.headers.get('content-type') ?? '', 'text/html', path);
    assert.is(page.headers.get('cache-control'), 'no-cache', path);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, "default-src 'none'", path);
    assert.match(csp, "script-src 'self';", path);
    assert.not.match(csp, 'unsafe-inline', path);
    assert.match(page.text, /<script type="module" src="\/app\/main-[A-Z0-9]+\.js"><\/script>/, path);
    assert.not.match(page.text, /<script>|<style>|style="/, `${path}: nothing inline`);
  }
  // deeper than any page of the app: not the page
  assert.is((await wip.request('GET', '/app/a/b/c/d')).status, 404);
});

test('hashed files for a year; a missing file, the manifest and the page by name are 404, never the page', async () => {
  const page = await wip.request('GET', '/app/');
  const files = [...page.text.matchAll(/(?:src|href)="\/app\/([a-z]+-[A-Z0-9]+\.(?:js|css|svg|webmanifest))"/g)].map((m) => m[1]);
  assert.ok(files.length >= 4, page.text);
  for (const file of files) {
    const asset = await wip.request('GET', `/app/${file}`);
    assert.is(asset.status, 200, file);
    assert.is(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable', file);
    assert.not.match(asset.headers.get('content-type') ?? '', 'text/html', file);
  }
  for (const missing of ['/app/main-OLDHASH0.js', '/app/manifest.json', '/app/index.html', '/app/nothing.css']) {
    const answer = await wip.request('GET', missing);
    assert.is(answer.status, 404, missing);
    assert.is(answer.body.error.code, 'NOT_FOUND', missing);
  }
});

test('the service worker: a stable path, revalidated, precaching the page and every file of this build', async () => {
  const worker = await wip.request('GET', '/app/sw.js');
  assert.is(worker.status, 200);
  assert.match(worker.headers.get('content-type') ?? '', 'javascript');
  assert.is(worker.headers.get('cache-control'), 'no-cache');
  const page = await wip.request('GET', '/app/');
  const files = [...page.text.matchAll(/(?:src|href)="(\/app\/[a-z]+-[A-Z0-9]+\.(?:js|css|svg|webmanifest))"/g)].map((m) => m[1]);
  for (const file of files) assert.ok(worker.text.includes(`"${file}"`), `precaches ${file}`);
  assert.ok(worker.text.includes('"/app/"'), 'precaches the page');
});

test('/ sends a client user without an administrator role to /app/, administrators and nobody to the console', async () => {
  const operator = await buildUser(wip, client, { roles: ['operator'] });
  const author = await buildUser(wip, client, { roles: ['author', 'approver'] });
  assert.is((await wip.request('GET', '/', { token: operator.token })).headers.get('location'), '/app/');
  assert.is((await wip.request('GET', '/', { token: author.token })).headers.get('location'), '/app/');
  // the client's owner is its Security Administrator: the console has their pages
  assert.is((await wip.request('GET', '/', { token: client.owner.token })).headers.get('location'), '/console/');
  assert.is((await wip.request('GET', '/')).headers.get('location'), '/console/');
  const signedIn = await wip.request('GET', '/', { token: operator.token });
  assert.is(signedIn.status, 302);
  assert.is(signedIn.headers.get('cache-control'), 'no-store', 'the answer depends on who asks');
});

test('GET /api/client/auth/refresh with the cookie sets the session and CSRF cookies again (the app renews them)', async () => {
  const operator = await buildUser(wip, client, { roles: ['operator'] });
  const signed = await wip.request('POST', '/api/client/auth/sign-in', { body: { email: operator.email, password: operator.password } });
  const cookie = signed.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const session = /wip_session=([^;]+)/.exec(cookie)![1];
  wip.clock.advance(60 * 60_000);
  const renewed = await wip.request('GET', '/api/client/auth/refresh', { headers: { cookie } });
  assert.is(renewed.status, 200, renewed.text);
  const set = renewed.headers.getSetCookie();
  const again = set.find((c) => c.startsWith('wip_session='));
  assert.ok(again, JSON.stringify(set));
  assert.is(/wip_session=([^;]+)/.exec(again)![1], session, 'the same session, a new lifetime');
  assert.match(again, /expires=/i);
  assert.ok(set.some((c) => c.startsWith('wip_csrf=')));
  assert.ok(renewed.headers.get('x-csrf-token'));
  // a bearer token has no cookie to renew
  const bearer = await wip.request('GET', '/api/client/auth/refresh', { token: operator.token });
  assert.equal(bearer.headers.getSetCookie(), []);
});

test('a user who must still enrol a second factor gets the pages (to enrol there), the API stays closed', async () => {
  const strict = await buildClient(wip);
  const user = await buildUser(wip, strict, { roles: ['operator'] });
  const required = await wip.request('PUT', '/api/client/auth/client-security-settings', {
    token: strict.owner.token,
    body: { twoFactorRequired: 'all' },
  });
  assert.is(required.status, 200, required.text);
  for (const path of ['/app/', '/app/deviations', '/console/'])
    assert.is((await wip.request('GET', path, { token: user.token })).status, 200, path);
  const api = await wip.request('GET', '/api/client/supervision/board', { token: user.token });
  assert.is(api.status, 403);
  assert.is(api.body.error.code, 'TWO_FACTOR_SETUP_REQUIRED');
});

test("the app's texts are a namespace of the i18n bundles, English and German, overridable per client", async () => {
  const operator = await buildUser(wip, client, { roles: ['operator'] });
  const en = await wip.request('GET', '/api/client/translate?lang=en&namespace=app', { token: operator.token });
  const de = await wip.request('GET', '/api/client/translate?lang=de&namespace=app', { token: operator.token });
  assert.is(en.status, 200, en.text);
  assert.is(en.body.data.translations['shell.signIn.title'], 'Sign in');
  assert.is(de.body.data.translations['shell.signIn.title'], 'Anmelden');
  assert.is(de.body.data.translations['supervisor.nav.board'], 'Übersicht');
});

test.run();
