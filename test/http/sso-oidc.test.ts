import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { retainedHeap } from '../helpers/memory';
import { resignIdToken, startTestIdp, TestBrowser, type TestIdp } from '../helpers/oidc-idp';

let server: TestServer;
let idp: TestIdp;
let tenantIdp: TestIdp;
let client: BuiltClient;
const CALLBACK = '/api/client/auth/oidc/callback';
const AFTER = '/app/after-sign-in';

const test = suite('OpenID Connect sign-in against an in-process provider');
test.before(async () => {
  // the in-process provider is on loopback, which the outbound policy refuses unless listed
  server = await startTestServer({ env: { WIP_SSO_ALLOWED_NETWORKS: '127.0.0.0/8' } });
  idp = await startTestIdp({ redirectUri: server.url + CALLBACK });
  tenantIdp = await startTestIdp({ redirectUri: server.url + CALLBACK, pathPrefix: '/contoso.test/v2.0' });
  client = await buildClient(server);
});
test.after(async () => {
  await idp.stop();
  await tenantIdp.stop();
  await server.stop();
});

let counter = 0;
async function addProvider(fields: Record<string, unknown> = {}) {
  const name = `idp-${++counter}`;
  const res = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: {
      name,
      kind: 'oidc',
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: idp.clientSecret,
      postLoginUrl: AFTER,
      jit: { enabled: true },
      ...fields,
    },
  });
  assert.is(res.status, 201, res.text);
  return res.body.data;
}

/** Drives the browser from the start route to the redirect back to the web app. */
async function signInThroughIdp(startPath: string, login: string, browser = new TestBrowser()) {
  const landed = await browser.walk(server.url + startPath, server.url + AFTER, login);
  return { landed: new URL(landed.url), browser, response: landed.response };
}

const usersWithEmail = async (email: string) =>
  server.deps.db.kysely
    .selectFrom('users')
    .select(['id', 'status', 'first_name'])
    .where('client_id', '=', client.id)
    .where('email', '=', email)
    .execute();

test('the whole flow: redirect, provider login and consent, callback, one-time code exchanged for tokens and cookie; the user is provisioned', async () => {
  const provider = await addProvider();
  idp.accounts.set('alice-1', { email: 'alice-1@corp.test', email_verified: true, given_name: 'Alice', family_name: 'Liddell' });
  const start = await server.request('GET', `/api/client/auth/oidc?provider=${provider.name}`);
  assert.is(start.status, 302);
  const location = new URL(start.headers.get('location')!);
  assert.ok(location.href.startsWith(idp.issuer));
  assert.is(location.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(location.searchParams.get('state') && location.searchParams.get('nonce'));

  const { landed } = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'alice-1');
  assert.is(landed.pathname, AFTER);
  const code = landed.searchParams.get('code')!;
  assert.ok(code, landed.href);
  assert.not.ok(landed.href.includes('eyJ')); // no token in the URL
  const exchanged = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code } });
  assert.is(exchanged.status, 200, exchanged.text);
  assert.is(exchanged.body.data.user.email, 'alice-1@corp.test');
  assert.is(exchanged.body.data.user.firstName, 'Alice');
  assert.equal(exchanged.body.data.user.roles, ['viewer']);
  assert.ok(exchanged.headers.getSetCookie().some((c) => c.startsWith('wip_session=')));
  const me = await server.request('GET', '/api/client/auth/me', { token: exchanged.body.data.token });
  assert.is(me.status, 200);
  assert.is(me.body.data.clientId, client.id);
  const event = await server.deps.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('event', '=', 'auth.sign_in')
    .where('user_id', '=', me.body.data.id)
    .executeTakeFirst();
  assert.ok(event?.message.includes('oidc'));

  // the code works once
  const again = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code } });
  assert.is(again.status, 400);
  assert.is(again.body.error.code, 'TOKEN_INVALID');
});

