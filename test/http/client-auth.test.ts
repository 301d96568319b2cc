import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, signIn, uniqueEmail } from '../helpers/factories';

let server: TestServer;

const signInSuite = suite('POST /api/client/auth/sign-in');
signInSuite.before(async () => {
  server = await startTestServer();
});
signInSuite.after(async () => server.stop());

signInSuite('returns token, refreshToken and the user, and sets an HttpOnly SameSite=Lax cookie', async () => {
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(res.status, 200);
  assert.is(res.body.success, true);
  assert.type(res.body.data.token, 'string');
  assert.type(res.body.data.refreshToken, 'string');
  const user = res.body.data.user;
  assert.equal(
    {
      id: user.id,
      email: user.email,
      firstName: user.firstName,
      lastName: user.lastName,
      roles: user.roles,
      licenseType: user.licenseType,
      clientId: user.clientId,
    },
    {
      id: client.owner.id,
      email: client.owner.email,
      firstName: '',
      lastName: '',
      roles: ['admin'],
      licenseType: 'full',
      clientId: client.id,
    },
  );
  assert.not.ok('passwordHash' in user || 'password_hash' in user);
  const cookie = res.headers.get('set-cookie') ?? '';
  assert.match(cookie, /wip_session=/);
  assert.match(cookie, /httponly/i);
  assert.match(cookie, /samesite=lax/i);
  assert.not.match(cookie, /secure/i); // plain HTTP here
});

signInSuite('the email is matched case-insensitively', async () => {
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: client.owner.email.toUpperCase(), password: PASSWORD },
  });
  assert.is(res.status, 200);
});

signInSuite('wrong password and unknown email give the same 401 INVALID_CREDENTIALS', async () => {
  const client = await buildClient(server);
  const wrong = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: client.owner.email, password: 'not-the-password' },
  });
  const unknown = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email: uniqueEmail('nobody'), password: 'not-the-password' },
  });
  assert.is(wrong.status, 401);
  assert.is(unknown.status, 401);
  assert.equal(wrong.body, unknown.body);
  assert.is(wrong.body.error.code, 'INVALID_CREDENTIALS');
});

signInSuite('422 with the failing fields when email or password is missing', async () => {
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email: 'not-an-email' } });
  assert.is(res.status, 422);
  assert.is(res.body.error.code, 'VALIDATION_ERROR');
  const paths = res.body.error.details.fields.map((f: { path: string }) => f.path).sort();
  assert.equal(paths, ['body.email', 'body.password']);
});

signInSuite('an invited user (no password yet) cannot sign in', async () => {
  const client = await buildClient(server);
  const invited = await buildUser(server, client, { password: null });
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email: invited.email, password: '' + PASSWORD } });
  assert.is(res.status, 401);
});

signInSuite('the same email in two clients: one matching password signs in to that client', async () => {
  const email = uniqueEmail('shared');
  const a = await buildClient(server, { ownerEmail: email });
  const b = await buildClient(server);
  await buildUser(server, b, { email, password: 'another-password-b' });
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: 'another-password-b' } });
  assert.is(res.status, 200);
  assert.is(res.body.data.user.clientId, b.id);
  const resA = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD } });
  assert.is(resA.body.data.user.clientId, a.id);
});

signInSuite('the same email and password in two clients: 409 CLIENT_SELECTION_REQUIRED naming only those clients', async () => {
  const email = uniqueEmail('twice');
  const a = await buildClient(server, { ownerEmail: email, name: 'Alpha Works' });
  const b = await buildClient(server, { name: 'Beta Works' });
  await buildClient(server); // a third client that must not be named
  await buildUser(server, b, { email });
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD } });
  assert.is(res.status, 409);
  assert.is(res.body.error.code, 'CLIENT_SELECTION_REQUIRED');
  assert.equal(res.body.error.details.clients, [
    { id: a.id, name: 'Alpha Works' },
    { id: b.id, name: 'Beta Works' },
  ]);
  const withBody = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD, clientId: b.id } });
  assert.is(withBody.status, 200);
  assert.is(withBody.body.data.user.clientId, b.id);
  const withHeader = await server.request('POST', '/api/client/auth/sign-in', {
    body: { email, password: PASSWORD },
    headers: { 'x-client-id': String(a.id) },
  });
  assert.is(withHeader.status, 200);
  assert.is(withHeader.body.data.user.clientId, a.id);
});

