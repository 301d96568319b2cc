import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '../../src/http/routes';
import { ROLES } from '../../src/policies/roles';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';

// Every declared route, from the same list the server mounts: a route added
// later is covered here without anyone remembering to add it.

/** Routes anyone may call. Adding one is a deliberate decision: extend this list in the same change. */
const PUBLIC_ROUTES = [
  'GET /healthz',
  'GET /readyz',
  'GET /metrics',
  'GET /api/client/on-premise',
  'GET /api/client/auth/client-security-settings',
  'POST /api/admin/auth/sign-in',
  'POST /api/client/auth/sign-in',
  'POST /api/client/auth/sign-in-v2',
  'POST /api/client/auth/verify-two-factor',
  'POST /api/client/auth/refresh',
  'POST /api/client/auth/refresh-token',
  'POST /api/client/auth/sign-up',
  'POST /api/client/auth/create-account',
  'POST /api/client/auth/forgot',
  'POST /api/client/auth/reset-password/:token',
  'POST /api/client/auth/set-password/:token',
  // single sign-on (issue 11): starting a sign-in, the IdP's redirect back, the one-time code exchange
  'GET /api/client/auth/oidc',
  'GET /api/client/auth/oidc/callback',
  'GET /api/client/auth/vendor-dynamics',
  'POST /api/client/auth/sso/exchange',
  'POST /api/client/auth/vendor-saml',
  'GET /api/client/auth/vendor-saml',
  'GET /api/client/auth/vendor-saml/metadata',
  // which build and API contract answers: nothing secret, apps check it before signing in
  'GET /api/client/version',
  // removed routes (SPEC.md 4.3): 410 GONE to anyone, there is nothing left to protect
  'GET /api/client/reports',
  'POST /api/client/reports',
  // the API description and its reference page: they describe the API, they grant nothing
  'GET /api/openapi.json',
  'GET /api/docs',
  'GET /api/docs/:file',
  // the admin console's page and files (and the account mails' link pages): the page signs in through the API
  'GET /',
  'GET /console/',
  'GET /console/:file',
  'GET /auth/set-password/:token',
  'GET /auth/reset-password/:token',
].sort();

const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;
const bodyFor = (method: string) => (method === 'get' ? undefined : {});
const concrete = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => (/token/i.test(name) ? 'some-token' : '999999'));

let server: TestServer;
const matrix = suite('authorization matrix over every route');
matrix.before(async () => {
  server = await startTestServer();
});
matrix.after(async () => server.stop());

matrix('only the reviewed routes are public', () => {
  assert.equal(allRoutes.filter((r) => r.auth === 'public').map(key).sort(), PUBLIC_ROUTES);
});

matrix('every other route answers 401 UNAUTHORIZED without credentials, and with a forged token', async () => {
  for (const route of allRoutes.filter((r) => r.auth !== 'public')) {
    for (const token of [undefined, 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOjF9.forged']) {
      const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token, body: bodyFor(route.method) });
      assert.is(res.status, 401, `${key(route)} → ${res.status}`);
      assert.is(res.body.error.code, 'UNAUTHORIZED', key(route));
    }
  }
});

matrix('system-admin routes refuse client tokens, even a Security Administrator\'s (403)', async () => {
  const client = await buildClient(server);
  for (const route of allRoutes.filter((r) => r.auth === 'admin')) {
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token: client.owner.token, body: bodyFor(route.method) });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
    assert.is(res.body.error.code, 'FORBIDDEN');
  }
});

matrix('client-user routes refuse system-admin tokens (403)', async () => {
  const token = await adminToken(server);
  for (const route of allRoutes.filter((r) => r.auth === 'user')) {
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token, body: bodyFor(route.method) });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
  }
});

matrix('role-guarded routes refuse a client user holding every role but the allowed ones (403)', async () => {
  const client = await buildClient(server);
  // per route, a user holding every role but the route's own
  const users = new Map<string, string>();
  const guarded = allRoutes.filter((r) => r.roles && r.roles.length > 0);
  assert.ok(guarded.length >= 5);
  // one user per distinct set of allowed roles, holding all the others
  const tokens = new Map<string, string>();
  for (const route of guarded) {
    const roles = ROLES.filter((role) => !route.roles!.includes(role));
    if (!users.has(roles.join())) users.set(roles.join(), (await buildUser(server, client, { roles })).token!);
    const res = await server.request(route.method.toUpperCase(), concrete(route.path), { token: users.get(roles.join()), body: bodyFor(route.method) });
    assert.is(res.status, 403, `${key(route)} → ${res.status}`);
    assert.is(res.body.error.code, 'FORBIDDEN');
  }
});

matrix.run();
