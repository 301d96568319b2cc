import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import jwt from 'jsonwebtoken';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { issueTestLicense } from '../helpers/licenses';
import { PNG, upload } from '../helpers/upload';
import { truncatedJpeg } from '../helpers/hostile-images';
import { gql } from '../helpers/graphql';
import { FEATURES } from '#licensing/terms';

// ---------------------------------------------------------------------------
const features = suite('license-key features gate their routes');
let limited: TestServer;
let full: TestServer;
features.before(async () => {
  // a key without import-export, reports, graphql, push, collaboration and integrations
  limited = await startTestServer({ license: issueTestLicense({ features: ['sso'] }) });
  full = await startTestServer({ license: issueTestLicense({ features: [...FEATURES] }) });
});
features.after(async () => {
  await limited.stop();
  await full.stop();
});

const GATED: [string, string, string, unknown?][] = [
  ['graphql', 'POST', '/api/client/graphql', { query: '{ __typename }' }],
  ['push', 'GET', '/api/client/push/vapid-key'],
  ['reports', 'GET', '/api/client/meter-report'],
  ['import-export', 'POST', '/api/client/copy-entities', {}],
  ['collaboration', 'GET', '/api/client/workingTogether/handOffStatuses'],
  ['integrations', 'GET', '/api/client/vendorErp'],
];

features('a key without the feature refuses its routes with 403 FEATURE_NOT_LICENSED; a key with it lets them through', async () => {
  const a = await buildClient(limited);
  const b = await buildClient(full);
  for (const [feature, method, path, body] of GATED) {
    const refused = await limited.request(method, path, { token: a.owner.token, body });
    assert.is(refused.status, 403, `${method} ${path}: ${refused.text}`);
    assert.is(refused.body.error.code, 'FEATURE_NOT_LICENSED');
    assert.equal(refused.body.error.details, { feature });
    const allowed = await full.request(method, path, { token: b.owner.token, body });
    assert.is.not(allowed.status, 403, `${method} ${path}: ${allowed.text}`);
    assert.ok(allowed.status < 500, `${method} ${path}: ${allowed.text}`);
  }
});

features('routes of system administrators are gated too (activity report: reports)', async () => {
  const refused = await limited.request('GET', '/api/admin/activity-report', { token: await adminToken(limited) });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'FEATURE_NOT_LICENSED');
  assert.is((await full.request('GET', '/api/admin/activity-report', { token: await adminToken(full) })).status, 200);
});

features('without a token the answer is 401, not a hint about the license', async () => {
  const res = await limited.request('GET', '/api/client/meter-report');
  assert.is(res.status, 401);
});

features('client-info carries the feature flags of the key and its licensee', async () => {
  const a = await buildClient(limited);
  const res = await limited.request('GET', '/api/client/client-info', { token: a.owner.token });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data.featureFlags, {
    sso: true,
    graphql: false,
    push: false,
    reports: false,
    'import-export': false,
    collaboration: false,
    integrations: false,
  });
  assert.equal(res.body.data.features, ['sso']);
  assert.equal(res.body.data.branding, { displayName: a.name, licensee: 'Example Works', logoUrl: null });
});

features('evaluation (no key) allows every feature', async () => {
  const evaluation = await startTestServer({ license: 'evaluation' });
  try {
    const a = await buildClient(evaluation, { seats: { full: 2 } });
    const res = await evaluation.request('GET', '/api/client/client-info', { token: a.owner.token });
    assert.ok(Object.values(res.body.data.featureFlags).every(Boolean));
    assert.is((await evaluation.request('GET', '/api/client/meter-report', { token: a.owner.token })).status, 200);
  } finally {
    await evaluation.stop();
  }
});

features.run();

// ---------------------------------------------------------------------------
const logo = suite('GET /api/client/get-logo-by-owner');
let server: TestServer;
logo.before(async () => {
  server = await startTestServer();
});

async function uploadSystemFile(data: Buffer, name: string): Promise<number> {
  const res = await upload(server, await adminToken(server), [{ name, data }], { path: '/api/admin/upload' });
  assert.is(res.status, 201, res.text);
  return res.body.data.files[0].id;
}

async function createOrganization(token: string, name: string): Promise<number> {
  const res = await gql(
    server,
    token,
    'mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { organization { databaseId } } }',
    { input: { name } },
  );
  assert.is(res.errors, undefined, JSON.stringify(res.errors));
  return res.data.createOrganization.organization.databaseId;
}

const JPEG = truncatedJpeg().whole;

logo('404 before a logo is set; the system administrator sets it with PUT /api/admin/client/:id; served with ETag and 304', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  assert.is((await server.request('GET', '/api/client/get-logo-by-owner', { token: user.token })).status, 404);

  const fileId = await uploadSystemFile(PNG, 'logo.png');
  const put = await server.request('PUT', `/api/admin/client/${client.id}`, {
    token: await adminToken(server),
    body: { logoFileId: fileId },
  });
  assert.is(put.status, 200, put.text);
  assert.is(put.body.data.logoFileId, fileId);

  const res = await fetch(`${server.url}/api/client/get-logo-by-owner`, { headers: { authorization: `Bearer ${user.token}` } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'image/png');
  assert.ok(Buffer.from(await res.arrayBuffer()).equals(PNG));
  const etag = res.headers.get('etag')!;
  assert.match(etag, /^"[0-9a-f]{64}"$/);
  assert.match(res.headers.get('cache-control') ?? '', /no-cache/);
  const again = await fetch(`${server.url}/api/client/get-logo-by-owner`, {
    headers: { authorization: `Bearer ${user.token}`, 'if-none-match': etag },
  });
  assert.is(again.status, 304);

  const info = await server.request('GET', '/api/client/client-info', { token: user.token });
  assert.is(info.body.data.branding.logoUrl, '/api/client/get-logo-by-owner');
  const ownClient = await server.request('GET', '/api/client/auth/client', { token: user.token });
  assert.is(ownClient.body.data.branding.logoUrl, '/api/client/get-logo-by-owner', 'GET /api/client/auth/client shows the same logo');
});

