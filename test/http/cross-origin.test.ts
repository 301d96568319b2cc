import http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createApp } from '#app';
import { readMultipart } from '#http/multipart';
import { defineRoute } from '#http/route';
import { allRoutes } from '#http/routes/index';
import { request, startTestServer, type TestResponse, type TestServer } from '../helpers/server';
import { adminToken, buildClient, PASSWORD } from '../helpers/factories';
import { ADMIN_PASSWORD } from '../helpers/server';

// What a browser may and may not do from a page on another origin: login CSRF,
// cookie writes, body media types, CORS, caching and 405 Allow.

const APP_ORIGIN = 'http://app.example.test:3000';
const EVIL_ORIGIN = 'http://evil.example.test';

let server: TestServer;

const signInWith = (headers: Record<string, string>, email: string) =>
  server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD }, headers });

function sessionOf(res: TestResponse): { cookie: string; csrf: string } {
  const pairs = res.headers.getSetCookie().map((c) => c.split(';')[0]);
  return { cookie: pairs.join('; '), csrf: pairs.find((p) => p.startsWith('wip_csrf='))?.slice('wip_csrf='.length) ?? '' };
}

function assertRefused(res: TestResponse, code: string, status: number) {
  assert.is(res.status, status, res.text);
  assert.equal(res.body, { success: false, error: { code, message: res.body.error.message } });
  assert.equal(res.headers.getSetCookie(), [], 'no cookie set');
}

/** The routes that sign someone in, reviewed: adding one means deciding it refuses cross-site pages. */
const SESSION_ROUTES = [
  'POST /api/admin/auth/sign-in',
  'POST /api/client/auth/create-account',
  'POST /api/client/auth/reset-password/:token',
  'POST /api/client/auth/set-password/:token',
  'POST /api/client/auth/sign-in',
  'POST /api/client/auth/sign-in-v2',
  'POST /api/client/auth/sign-up',
  // SSO: the web app exchanges the one-time code, or relays the IdP's SAML response, from its own origin
  'POST /api/client/auth/sso/exchange',
  'POST /api/client/auth/vendor-saml',
  'POST /api/client/auth/verify-two-factor',
];

