import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { Secret, TOTP } from 'otpauth';
import { buildClient, buildUser, PASSWORD, type BuiltClient } from '../helpers/factories';

/**
 * A loopback HTTP server standing in for the directory's graph API "who am I"
 * endpoint: it answers 200 with the user of a token it knows, 401 otherwise,
 * or 503 while the test says it is down. It counts its calls so the test sees
 * the cache at work.
 */
interface TestGraph {
  url: string;
  users: Map<string, Record<string, unknown>>;
  calls: number;
  down: boolean;
  stop(): Promise<void>;
}

async function startTestGraph(): Promise<TestGraph> {
  const server = http.createServer((req, res) => {
    graph.calls++;
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (graph.down) {
      res.writeHead(503).end();
      return;
    }
    const user = req.url === '/v1.0/me' && token ? graph.users.get(token) : undefined;
    res.writeHead(user ? 200 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(user ?? { error: { code: 'InvalidAuthenticationToken', message: 'Access token validation failure.' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const graph: TestGraph = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1.0/me`,
    users: new Map(),
    calls: 0,
    down: false,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return graph;
}

let server: TestServer;
let graph: TestGraph;
let client: BuiltClient;
const TENANT = randomUUID();

/** A token shaped like the directory's (a JWT for its graph; only the graph can check its signature). */
function directoryToken(claims: Record<string, unknown> = {}): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const exp = Math.floor(server.clock.now().getTime() / 1000) + 3600;
  const payload = { iss: `https://sts.windows.net/${TENANT}/`, aud: 'https://graph.microsoft.com', tid: TENANT, exp, ...claims };
  return `${part({ typ: 'JWT', alg: 'RS256' })}.${part(payload)}.${randomBytes(32).toString('base64url')}`;
}

const test = suite('Directory bearer tokens checked at a loopback graph API');
test.before(async () => {
  server = await startTestServer({ env: { WIP_SSO_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  graph = await startTestGraph();
  client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const res = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: { name: 'corp-directory', kind: 'directory', tenant: TENANT, graphUrl: graph.url, cacheSeconds: 60 },
  });
  assert.is(res.status, 201, res.text);
  assert.is(res.body.data.tenant, TENANT);
  assert.is(res.body.data.endpoints.graphUrl, graph.url);
});
test.after(async () => {
  await graph.stop();
  await server.stop();
});

const me = (token: string) => server.request('GET', '/api/client/auth/me', { token });

test('a directory provider needs the tenant id (the tid of its tokens)', async () => {
  const res = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: { name: 'no-tenant', kind: 'directory', graphUrl: graph.url },
  });
  assert.is(res.status, 422, res.text);
  assert.ok(res.text.includes('body.tenant'));
});

test("a token the graph vouches for acts as the client's user with that email; the answer is cached, not asked per request", async () => {
  const user = await buildUser(server, client, { roles: ['author'] });
  const token = directoryToken();
  graph.users.set(token, { id: 'object-id-1', mail: user.email, userPrincipalName: 'someone@corp.test', givenName: 'Ann' });
  const before = graph.calls;
  const first = await me(token);
  assert.is(first.status, 200, first.text);
  assert.is(first.body.data.id, user.id);
  assert.is(first.body.data.clientId, client.id);
  const second = await me(token);
  assert.is(second.status, 200);
  assert.is(graph.calls, before + 1, 'the second request was answered from the cache');
  const signIns = await server.deps.db.kysely
    .selectFrom('logs')
    .select('message')
    .where('event', '=', 'auth.sign_in')
    .where('user_id', '=', user.id)
    .execute();
  assert.equal(
    signIns.map((row) => row.message),
    ['Signed in (password)', 'Signed in (directory)'],
  );
  // our own tokens are told apart by their issuer: the graph is never asked about them
  assert.is((await me(user.token!)).status, 200);
  assert.is(graph.calls, before + 1);
});

test('after the cache time the graph is asked again, and a token it no longer accepts is refused (401)', async () => {
  const user = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  const token = directoryToken();
  graph.users.set(token, { id: 'object-id-2', userPrincipalName: user.email });
  assert.is((await me(token)).status, 200);
  const calls = graph.calls;
  graph.users.delete(token);
  server.clock.advance(30_000);
  assert.is((await me(token)).status, 200, 'still within the 60 s cache time');
  assert.is(graph.calls, calls);
  server.clock.advance(31_000);
  const refused = await me(token);
  assert.is(refused.status, 401, refused.text);
  assert.is(refused.body.error.code, 'SSO_FAILED');
  assert.is(graph.calls, calls + 1);
});

test("the cache never outlives the token's own expiry: an expired token is refused without asking the graph", async () => {
  const user = await buildUser(server, client);
  const token = directoryToken({ exp: Math.floor(server.clock.now().getTime() / 1000) + 20 });
  graph.users.set(token, { id: 'object-id-3', mail: user.email });
  assert.is((await me(token)).status, 200);
  const calls = graph.calls;
  server.clock.advance(21_000);
  const expired = await me(token);
  assert.is(expired.status, 401, expired.text);
  assert.is(expired.body.error.code, 'TOKEN_EXPIRED');
  assert.is(graph.calls, calls);
});

test('an unknown user is refused (401) and nobody is provisioned; a token of a tenant no provider names never reaches the graph', async () => {
  const token = directoryToken();
  graph.users.set(token, { id: 'object-id-4', mail: 'stranger@corp.test' });
  const unknown = await me(token);
  assert.is(unknown.status, 401, unknown.text);
  assert.is(unknown.body.error.code, 'SSO_FAILED');
  const users = await server.deps.db.kysely.selectFrom('users').select('id').where('email', '=', 'stranger@corp.test').execute();
  assert.is(users.length, 0);

  const calls = graph.calls;
  const foreign = directoryToken({ tid: randomUUID() });
  assert.is((await me(foreign)).status, 401);
  assert.is(graph.calls, calls);
  const refusal = await server.deps.db.kysely.selectFrom('logs').select('event').where('event', '=', 'auth.sso_refused').executeTakeFirst();
  assert.ok(refusal);
});

test('a user with a second factor is let in only by a token that attests a multi-factor sign-in (amr: mfa)', async () => {
  const user = await buildUser(server, client);
  const setup = await server.request('POST', '/api/client/auth/two-factor/setup', { token: user.token, body: { password: PASSWORD } });
  assert.is(setup.status, 200, setup.text);
  const code = new TOTP({ secret: Secret.fromBase32(setup.body.data.secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: server.clock.now().getTime(),
  });
  assert.is((await server.request('POST', '/api/client/auth/two-factor/enable', { token: user.token, body: { code } })).status, 200);

  const passwordOnly = directoryToken({ amr: ['pwd'] });
  const noAmr = directoryToken();
  const multiFactor = directoryToken({ amr: ['pwd', 'mfa'] });
  for (const token of [passwordOnly, noAmr, multiFactor]) graph.users.set(token, { id: 'object-id-mfa', mail: user.email });
  for (const token of [passwordOnly, noAmr]) {
    const refused = await me(token);
    assert.is(refused.status, 401, refused.text);
    assert.is(refused.body.error.code, 'SSO_FAILED');
  }
  const admitted = await me(multiFactor);
  assert.is(admitted.status, 200, admitted.text);
  assert.is(admitted.body.data.id, user.id);
});

test('graph unreachable → 503 SSO_UNAVAILABLE', async () => {
  const user = await buildUser(server, client);
  const token = directoryToken();
  graph.users.set(token, { id: 'object-id-5', mail: user.email });
  graph.down = true;
  try {
    const res = await me(token);
    assert.is(res.status, 503, res.text);
    assert.is(res.body.error.code, 'SSO_UNAVAILABLE');
  } finally {
    graph.down = false;
  }
  assert.is((await me(token)).status, 200, 'a failure is not cached');
});

test('revoking the session a directory token opened ends it for that token', async () => {
  const user = await buildUser(server, client);
  const token = directoryToken();
  graph.users.set(token, { id: 'object-id-6', mail: user.email });
  assert.is((await me(token)).status, 200);
  await server.deps.db.kysely
    .updateTable('sessions')
    .set({ revoked_at: server.clock.now().toISOString() })
    .where('user_id', '=', user.id)
    .execute();
  assert.is((await me(token)).status, 401);
});

test('with updateOnSignIn the mapped roles and organisations follow the directory at later sign-ins; Security Administrator is never taken away; off by default', async () => {
  const tenant = randomUUID();
  const created = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: {
      name: 'sync-directory',
      kind: 'directory',
      tenant,
      graphUrl: graph.url,
      attributeMapping: { roles: 'wipRoles', organizations: 'wipOrgs' },
    },
  });
  assert.is(created.status, 201, created.text);
  const user = await buildUser(server, client, { roles: ['author'] });
  const admin = await buildUser(server, client, { roles: ['admin', 'author'] });
  const signInAs = async (who: { email: string }, claims: Record<string, unknown>) => {
    const token = directoryToken({ tid: tenant });
    graph.users.set(token, { id: `sync-${who.email}`, mail: who.email, ...claims });
    const res = await me(token);
    assert.is(res.status, 200, res.text);
    return res.body.data;
  };
  // off (the default): the directory's roles are not applied to an existing user
  assert.equal((await signInAs(user, { wipRoles: ['approver'] })).roles, ['author']);

  const turned = await server.request('PUT', `/api/admin/client/${client.id}/sso/${created.body.data.id}`, {
    token: client.owner.token,
    body: { updateOnSignIn: true },
  });
  assert.is(turned.status, 200, turned.text);
  assert.is(turned.body.data.updateOnSignIn, true);
  const updated = await signInAs(user, { wipRoles: ['approver', 'operator', 'no-such-role'], wipOrgs: ['Plant 1'] });
  assert.equal([...updated.roles].sort(), ['approver', 'operator']);
  assert.equal(updated.availableToOrg, ['Plant 1']);
  // names no valid role: nothing changes
  assert.equal([...(await signInAs(user, { wipRoles: ['nonsense'] })).roles].sort(), ['approver', 'operator']);
  // the administrator keeps admin whatever the directory says
  assert.equal([...(await signInAs(admin, { wipRoles: ['viewer'] })).roles].sort(), ['admin', 'viewer']);
});

test.run();
