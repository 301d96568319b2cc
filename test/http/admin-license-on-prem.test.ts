import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, signIn, uniqueEmail } from '../helpers/factories';
import { DAY, issueTestLicense } from '../helpers/licenses';

async function install(server: TestServer, licenseKey: string, token?: string) {
  return server.request('POST', '/api/admin/license-on-prem', { token: token ?? (await adminToken(server)), body: { licenseKey } });
}

async function createClient(server: TestServer, token: string, seats: { full?: number; connect?: number } = { full: 1 }) {
  return server.request('POST', '/api/admin/client', {
    token,
    body: { name: `C ${uniqueEmail()}`, owner: { email: uniqueEmail('owner'), password: PASSWORD }, seats },
  });
}

// ---------------------------------------------------------------------------
// the evaluation allowance, keys refused with their reason, the key's seat totals: test/services/licensing-seats.test.ts
const evaluation = suite('evaluation mode (no key installed)');
let server: TestServer;
evaluation.before(async () => {
  server = await startTestServer({ license: 'evaluation' });
});
evaluation.after(async () => server.stop());

evaluation('GET /api/admin/license-on-prem shows the evaluation allowance and usage', async () => {
  const res = await server.request('GET', '/api/admin/license-on-prem', { token: await adminToken(server) });
  assert.is(res.status, 200, res.text);
  const data = res.body.data;
  assert.is(data.evaluation, true);
  assert.is(data.status, 'evaluation');
  assert.equal(data.terms, { seats: { full: 25, connect: 25 }, maxClients: 5 });
  assert.type(data.installationId, 'string');
  assert.equal(data.usage.clients, { count: 0, max: 5 });
});

evaluation('GET /api/client/on-premise is public and says evaluation: true', async () => {
  const res = await server.request('GET', '/api/client/on-premise');
  assert.is(res.status, 200);
  assert.is(res.body.data.onPremise, true);
  assert.is(res.body.data.evaluation, true);
  assert.not.ok('licensee' in res.body.data);
});

evaluation.run();

// ---------------------------------------------------------------------------
const installing = suite('POST /api/admin/license-on-prem');
let s2: TestServer;
installing.before(async () => {
  s2 = await startTestServer({ license: 'evaluation' });
});
installing.after(async () => s2.stop());

installing('no token → 401; a client user → 403', async () => {
  const anonymous = await s2.request('POST', '/api/admin/license-on-prem', { body: { licenseKey: issueTestLicense() } });
  assert.is(anonymous.status, 401);
  const client = await buildClient(s2, { seats: { full: 1 } });
  const user = await install(s2, issueTestLicense(), client.owner.token);
  assert.is(user.status, 403);
});

installing('422 VALIDATION_ERROR without licenseKey', async () => {
  const res = await s2.request('POST', '/api/admin/license-on-prem', { token: await adminToken(s2), body: {} });
  assert.is(res.status, 422);
  assert.is(res.body.error.code, 'VALIDATION_ERROR');
});

installing('installs a valid key: its terms, status, days to expiry and usage are shown', async () => {
  const key = issueTestLicense({
    licenseId: 'L-valid',
    seats: { full: 40, connect: 60 },
    maxClients: 8,
    expiresAt: new Date(s2.clock.now().getTime() + 30 * DAY + 3600_000).toISOString(),
  });
  const res = await install(s2, key);
  assert.is(res.status, 200, res.text);
  const data = res.body.data;
  assert.equal(
    [data.evaluation, data.status, data.licenseId, data.licensee.name, data.daysToExpiry, data.terms],
    [false, 'active', 'L-valid', 'Example Works', 30, { seats: { full: 40, connect: 60 }, maxClients: 8 }],
  );
  const get = await s2.request('GET', '/api/admin/license-on-prem', { token: await adminToken(s2) });
  assert.is(get.body.data.licenseId, 'L-valid');
  assert.is(get.body.data.usage.seats.full.total, 40);
  assert.ok(get.body.data.usage.seats.full.allocated >= 1);
  const onPrem = await s2.request('GET', '/api/client/on-premise');
  assert.is(onPrem.body.data.evaluation, false);
});

installing('a key bound to this installation is accepted', async () => {
  const token = await adminToken(s2);
  const installationId = (await s2.request('GET', '/api/admin/license-on-prem', { token })).body.data.installationId;
  const res = await install(s2, issueTestLicense({ installationId, licenseId: 'L-bound' }), token);
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.boundToInstallation, installationId);
});

installing.run();

// ---------------------------------------------------------------------------
const expiry = suite('license expiry: grace period, then read-only');
let s3: TestServer;
expiry.before(async () => {
  s3 = await startTestServer({ license: 'evaluation' });
});
expiry.after(async () => s3.stop());