const v2 = suite('POST /api/client/auth/sign-in-v2');
v2.before(async () => {
  server = await startTestServer();
});
v2.after(async () => server.stop());

v2('returns accessToken, refreshToken, tokenType and lifetimes in seconds', async () => {
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/client/auth/sign-in-v2', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(res.status, 200);
  assert.is(res.body.data.tokenType, 'Bearer');
  assert.is(res.body.data.expiresIn, 24 * 3600);
  assert.is(res.body.data.refreshExpiresIn, 30 * 24 * 3600);
  assert.is(res.body.data.user.id, client.owner.id);
  const me = await server.request('GET', '/api/client/auth/me', { token: res.body.data.accessToken });
  assert.is(me.status, 200);
});

const tokens = suite('tokens: me, expiry, refresh rotation, sign-out');
tokens.before(async () => {
  server = await startTestServer({ env: { WIP_ACCESS_TOKEN_TTL: '15m', WIP_SESSION_IDLE_TTL: '1h' } });
});
tokens.after(async () => server.stop());

tokens('GET /api/client/auth/me returns the current user; no token → 401 UNAUTHORIZED; garbage → 401', async () => {
  const client = await buildClient(server);
  const me = await server.request('GET', '/api/client/auth/me', { token: client.owner.token });
  assert.is(me.status, 200);
  assert.is(me.body.data.email, client.owner.email);
  const none = await server.request('GET', '/api/client/auth/me');
  assert.is(none.status, 401);
  assert.is(none.body.error.code, 'UNAUTHORIZED');
  const garbage = await server.request('GET', '/api/client/auth/me', { token: 'abc.def.ghi' });
  assert.is(garbage.status, 401);
  assert.is(garbage.body.error.code, 'UNAUTHORIZED');
});

tokens('a token signed with another secret, or with alg none, is refused', async () => {
  const client = await buildClient(server);
  const [header, payload] = client.owner.token.split('.');
  const none = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
  const res = await server.request('GET', '/api/client/auth/me', { token: `${none}.${payload}.` });
  assert.is(res.status, 401);
  const forged = await server.request('GET', '/api/client/auth/me', { token: `${header}.${payload}.AAAA` });
  assert.is(forged.status, 401);
});

tokens('access token expires after WIP_ACCESS_TOKEN_TTL: 401 TOKEN_EXPIRED, then refresh works', async () => {
  const client = await buildClient(server);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  server.clock.advance(15 * 60_000 + 1000);
  const expired = await server.request('GET', '/api/client/auth/me', { token: signed.body.data.token });
  assert.is(expired.status, 401);
  assert.is(expired.body.error.code, 'TOKEN_EXPIRED');
  const refreshed = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: signed.body.data.refreshToken } });
  assert.is(refreshed.status, 200, refreshed.text);
  assert.is(refreshed.body.data.expiresIn, 900);
  assert.is(refreshed.body.data.token, refreshed.body.data.accessToken);
  const me = await server.request('GET', '/api/client/auth/me', { token: refreshed.body.data.accessToken });
  assert.is(me.status, 200);
});