test('a role named twice (in the JIT settings or in the roles claim) provisions the user with it once, not a 500', async () => {
  // each repeated role hit user_roles' primary key on the old code: the sign-in failed with 500
  const fromSettings = await addProvider({ jit: { enabled: true, roles: ['operator', 'operator'], licenseType: 'connect' } });
  idp.accounts.set('erin-9', { email: 'erin-9@corp.test', email_verified: true });
  const first = await signInThroughIdp(`/api/client/auth/oidc?provider=${fromSettings.name}`, 'erin-9');
  // the old code stopped at the callback, answered 500
  assert.is(first.landed.pathname, AFTER, `stopped at ${first.landed.pathname}, answered ${first.response?.status}`);
  const code = first.landed.searchParams.get('code');
  assert.ok(code, first.landed.href);
  const exchanged = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code } });
  assert.is(exchanged.status, 200, exchanged.text);
  assert.equal(exchanged.body.data.user.roles, ['operator']);

  const fromClaim = await addProvider({ scopes: ['openid', 'email', 'profile', 'groups'], attributeMapping: { roles: 'groups' } });
  idp.accounts.set('finn-9', { email: 'finn-9@corp.test', email_verified: true, groups: ['operator', 'operator', 'viewer'] });
  const second = await signInThroughIdp(`/api/client/auth/oidc?provider=${fromClaim.name}`, 'finn-9');
  assert.is(second.landed.pathname, AFTER, `stopped at ${second.landed.pathname}, answered ${second.response?.status}`);
  const code2 = second.landed.searchParams.get('code');
  assert.ok(code2, second.landed.href);
  const exchanged2 = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code: code2 } });
  assert.is(exchanged2.status, 200, exchanged2.text);
  assert.equal([...exchanged2.body.data.user.roles].sort(), ['operator', 'viewer']);
});

test('an existing user is found by verified email and linked; an unverified email signs nobody in', async () => {
  const provider = await addProvider({ jit: { enabled: false } });
  const user = await buildUser(server, client, { email: 'bob-2@corp.test' });
  idp.accounts.set('bob-2', { email: 'bob-2@corp.test', email_verified: true });
  const first = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'bob-2');
  const exchanged = await server.request('POST', '/api/client/auth/sso/exchange', {
    body: { code: first.landed.searchParams.get('code') },
  });
  assert.is(exchanged.body.data.user.id, user.id);

  idp.accounts.set('carol-2', { email: 'carol-2@corp.test', email_verified: false });
  await buildUser(server, client, { email: 'carol-2@corp.test' });
  const unverified = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'carol-2');
  assert.is(unverified.landed.searchParams.get('error'), 'SSO_FAILED');
  assert.is(unverified.landed.searchParams.get('code'), null);

  idp.accounts.set('dave-2', { email: 'dave-2@corp.test', email_verified: true });
  const unknown = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'dave-2');
  assert.is(unknown.landed.searchParams.get('error'), 'SSO_FAILED'); // provisioning off
  assert.is((await usersWithEmail('dave-2@corp.test')).length, 0);
  const refusal = await server.deps.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('event', '=', 'auth.sso_refused')
    .where('client_id', '=', client.id)
    .execute();
  assert.ok(refusal.length >= 2);
});

test('unknown provider → 404; provider unreachable → 503 SSO_UNAVAILABLE', async () => {
  const missing = await server.request('GET', '/api/client/auth/oidc?provider=no-such-provider');
  assert.is(missing.status, 404);
  const down = await addProvider({ issuer: 'http://127.0.0.1:9/down' });
  const res = await server.request('GET', `/api/client/auth/oidc?provider=${down.name}`);
  assert.is(res.status, 503, res.text);
  assert.is(res.body.error.code, 'SSO_UNAVAILABLE');
  // a provider of another kind is not an OIDC provider
  const saml = await server.request('GET', `/api/client/auth/vendor-dynamics?provider=${down.name}`);
  assert.is(saml.status, 404);
});