logo("?organizationId= gives the organization's logo, else the client's; another client's organization is 404", async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const withLogo = await createOrganization(client.owner.token, 'Plant North');
  const without = await createOrganization(client.owner.token, 'Plant South');
  const foreign = await createOrganization(other.owner.token, 'Elsewhere');
  const clientLogo = await uploadSystemFile(PNG, 'client.png');
  const orgLogo = await uploadSystemFile(JPEG, 'north.jpg');
  const admin = await adminToken(server);
  const put = await server.request('PUT', `/api/admin/client/${client.id}`, {
    token: admin,
    body: { logoFileId: clientLogo, organizationLogos: [{ organizationId: withLogo, logoFileId: orgLogo }] },
  });
  assert.is(put.status, 200, put.text);
  const get = (query: string) =>
    fetch(`${server.url}/api/client/get-logo-by-owner${query}`, { headers: { authorization: `Bearer ${client.owner.token}` } });
  const north = await get(`?organizationId=${withLogo}`);
  assert.is(north.headers.get('content-type'), 'image/jpeg');
  assert.ok(Buffer.from(await north.arrayBuffer()).equals(JPEG));
  const south = await get(`?organizationId=${without}`);
  assert.ok(Buffer.from(await south.arrayBuffer()).equals(PNG));
  assert.is((await get(`?organizationId=${foreign}`)).status, 404);
  // an organization of another client cannot be given a logo through this client either
  const cross = await server.request('PUT', `/api/admin/client/${client.id}`, {
    token: admin,
    body: { organizationLogos: [{ organizationId: foreign, logoFileId: orgLogo }] },
  });
  assert.is(cross.status, 422);
});

logo('a logo must be an uploaded raster image', async () => {
  const client = await buildClient(server);
  const admin = await adminToken(server);
  const text = await uploadSystemFile(Buffer.from('not an image at all'), 'notes.txt');
  const bad = await server.request('PUT', `/api/admin/client/${client.id}`, { token: admin, body: { logoFileId: text } });
  assert.is(bad.status, 422, bad.text);
  const missing = await server.request('PUT', `/api/admin/client/${client.id}`, { token: admin, body: { logoFileId: 999999 } });
  assert.is(missing.status, 422);
  const cleared = await server.request('PUT', `/api/admin/client/${client.id}`, { token: admin, body: { logoFileId: null } });
  assert.is(cleared.status, 200);
});

logo.run();

// ---------------------------------------------------------------------------
const portal = suite('GET /api/client/customer-portal');
const SECRET = 'portal-secret-0123456789abcdef0123456789';
let configured: TestServer;
portal.before(async () => {
  configured = await startTestServer({
    env: { WIP_CUSTOMER_PORTAL_URL: 'https://portal.example.test/enter?lang=en', WIP_CUSTOMER_PORTAL_SECRET: SECRET },
  });
});
portal.after(async () => {
  await configured.stop();
  await server.stop();
});

portal("a Security Administrator gets a link signed with the secret, carrying the client's identity, valid at most 5 minutes", async () => {
  const client = await buildClient(configured);
  const res = await configured.request('GET', '/api/client/customer-portal', { token: client.owner.token });
  assert.is(res.status, 200, res.text);
  const url = new URL(res.body.data.url);
  assert.is(url.origin + url.pathname, 'https://portal.example.test/enter');
  assert.is(url.searchParams.get('lang'), 'en');
  const claims = jwt.verify(url.searchParams.get('token')!, SECRET, {
    algorithms: ['HS256'],
    clock: configured.clock.now().getTime() / 1000,
  } as jwt.VerifyOptions) as jwt.JwtPayload;
  assert.is(claims.sub, String(client.id));
  assert.is(claims.clientName, client.name);
  assert.is(claims.email, client.owner.email);
  assert.ok(claims.exp! - claims.iat! <= 300 && claims.exp! > claims.iat!);
  assert.is(new Date(claims.exp! * 1000).toISOString(), res.body.data.expiresAt);
  assert.type(claims.jti, 'string');
  // a wrong secret does not verify it
  assert.throws(() => jwt.verify(url.searchParams.get('token')!, 'another-secret-of-enough-length-000000', { algorithms: ['HS256'] }));
});

portal('other roles are refused with 403', async () => {
  const client = await buildClient(configured);
  const author = await buildUser(configured, client, { roles: ['author', 'user_admin', 'approver', 'publisher', 'operator', 'viewer'] });
  const res = await configured.request('GET', '/api/client/customer-portal', { token: author.token });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'FORBIDDEN');
});

portal('unconfigured: 503 INTEGRATION_NOT_CONFIGURED', async () => {
  const client = await buildClient(server);
  const res = await server.request('GET', '/api/client/customer-portal', { token: client.owner.token });
  assert.is(res.status, 503);
  assert.is(res.body.error.code, 'INTEGRATION_NOT_CONFIGURED');
});

portal.run();