tokens('refresh tokens rotate: the old one stops working, and presenting it again revokes the family', async () => {
  const client = await buildClient(server);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const first = signed.body.data.refreshToken;
  const r1 = await server.request('POST', '/api/client/auth/refresh-token', { body: { refreshToken: first } });
  assert.is(r1.status, 200);
  assert.is.not(r1.body.data.refreshToken, first);
  const reuse = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: first } });
  assert.is(reuse.status, 401);
  // the reuse revoked the whole session: the rotated token and the access token die too
  const r2 = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: r1.body.data.refreshToken } });
  assert.is(r2.status, 401);
  const me = await server.request('GET', '/api/client/auth/me', { token: r1.body.data.accessToken });
  assert.is(me.status, 401);
});

tokens('refresh tokens expire after the refresh TTL', async () => {
  const client = await buildClient(server);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  server.clock.advance(30 * 86_400_000 + 1000);
  const res = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: signed.body.data.refreshToken } });
  assert.is(res.status, 401);
  assert.is(res.body.error.code, 'TOKEN_EXPIRED');
});

tokens('unknown refresh token → 401; missing → 422', async () => {
  const bad = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: 'nope' } });
  assert.is(bad.status, 401);
  const missing = await server.request('POST', '/api/client/auth/refresh', { body: {} });
  assert.is(missing.status, 422);
});

tokens('GET /api/client/auth/refresh issues a new access token from the bearer token or the cookie', async () => {
  const client = await buildClient(server);
  const viaBearer = await server.request('GET', '/api/client/auth/refresh', { token: client.owner.token });
  assert.is(viaBearer.status, 200);
  const me = await server.request('GET', '/api/client/auth/me', { token: viaBearer.body.data.token });
  assert.is(me.status, 200);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const cookie = cookiesFrom(signed.headers);
  const viaCookie = await server.request('GET', '/api/client/auth/refresh', { headers: { cookie } });
  assert.is(viaCookie.status, 200);
  const anonymous = await server.request('GET', '/api/client/auth/refresh');
  assert.is(anonymous.status, 401);
});

tokens('the session cookie authenticates, and expires after the idle TTL of inactivity', async () => {
  const client = await buildClient(server);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const cookie = cookiesFrom(signed.headers);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 200);
  server.clock.advance(50 * 60_000); // active again within the idle hour keeps it alive
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 200);
  server.clock.advance(50 * 60_000);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 200);
  server.clock.advance(61 * 60_000);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 401);
  // a tampered cookie (signature mismatch) is ignored
  const tampered = cookie.replace(/wip_session=[^;]+/, 'wip_session=abc');
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie: tampered } })).status, 401);
});

tokens('sign-out invalidates the access token, its refresh token and the cookie on the server', async () => {
  const client = await buildClient(server);
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const { token, refreshToken } = signed.body.data;
  const cookie = cookiesFrom(signed.headers);
  const out = await server.request('POST', '/api/client/auth/sign-out', { token });
  assert.is(out.status, 200);
  assert.is((await server.request('GET', '/api/client/auth/me', { token })).status, 401);
  assert.is((await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken } })).status, 401);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 401);
  // other sessions of the same user are untouched
  assert.is((await server.request('GET', '/api/client/auth/me', { token: client.owner.token })).status, 200);
});

tokens('deleting a user kills its sessions at once', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: user.token })).status, 200);
  await server.request('DELETE', `/api/admin/user/${user.id}`, { token: client.owner.token });
  assert.is((await server.request('GET', '/api/client/auth/me', { token: user.token })).status, 401);
});

tokens('a system-admin token is refused on client routes (403)', async () => {
  const token = await adminToken(server);
  const res = await server.request('GET', '/api/client/auth/me', { token });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'FORBIDDEN');
});

tokens('X-Client-ID never overrides the client of the token', async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const res = await server.request('GET', '/api/admin/user', { token: a.owner.token, headers: { 'x-client-id': String(b.id) } });
  assert.is(res.status, 200);
  assert.ok(res.body.data.items.every((u: { clientId: number }) => u.clientId === a.id));
});

function cookiesFrom(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
}

void signIn;
signInSuite.run();
v2.run();
tokens.run();