test('the outbound network policy applies to the provider: loopback only when listed in ssoAllowedNetworks, never link-local (cloud metadata) → 503', async () => {
  const metadata = await addProvider({ issuer: 'https://169.254.169.254/latest' });
  const refused = await server.request('GET', `/api/client/auth/oidc?provider=${metadata.name}`);
  assert.is(refused.status, 503, refused.text);
  assert.is(refused.body.error.code, 'SSO_UNAVAILABLE');
  const plainHttp = await addProvider({ issuer: 'http://10.1.2.3/realms/x' });
  assert.is((await server.request('GET', `/api/client/auth/oidc?provider=${plainHttp.name}`)).status, 503);

  // the same loopback provider, from a server with the default policy (private ranges only)
  const strict = await startTestServer();
  try {
    const strictClient = await buildClient(strict);
    const created = await strict.request('POST', `/api/admin/client/${strictClient.id}/sso`, {
      token: strictClient.owner.token,
      body: { name: 'loopback-idp', kind: 'oidc', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret },
    });
    assert.is(created.status, 201, created.text);
    const res = await strict.request('GET', '/api/client/auth/oidc?provider=loopback-idp');
    assert.is(res.status, 503, res.text);
    assert.is(res.body.error.code, 'SSO_UNAVAILABLE');
  } finally {
    await strict.stop();
  }
});

test('a replayed state is refused (401 SSO_FAILED), and so is a callback in another browser', async () => {
  const provider = await addProvider();
  idp.accounts.set('erin-3', { email: 'erin-3@corp.test', email_verified: true });
  const browser = new TestBrowser();
  const callback = await browser.walk(server.url + `/api/client/auth/oidc?provider=${provider.name}`, server.url + CALLBACK, 'erin-3');
  const stranger = await new TestBrowser().fetch(callback.url);
  assert.is(stranger.status, 302);
  assert.is(new URL(stranger.headers.get('location')!).searchParams.get('error'), 'SSO_FAILED');
  // the state was used by that attempt: the right browser cannot use it either
  const replay = await browser.fetch(callback.url);
  assert.is(replay.status, 401);
  assert.is(((await replay.json()) as { error: { code: string } }).error.code, 'SSO_FAILED');
  assert.is((await usersWithEmail('erin-3@corp.test')).length, 0);
});

test('a tampered ID token and one for another audience are refused; nothing is provisioned', async () => {
  const provider = await addProvider();
  try {
    idp.accounts.set('frank-4', { email: 'frank-4@corp.test', email_verified: true });
    idp.tamperToken = (body) => {
      const [header, payload, signature] = String(body.id_token).split('.');
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, email: 'owner@corp.test' })).toString('base64url');
      return { ...body, id_token: [header, forged, signature].join('.') };
    };
    const tampered = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'frank-4');
    assert.is(tampered.landed.searchParams.get('error'), 'SSO_FAILED');

    idp.tamperToken = async (body) => ({ ...body, id_token: await resignIdToken(idp, String(body.id_token), { aud: 'another-client' }) });
    const audience = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'frank-4');
    assert.is(audience.landed.searchParams.get('error'), 'SSO_FAILED');

    // control: the same re-signing with the claims unchanged passes, so the refusals above are about the changes
    idp.tamperToken = async (body) => ({ ...body, id_token: await resignIdToken(idp, String(body.id_token), {}) });
    assert.is((await usersWithEmail('frank-4@corp.test')).length, 0);
    const control = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'frank-4');
    assert.ok(control.landed.searchParams.get('code'), control.landed.href);
  } finally {
    idp.tamperToken = undefined;
  }
});

test('an expired one-time code is refused (400 TOKEN_INVALID)', async () => {
  const provider = await addProvider();
  idp.accounts.set('gina-5', { email: 'gina-5@corp.test', email_verified: true });
  const { landed } = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'gina-5');
  server.clock.advance(61_000);
  const res = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code: landed.searchParams.get('code') } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'TOKEN_INVALID');
});

test('SSO required: a non-owner signs in through the provider while password sign-in is refused', async () => {
  const provider = await addProvider({ jit: { enabled: false } });
  const user = await buildUser(server, client, { email: 'hank-6@corp.test' });
  const settings = await server.request('PUT', '/api/client/auth/client-security-settings', {
    token: client.owner.token,
    body: { ssoEnforced: true },
  });
  assert.is(settings.status, 200);
  try {
    const password = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: user.password } });
    assert.is(password.body.error?.code, 'SSO_REQUIRED');
    idp.accounts.set('hank-6', { email: 'hank-6@corp.test', email_verified: true });
    const { landed } = await signInThroughIdp(`/api/client/auth/oidc?provider=${provider.name}`, 'hank-6');
    const exchanged = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code: landed.searchParams.get('code') } });
    assert.is(exchanged.status, 200, exchanged.text);
    assert.is(exchanged.body.data.user.id, user.id);
  } finally {
    await server.request('PUT', '/api/client/auth/client-security-settings', { token: client.owner.token, body: { ssoEnforced: false } });
  }
});

