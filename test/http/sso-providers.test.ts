import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD } from '../helpers/factories';
import { issueTestLicense } from '../helpers/licenses';

let server: TestServer;
const test = suite('SSO provider configuration: /api/admin/client/:id/sso');
test.before(async () => {
  server = await startTestServer();
});
test.after(async () => server.stop());

const SECRET = 'test-only-oidc-client-secret-value';
const oidcBody = (name: string) => ({ name, kind: 'oidc', issuer: 'https://idp.example.test', clientId: 'wip', clientSecret: SECRET });

test("a Security Administrator manages the client's providers; the secret is sealed at rest and never shown", async () => {
  const client = await buildClient(server);
  const created = await server.request('POST', `/api/admin/client/${client.id}/sso`, {
    token: client.owner.token,
    body: oidcBody('acme-okta'),
  });
  assert.is(created.status, 201, created.text);
  assert.is(created.body.data.hasClientSecret, true);
  assert.not.ok(created.text.includes(SECRET));
  assert.is(created.body.data.endpoints.redirectUri, `${server.url}/api/client/auth/oidc/callback`);
  const stored = await server.deps.db.kysely
    .selectFrom('sso_providers')
    .select('client_secret')
    .where('id', '=', created.body.data.id)
    .executeTakeFirstOrThrow();
  assert.ok(stored.client_secret?.startsWith('v1.'));
  assert.not.ok(stored.client_secret?.includes(SECRET));

  const updated = await server.request('PUT', `/api/admin/client/${client.id}/sso/${created.body.data.id}`, {
    token: client.owner.token,
    body: { enabled: false, jit: { enabled: true, roles: ['operator'], licenseType: 'connect' } },
  });
  assert.is(updated.status, 200, updated.text);
  assert.is(updated.body.data.enabled, false);
  assert.is(updated.body.data.hasClientSecret, true); // omitted: kept
  assert.equal(updated.body.data.jit, { enabled: true, roles: ['operator'], licenseType: 'connect' });

  const list = await server.request('GET', `/api/admin/client/${client.id}/sso`, { token: await adminToken(server) });
  assert.is(list.status, 200);
  assert.equal(
    list.body.data.map((p: { name: string }) => p.name),
    ['acme-okta'],
  );

  const removed = await server.request('DELETE', `/api/admin/client/${client.id}/sso/${created.body.data.id}`, {
    token: client.owner.token,
  });
  assert.is(removed.status, 200);
  const events = await server.deps.db.kysely
    .selectFrom('logs')
    .select('message')
    .where('event', '=', 'security.sso_provider_changed')
    .where('client_id', '=', client.id)
    .execute();
  assert.is(events.length, 3);
});

test("another client's id is 404; other roles 403; names are unique; what a kind needs is checked (422)", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const created = await server.request('POST', `/api/admin/client/${a.id}/sso`, { token: a.owner.token, body: oidcBody('shared-name') });
  assert.is(created.status, 201);
  assert.is((await server.request('GET', `/api/admin/client/${a.id}/sso`, { token: b.owner.token })).status, 404);
  assert.is(
    (await server.request('DELETE', `/api/admin/client/${a.id}/sso/${created.body.data.id}`, { token: b.owner.token })).status,
    404,
  );
  assert.is(
    (await server.request('DELETE', `/api/admin/client/${b.id}/sso/${created.body.data.id}`, { token: b.owner.token })).status,
    404,
  );
  const author = await buildUser(server, a, { roles: ['author'] });
  assert.is((await server.request('GET', `/api/admin/client/${a.id}/sso`, { token: author.token })).status, 403);
  assert.is(
    (await server.request('POST', `/api/admin/client/${b.id}/sso`, { token: b.owner.token, body: oidcBody('shared-name') })).status,
    409,
  );
  const incomplete = await server.request('POST', `/api/admin/client/${b.id}/sso`, {
    token: b.owner.token,
    body: { name: 'b-saml', kind: 'saml' },
  });
  assert.is(incomplete.status, 422);
  assert.equal(incomplete.body.error.details.fields.map((f: { path: string }) => f.path).sort(), ['body.idpCertificates', 'body.issuer']);
  const badCert = await server.request('POST', `/api/admin/client/${b.id}/sso`, {
    token: b.owner.token,
    body: { name: 'b-saml', kind: 'saml', issuer: 'https://idp.example.test/saml', idpCertificates: ['not a certificate'] },
  });
  assert.is(badCert.status, 422);
});

test("SSO required: only the client's owner keeps password sign-in (break-glass), not every Security Administrator", async () => {
  const client = await buildClient(server);
  const secondAdmin = await buildUser(server, client, { roles: ['admin'] });
  await server.request('PUT', '/api/client/auth/client-security-settings', { token: client.owner.token, body: { ssoEnforced: true } });
  const refused = await server.request('POST', '/api/client/auth/sign-in', { body: { email: secondAdmin.email, password: PASSWORD } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'SSO_REQUIRED');
  const owner = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(owner.status, 200);
});

test('a license key without the sso feature refuses adding a provider and starting an SSO sign-in (403 FEATURE_NOT_LICENSED)', async () => {
  const unlicensed = await startTestServer({ license: issueTestLicense({ features: ['graphql'] }) });
  try {
    const client = await buildClient(unlicensed);
    const add = await unlicensed.request('POST', `/api/admin/client/${client.id}/sso`, {
      token: client.owner.token,
      body: oidcBody('no-sso'),
    });
    assert.is(add.status, 403, add.text);
    assert.equal(add.body.error.details, { feature: 'sso' });
    for (const [method, path, body] of [
      ['GET', '/api/client/auth/oidc?provider=no-sso'],
      ['GET', '/api/client/auth/vendor-dynamics'],
      ['POST', '/api/client/auth/vendor-saml', { samlResponse: 'PHNhbWw+' }],
    ] as [string, string, unknown?][]) {
      const res = await unlicensed.request(method, path, { body });
      assert.is(res.status, 403, `${method} ${path}: ${res.text}`);
      assert.is(res.body.error.code, 'FEATURE_NOT_LICENSED');
    }
    // what exists stays manageable: the list still answers
    assert.is((await unlicensed.request('GET', `/api/admin/client/${client.id}/sso`, { token: client.owner.token })).status, 200);
  } finally {
    await unlicensed.stop();
  }
});
test.run();