expiry(
  'active → grace (warning, writes work) → read-only (writes 403 LICENSE_EXPIRED; reads, sign-in and licensing work) → new key',
  async () => {
    const token = await adminToken(s3);
    const start = s3.clock.now().getTime();
    const installed = await install(s3, issueTestLicense({ expiresAt: new Date(start + 10 * DAY).toISOString() }), token);
    assert.is(installed.status, 200, installed.text);
    const client = await buildClient(s3, { seats: { full: 5 } });

    s3.clock.advance(11 * DAY); // expired one day ago: grace
    client.owner.token = await signIn(s3, client.owner.email, PASSWORD); // (access tokens last 24h)
    const graceRead = await s3.request('GET', '/api/client/license', { token: client.owner.token });
    assert.is(graceRead.status, 200);
    assert.equal(
      [graceRead.body.data.status, graceRead.body.data.grace, graceRead.body.data.warning, graceRead.body.data.readOnly],
      ['grace', true, true, false],
    );
    assert.is(graceRead.headers.get('x-license-warning'), 'grace');
    const graceWrite = await buildUser(s3, client); // writes still work
    assert.ok(graceWrite.id);

    s3.clock.advance(14 * DAY); // past the 14-day grace period
    const adminTok = await adminToken(s3); // admin sign-in works
    const ownerToken = await signIn(s3, client.owner.email, PASSWORD); // client sign-in works
    const write = await createClient(s3, adminTok);
    assert.is(write.status, 403);
    assert.is(write.body.error.code, 'LICENSE_EXPIRED');
    const userWrite = await s3.request('POST', '/api/admin/user', {
      token: ownerToken,
      body: { email: uniqueEmail(), roles: ['author'], licenseType: 'full', password: PASSWORD },
    });
    assert.is(userWrite.status, 403);
    assert.is(userWrite.body.error.code, 'LICENSE_EXPIRED');
    const read = await s3.request('GET', '/api/client/license', { token: ownerToken });
    assert.is(read.status, 200);
    assert.equal([read.body.data.status, read.body.data.readOnly], ['expired', true]);
    const list = await s3.request('GET', '/api/admin/client', { token: adminTok });
    assert.is(list.status, 200);
    // licensing routes stay writable: seat allocations within the key's totals
    const allocation = await s3.request('POST', '/api/admin/license', {
      token: adminTok,
      body: { clientId: client.id, licenseType: 'connect', seats: 2 },
    });
    assert.is(allocation.status, 201, allocation.text);
    // case and a trailing slash do not slip a write past the gate
    const sneaky = await s3.request('POST', '/API/Admin/Client/', {
      token: adminTok,
      body: { name: 'x', owner: { email: uniqueEmail(), password: PASSWORD } },
    });
    assert.is(sneaky.status, 403);

    const renewed = await install(s3, issueTestLicense({ licenseId: 'L-renewed' }, { now: s3.clock.now() }), adminTok);
    assert.is(renewed.status, 200, renewed.text);
    assert.is(renewed.body.data.status, 'active');
    const again = await createClient(s3, adminTok);
    assert.is(again.status, 201, again.text);
  },
);

expiry('turning the clock back (below the newest time seen) is treated as expired', async () => {
  const token = await adminToken(s3);
  await s3.request('GET', '/api/admin/license-on-prem', { token }); // the appliance sees "now"
  s3.clock.advance(-3 * DAY);
  const write = await createClient(s3, token);
  assert.is(write.status, 403);
  assert.is(write.body.error.code, 'LICENSE_EXPIRED');
  assert.is(write.body.error.details.clockRollback, true);
  const state = await s3.request('GET', '/api/admin/license-on-prem', { token });
  assert.equal([state.body.data.status, state.body.data.clockRollback], ['clock_rollback', true]);
  s3.clock.advance(3 * DAY); // the clock is right again
  const ok = await createClient(s3, token);
  assert.is(ok.status, 201, ok.text);
});

expiry.run();

// ---------------------------------------------------------------------------
const production = suite('production: the development key is not trusted');
let s4: TestServer;
production.before(async () => {
  s4 = await startTestServer({ license: 'evaluation', env: { WIP_ENV: 'production' } });
});
production.after(async () => s4.stop());

production('a key signed with the development key → 422 LICENSE_INVALID unknown_key_id, saying how to go on', async () => {
  const res = await install(s4, issueTestLicense());
  assert.is(res.status, 422);
  assert.is(res.body.error.details.reason, 'unknown_key_id');
  // not only "not trusted" but what to do about it
  assert.match(res.body.error.message, 'accepted only when the appliance runs with WIP_ENV=development');
  assert.match(res.body.error.details.hint, 'a production appliance needs a license key from the vendor');
});

production.run();