test('business-application SSO: the tenant authority preset needs only tenant, client id and secret', async () => {
  const res = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: {
      name: 'contoso-dynamics',
      kind: 'dynamics',
      tenant: 'contoso.test',
      clientId: tenantIdp.clientId,
      clientSecret: tenantIdp.clientSecret,
      // the vendor's authority, pointed at the loopback provider for the test
      authorityUrlTemplate: tenantIdp.issuer.replace('contoso.test', '{tenant}'),
      postLoginUrl: AFTER,
      jit: { enabled: true, roles: ['author'], licenseType: 'full' },
    },
  });
  assert.is(res.status, 201, res.text);
  assert.is(res.body.data.endpoints.redirectUri, server.url + CALLBACK);
  tenantIdp.accounts.set('ivy-7', { preferred_username: 'ivy-7@contoso.test' });
  const start = await server.request('GET', '/api/client/auth/vendor-dynamics');
  assert.is(start.status, 302);
  assert.ok(start.headers.get('location')!.startsWith(tenantIdp.issuer + '/'));
  const { landed } = await signInThroughIdp('/api/client/auth/vendor-dynamics?provider=contoso-dynamics', 'ivy-7');
  const exchanged = await server.request('POST', '/api/client/auth/sso/exchange', { body: { code: landed.searchParams.get('code') } });
  assert.is(exchanged.status, 200, exchanged.text);
  assert.is(exchanged.body.data.user.email, 'ivy-7@contoso.test');
  assert.equal(exchanged.body.data.user.roles, ['author']);
});

test.run();

const kept = suite('OIDC discovery documents kept in memory');
let keptServer: TestServer;
let discovery: http.Server;
let issuer: string;
kept.before(async () => {
  keptServer = await startTestServer({
    env: { WIP_SSO_ALLOWED_NETWORKS: '127.0.0.0/8', WIP_RATE_LIMIT_MAX: '100000', WIP_RATE_LIMIT_ANONYMOUS_MAX: '100000' },
  });
  // a provider's discovery document: its size is the provider's to choose (up to the 1 MB an answer may have)
  discovery = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({
        issuer,
        authorization_endpoint: `${issuer}/auth`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        padding: 'x'.repeat(200_000),
      }),
    );
  });
  await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(discovery.address() as AddressInfo).port}`;
});
kept.after(async () => {
  discovery.closeAllConnections();
  await new Promise<void>((resolve) => discovery.close(() => resolve()));
  await keptServer.stop();
});

kept('are bounded in number: providers created, signed in with and deleted one after another leave no growing memory', async () => {
  const owner = await buildClient(keptServer);
  const cycle = async (i: number) => {
    const created = await keptServer.request('POST', `/api/admin/client/${owner.id}/sso`, {
      token: owner.owner.token,
      body: { name: `kept-${i}`, kind: 'oidc', issuer, clientId: 'wip', clientSecret: 'test-only-client-secret', postLoginUrl: AFTER },
    });
    assert.is(created.status, 201, created.text);
    // from one loopback address per 50 starts: the start route allows 60 a minute per IP
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = `${keptServer.url}/api/client/auth/oidc?provider=kept-${i}`;
      http
        .get(url, { localAddress: `127.0.0.${2 + Math.floor(i / 50)}` }, (res) => res.resume().on('end', () => resolve(res.statusCode)))
        .on('error', reject);
    });
    assert.is(status, 302);
    assert.is(
      (await keptServer.request('DELETE', `/api/admin/client/${owner.id}/sso/${created.body.data.id}`, { token: owner.owner.token }))
        .status,
      200,
    );
  };
  for (let i = 0; i < 5; i++) await cycle(i);
  const before = retainedHeap();
  for (let i = 5; i < 305; i++) await cycle(i);
  const grown = retainedHeap() - before;
  // 300 documents of 200 KB would be 60 MB; at most 100 are kept (20 MB)
  assert.ok(grown < 35_000_000, `retained heap grew by ${(grown / 1e6).toFixed(1)} MB`);
});

kept.run();