// ---------------------------------------------------------------------------
const crossSite = suite('cross-site requests (login CSRF, cookie writes)');
crossSite.before(async () => {
  server = await startTestServer({ env: { WIP_CORS_ORIGINS: APP_ORIGIN, WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
crossSite.after(async () => server.stop());

crossSite('the session-creating routes are exactly the reviewed ones', () => {
  const flagged = allRoutes()
    .filter((r) => r.createsSession)
    .map((r) => `${r.method.toUpperCase()} ${r.path}`)
    .sort();
  assert.equal(flagged, SESSION_ROUTES);
});

crossSite('sign-in from a page on another origin → 403 CSRF_FAILED, no session cookie', async () => {
  const client = await buildClient(server);
  assertRefused(await signInWith({ origin: EVIL_ORIGIN }, client.owner.email), 'CSRF_FAILED', 403);
  assertRefused(await signInWith({ origin: EVIL_ORIGIN, 'sec-fetch-site': 'cross-site' }, client.owner.email), 'CSRF_FAILED', 403);
  // Sec-Fetch-Site alone: the browser says the page is elsewhere
  assertRefused(await signInWith({ 'sec-fetch-site': 'cross-site' }, client.owner.email), 'CSRF_FAILED', 403);
  // another port of the same host is the same *site* (SameSite cookies flow), but not the same origin
  assertRefused(await signInWith({ 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' }, client.owner.email), 'CSRF_FAILED', 403);
  // sandboxed frames and file: pages send Origin: null
  assertRefused(await signInWith({ origin: 'null' }, client.owner.email), 'CSRF_FAILED', 403);
});

crossSite('every session-creating route refuses a cross-site page, before validation', async () => {
  for (const route of allRoutes().filter((r) => r.createsSession)) {
    const res = await server.request('POST', route.path.replace(/:\w+/g, 'some-token'), { body: {}, headers: { origin: EVIL_ORIGIN } });
    assert.is(res.status, 403, `${route.path} → ${res.status}`);
    assert.is(res.body.error.code, 'CSRF_FAILED', route.path);
  }
  const admin = await server.request('POST', '/api/admin/auth/sign-in', {
    body: { username: 'admin', password: ADMIN_PASSWORD },
    headers: { 'sec-fetch-site': 'cross-site' },
  });
  assertRefused(admin, 'CSRF_FAILED', 403);
});

crossSite('same-origin pages, listed origins and non-browser callers may sign in', async () => {
  const client = await buildClient(server);
  const allowed: Record<string, string>[] = [
    {},
    { origin: server.url },
    { 'sec-fetch-site': 'same-origin', origin: server.url },
    // a same-origin page behind a proxy that rewrote Host: the browser's Sec-Fetch-Site is what counts
    { 'sec-fetch-site': 'same-origin', origin: 'https://wip.example.test' },
    { 'sec-fetch-site': 'none' },
    { origin: APP_ORIGIN },
    { origin: APP_ORIGIN, 'sec-fetch-site': 'cross-site' },
  ];
  for (const headers of allowed) {
    const res = await signInWith(headers, client.owner.email);
    assert.is(res.status, 200, `${JSON.stringify(headers)}: ${res.text}`);
  }
});

crossSite(
  'a cookie-authenticated write from another origin → 403 CSRF_FAILED even with the token; listed and same origin pass',
  async () => {
    const client = await buildClient(server);
    const session = sessionOf(await signInWith({}, client.owner.email));
    const write = (headers: Record<string, string>) =>
      server.request('POST', '/api/client/auth/two-factor/setup', {
        body: { password: PASSWORD },
        headers: { cookie: session.cookie, 'x-csrf-token': session.csrf, ...headers },
      });
    const refused: Record<string, string>[] = [
      { origin: EVIL_ORIGIN },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      const res = await write(headers);
      assert.is(res.status, 403, JSON.stringify(headers));
      assert.is(res.body.error.code, 'CSRF_FAILED');
    }
    assert.is((await write({ origin: APP_ORIGIN, 'sec-fetch-site': 'cross-site' })).status, 200);
    assert.is((await write({ origin: server.url, 'sec-fetch-site': 'same-origin' })).status, 200);
    assert.is((await write({})).status, 200);
  },
);

crossSite(
  'the CSRF token is also in an X-CSRF-Token response header (sign-in, every cookie request), for apps that cannot read the cookie',
  async () => {
    const client = await buildClient(server);
    const signedIn = await signInWith({ origin: APP_ORIGIN }, client.owner.email);
    const session = sessionOf(signedIn);
    assert.ok(session.csrf);
    assert.is(signedIn.headers.get('x-csrf-token'), session.csrf);
    const me = await server.request('GET', '/api/client/auth/me', { headers: { cookie: session.cookie, origin: APP_ORIGIN } });
    assert.is(me.status, 200);
    assert.is(me.headers.get('x-csrf-token'), session.csrf);
    // bearer callers need none
    assert.is((await server.request('GET', '/api/client/auth/me', { token: client.owner.token })).headers.get('x-csrf-token'), null);
  },
);

crossSite('bearer-token writes carry no ambient credential: any origin may send them', async () => {
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/client/auth/two-factor/setup', {
    token: client.owner.token,
    body: { password: PASSWORD },
    headers: { origin: EVIL_ORIGIN, 'sec-fetch-site': 'cross-site' },
  });
  assert.is(res.status, 200, res.text);
});

// ---------------------------------------------------------------------------
const media = suite('JSON routes accept only JSON bodies');
media.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
media.after(async () => server.stop());

media('the routes that sign in are 415 for form and text bodies (what a cross-site form can send)', async () => {
  const client = await buildClient(server);
  const form = new URLSearchParams({ email: client.owner.email, password: PASSWORD }).toString();
  const bodies = [
    { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    { raw: JSON.stringify({ email: client.owner.email, password: PASSWORD }), headers: { 'content-type': 'text/plain;charset=UTF-8' } },
    {
      raw: '--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--x--\r\n',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    },
  ];
  for (const options of bodies) {
    const res = await server.request('POST', '/api/client/auth/sign-in', options);
    assertRefused(res, 'UNSUPPORTED_MEDIA_TYPE', 415);
    assert.is(res.body.error.message, 'This route accepts application/json request bodies only');
  }
});

media('a text/plain body on an authenticated write → 415 and nothing changes', async () => {
  const client = await buildClient(server);
  const change = { currentPassword: PASSWORD, newPassword: 'a-brand-new-passphrase' };
  const res = await server.request('POST', '/api/client/auth/change-password', {
    token: client.owner.token,
    raw: JSON.stringify(change),
    headers: { 'content-type': 'text/plain' },
  });
  assert.is(res.status, 415, res.text);
  assert.is(res.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
  const old = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(old.status, 200, 'the password is unchanged');
});

media('JSON with a charset or a +json type passes; an empty POST without a content type is no body', async () => {
  const client = await buildClient(server);
  for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
    const res = await server.request('POST', '/api/client/auth/sign-in', {
      raw: JSON.stringify({ email: client.owner.email, password: PASSWORD }),
      headers: { 'content-type': type },
    });
    assert.is(res.status, 200, `${type}: ${res.text}`);
  }
  assert.is((await server.request('POST', '/api/client/auth/sign-out', { token: client.owner.token })).status, 200);
});

media('a route may declare multipart: it reads the body as a stream, and JSON is then 415', async () => {
  const upload = defineRoute({
    method: 'post',
    path: '/api/client/test-upload',
    summary: 'test route accepting multipart',
    auth: 'public',
    accepts: 'multipart',
    async handler({ ctx }) {
      const { fields } = await readMultipart(ctx, {
        budget: { remaining: 1024, tooLarge: () => new Error('too large') as never },
        onFile: async () => undefined,
      });
      return { title: z.string().parse(fields.title) };
    },
  });
  const httpServer = http.createServer(createApp(server.deps, [upload]).callback()).listen(0, '127.0.0.1');
  await new Promise((r) => httpServer.once('listening', r));
  const base = `http://127.0.0.1:${(httpServer.address() as { port: number }).port}`;
  try {
    const form = new FormData();
    form.set('title', 'manual');
    const res = await fetch(`${base}/api/client/test-upload`, { method: 'POST', body: form });
    assert.is(res.status, 200);
    assert.equal(await res.json(), { success: true, data: { title: 'manual' } });
    const json = await request(base, 'POST', '/api/client/test-upload', { body: { title: 'x' } });
    assert.is(json.status, 415);
    assert.is(json.body.error.message, 'This route accepts multipart/form-data request bodies only');
  } finally {
    httpServer.close();
  }
});

// ---------------------------------------------------------------------------
const corsSuite = suite('CORS for listed web app origins');
corsSuite.before(async () => {
  server = await startTestServer({ env: { WIP_CORS_ORIGINS: `${APP_ORIGIN}, https://other.example.test` } });
});
corsSuite.after(async () => server.stop());

const preflight = (path: string, origin: string) =>
  server.request('OPTIONS', path, {
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-csrf-token' },
  });

corsSuite("a listed origin's preflight is answered before authentication: methods, headers, max age", async () => {
  for (const path of ['/api/client/auth/sign-in', '/api/client/auth/me', '/api/admin/client']) {
    const res = await preflight(path, APP_ORIGIN);
    assert.is(res.status, 204, `${path}: ${res.text}`);
    assert.is(res.headers.get('access-control-allow-origin'), APP_ORIGIN);
    assert.is(res.headers.get('access-control-allow-credentials'), 'true');
    assert.match(res.headers.get('vary') ?? '', /Origin/);
    const methods = (res.headers.get('access-control-allow-methods') ?? '').split(',');
    for (const m of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) assert.ok(methods.includes(m), m);
    const headers = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const h of ['authorization', 'content-type', 'x-csrf-token', 'x-client-id', 'idempotency-key']) assert.ok(headers.includes(h), h);
    assert.match(res.headers.get('access-control-max-age') ?? '', /^\d+$/);
  }
});

corsSuite('an unlisted origin gets no CORS header — on its preflight (which is still no 405) and on requests', async () => {
  const res = await preflight('/api/client/auth/sign-in', EVIL_ORIGIN);
  assert.is(res.status, 200);
  assert.is(res.headers.get('allow'), 'POST');
  assert.is(res.headers.get('access-control-allow-origin'), null);
  assert.is(res.headers.get('access-control-allow-credentials'), null);
  const get = await server.request('GET', '/api/client/auth/me', { headers: { origin: EVIL_ORIGIN } });
  assert.is(get.headers.get('access-control-allow-origin'), null);
  // an origin that merely starts like a listed one is another origin
  const near = await server.request('GET', '/api/client/auth/me', { headers: { origin: `${APP_ORIGIN}.evil.test` } });
  assert.is(near.headers.get('access-control-allow-origin'), null);
});

corsSuite("a listed origin's requests — errors included — echo it, allow credentials and expose the API's headers", async () => {
  const client = await buildClient(server);
  for (const token of [client.owner.token, undefined]) {
    const res = await server.request('GET', '/api/client/auth/me', { token, headers: { origin: 'https://other.example.test' } });
    assert.is(res.status, token ? 200 : 401);
    assert.is(res.headers.get('access-control-allow-origin'), 'https://other.example.test');
    assert.is(res.headers.get('access-control-allow-credentials'), 'true');
    assert.match(res.headers.get('vary') ?? '', /Origin/);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',');
    assert.equal(exposed, [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'X-License-Warning',
      'X-CSRF-Token',
      'Idempotency-Replayed',
      'Wip-Data-Epoch',
    ]);
  }
});

// ---------------------------------------------------------------------------
const caching = suite('Cache-Control and 405 Allow');
caching.before(async () => {
  server = await startTestServer();
});
caching.after(async () => server.stop());

caching('every API answer is no-store: sign-in, refresh, me, admin sign-in, 2FA setup, errors', async () => {
  const client = await buildClient(server);
  const signedIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const answers = [
    signedIn,
    await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: signedIn.body.data.refreshToken } }),
    await server.request('GET', '/api/client/auth/refresh', { token: client.owner.token }),
    await server.request('GET', '/api/client/auth/me', { token: client.owner.token }),
    await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: ADMIN_PASSWORD } }),
    await server.request('POST', '/api/client/auth/two-factor/setup', { token: client.owner.token, body: { password: PASSWORD } }),
    await server.request('GET', '/api/client/auth/me'),
    await server.request('GET', '/api/nothing-here'),
    await server.request('GET', '/healthz'),
    await server.request('GET', '/metrics'),
  ];
  for (const res of answers) assert.is(res.headers.get('cache-control'), 'no-store', `${res.status} ${res.text.slice(0, 80)}`);
  assert.is(answers[0].status, 200);
  assert.is(answers[5].status, 200);
  assert.ok(await adminToken(server));
});

caching('a known path with the wrong method → 405 in the envelope with Allow listing the methods', async () => {
  const patch = await server.request('PATCH', '/api/client/auth/sign-in');
  assert.is(patch.status, 405);
  assert.equal(patch.body, { success: false, error: { message: 'Method not allowed on this route', code: 'METHOD_NOT_ALLOWED' } });
  assert.is(patch.headers.get('allow'), 'POST');
  const del = await server.request('DELETE', '/api/client/auth/me');
  assert.is(del.status, 405);
  assert.equal(del.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD']);
  // GET and POST on /refresh
  const put = await server.request('PUT', '/api/client/auth/refresh');
  assert.equal(put.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD', 'POST']);
  // a method the router does not know at all is no 501
  const odd = await server.request('PROPFIND', '/api/client/auth/me');
  assert.is(odd.status, 405);
  assert.equal(odd.headers.get('allow')?.split(', ').sort(), ['GET', 'HEAD']);
});

crossSite.run();
media.run();
corsSuite.run();
caching.run();
