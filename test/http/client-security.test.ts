import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret, TOTP } from 'otpauth';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, signIn, uniqueEmail } from '../helpers/factories';
import { linkToken, startTestSmtp, type TestSmtp } from '../helpers/smtp';

let server: TestServer;
let smtp: TestSmtp;
const PATH = '/api/client/auth/client-security-settings';

const settings = suite('GET and PUT /api/client/auth/client-security-settings');
settings.before(async () => {
  server = await startTestServer({ env: { WIP_SESSION_IDLE_TTL: '7d' } });
});
settings.after(async () => server.stop());

settings('defaults: 12 characters, 2FA off, no sign-up domains, SSO not enforced, separation of duties strict', async () => {
  const client = await buildClient(server);
  const res = await server.request('GET', PATH, { token: client.owner.token });
  assert.is(res.status, 200);
  assert.equal(res.body.data, {
    passwordPolicy: { minLength: 12, blocksCommonPasswords: true },
    twoFactorRequired: 'off',
    ssoEnforced: false,
    sessionIdleTimeout: null,
    allowedSignUpDomains: [],
    allowSelfApproval: false,
    updatedAt: null,
  });
});

settings('before sign-in, ?clientId= gives only the policy fields; unknown client → 404; no clientId → 422', async () => {
  const client = await buildClient(server);
  await server.request('PUT', PATH, {
    token: client.owner.token,
    body: { allowedSignUpDomains: ['secret-domain.test'], passwordMinLength: 14 },
  });
  const res = await server.request('GET', `${PATH}?clientId=${client.id}`);
  assert.is(res.status, 200);
  assert.equal(res.body.data, {
    passwordPolicy: { minLength: 14, blocksCommonPasswords: true },
    twoFactorRequired: 'off',
    ssoEnforced: false,
  });
  assert.not.ok(res.text.includes('secret-domain'));
  assert.is((await server.request('GET', `${PATH}?clientId=999999`)).status, 404);
  assert.is((await server.request('GET', PATH)).status, 422);
  // a member asking for another client gets only the public view
  const other = await buildClient(server);
  const cross = await server.request('GET', `${PATH}?clientId=${client.id}`, { token: other.owner.token });
  assert.not.ok('allowedSignUpDomains' in cross.body.data);
});

settings('a Security Administrator changes them; omitted fields keep their values; other roles → 403; bad values → 422', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client);
  const put = await server.request('PUT', PATH, {
    token: client.owner.token,
    body: {
      passwordMinLength: 16,
      twoFactorRequired: 'admins',
      sessionIdleTimeout: 3600,
      allowedSignUpDomains: ['Example.TEST'],
      ssoEnforced: false,
    },
  });
  assert.is(put.status, 200, put.text);
  assert.equal(put.body.data.allowedSignUpDomains, ['example.test']);
  const partial = await server.request('PUT', PATH, { token: client.owner.token, body: { twoFactorRequired: 'all' } });
  assert.is(partial.body.data.passwordPolicy.minLength, 16);
  assert.is(partial.body.data.twoFactorRequired, 'all');
  assert.is(partial.body.data.sessionIdleTimeout, 3600);
  assert.is((await server.request('PUT', PATH, { token: author.token, body: { passwordMinLength: 20 } })).status, 403);
  const bad = await server.request('PUT', PATH, {
    token: client.owner.token,
    body: { passwordMinLength: 6, allowedSignUpDomains: ['not a domain'] },
  });
  assert.is(bad.status, 422);
  const paths = bad.body.error.details.fields.map((f: { path: string }) => f.path).sort();
  assert.equal(paths, ['body.allowedSignUpDomains.0', 'body.passwordMinLength']);
  assert.is((await server.request('PUT', PATH, { body: { passwordMinLength: 20 } })).status, 401);
});

settings("the client's minimum length applies to new passwords (422 with the reason)", async () => {
  const client = await buildClient(server);
  await server.request('PUT', PATH, { token: client.owner.token, body: { passwordMinLength: 20 } });
  const res = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email: uniqueEmail(), roles: ['author'], licenseType: 'full', password: 'only-sixteen-chr' },
  });
  assert.is(res.status, 422);
  assert.equal(res.body.error.details.fields, [{ path: 'body.password', message: 'must be at least 20 characters' }]);
  assert.is(res.body.error.details.passwordPolicy.minLength, 20);
});

settings("the client's session idle timeout ends idle cookie sessions", async () => {
  const client = await buildClient(server);
  await server.request('PUT', PATH, { token: client.owner.token, body: { sessionIdleTimeout: 600 } });
  const signed = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  const cookie = signed.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 200);
  server.clock.advance(11 * 60_000);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie } })).status, 401);
});

settings('2FA required for admins: an admin without 2FA is told at sign-in and may only enrol until it is on', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client);
  await server.request('PUT', PATH, { token: client.owner.token, body: { twoFactorRequired: 'admins' } });
  const owner = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(owner.body.data.twoFactorSetupRequired, true);
  const token = owner.body.data.token;
  const gated = await server.request('GET', '/api/admin/user', { token });
  assert.is(gated.status, 403);
  assert.is(gated.body.error.code, 'TWO_FACTOR_SETUP_REQUIRED');
  assert.is((await server.request('GET', '/api/client/auth/me', { token })).status, 200);
  const other = await server.request('POST', '/api/client/auth/sign-in-v2', { body: { email: author.email, password: PASSWORD } });
  assert.is(other.body.data.twoFactorSetupRequired, false);
  assert.is((await server.request('GET', '/api/client/auth/client', { token: other.body.data.accessToken })).status, 200);
  // enrolling opens the rest
  const setup = await server.request('POST', '/api/client/auth/two-factor/setup', { token, body: { password: PASSWORD } });
  assert.is(setup.status, 200, setup.text);
  const code = new TOTP({ secret: Secret.fromBase32(setup.body.data.secret) }).generate({ timestamp: server.clock.now().getTime() });
  assert.is((await server.request('POST', '/api/client/auth/two-factor/enable', { token, body: { code } })).status, 200);
  assert.is((await server.request('GET', '/api/admin/user', { token })).status, 200);
});

settings('SSO enforced: password sign-in is refused (403 SSO_REQUIRED) except for the owner (break-glass)', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client);
  await server.request('PUT', PATH, { token: client.owner.token, body: { ssoEnforced: true } });
  const refused = await server.request('POST', '/api/client/auth/sign-in', { body: { email: author.email, password: PASSWORD } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'SSO_REQUIRED');
  const wrong = await server.request('POST', '/api/client/auth/sign-in', { body: { email: author.email, password: 'wrong-password-x' } });
  assert.is(wrong.status, 401); // nothing about SSO is revealed before the password is right
  const owner = await server.request('POST', '/api/client/auth/sign-in', { body: { email: client.owner.email, password: PASSWORD } });
  assert.is(owner.status, 200);
});

// ---------------------------------------------------------------------------
const info = suite('GET /api/client/auth/get-admin-email and /api/client/auth/client');
info.before(async () => {
  server = await startTestServer();
});
info.after(async () => server.stop());

info("get-admin-email gives the owner's contact to any user of the client; no token → 401", async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  const res = await server.request('GET', '/api/client/auth/get-admin-email', { token: user.token });
  assert.is(res.status, 200);
  assert.is(res.body.data.email, client.owner.email);
  assert.is((await server.request('GET', '/api/client/auth/get-admin-email')).status, 401);
});

info("client returns the current user's client with the UI settings", async () => {
  const client = await buildClient(server, { name: 'Gamma Plant' });
  const res = await server.request('GET', '/api/client/auth/client', { token: client.owner.token });
  assert.is(res.status, 200);
  assert.is(res.body.data.id, client.id);
  assert.is(res.body.data.name, 'Gamma Plant');
  assert.is(res.body.data.branding.displayName, 'Gamma Plant');
  assert.is(res.body.data.security.passwordPolicy.minLength, 12);
  assert.is(res.body.data.twoFactorEnabled, false);
  assert.is((await server.request('GET', '/api/client/auth/client')).status, 401);
});

// ---------------------------------------------------------------------------
const signUp = suite('POST /api/client/auth/sign-up (allowed email domain)');
signUp.before(async () => {
  smtp = await startTestSmtp();
  server = await startTestServer({ env: { WIP_SMTP_URL: smtp.url, WIP_MAIL_POLL_INTERVAL: '50ms' } });
});
signUp.after(async () => {
  await server.stop();
  await smtp.stop();
});

signUp('an allowed domain creates an invited viewer and emails a link; the password is set with it', async () => {
  const client = await buildClient(server, { seats: { full: 1, connect: 2 } });
  await server.request('PUT', PATH, { token: client.owner.token, body: { allowedSignUpDomains: ['plant.test'] } });
  const email = `worker-${Date.now()}@plant.test`;
  const res = await server.request('POST', '/api/client/auth/sign-up', { body: { clientId: client.id, email, firstName: 'Wanda' } });
  assert.is(res.status, 202, res.text);
  assert.is(res.body.data.status, 'verification_sent');
  const mail = await smtp.waitFor((m) => m.to.includes(email));
  const token = linkToken(mail, 'set-password');
  const set = await server.request('POST', `/api/client/auth/set-password/${token}`, { body: { password: 'plant-floor-passphrase' } });
  assert.is(set.status, 200, set.text);
  assert.equal(set.body.data.user.roles, ['viewer']);
  assert.is(set.body.data.user.licenseType, 'connect');
  assert.is(set.body.data.user.firstName, 'Wanda');
  assert.type(await signIn(server, email, 'plant-floor-passphrase'), 'string');
  // the same email again: the same answer, no second account, no mail
  const again = await server.request('POST', '/api/client/auth/sign-up', { body: { clientId: client.id, email } });
  assert.is(again.status, 202);
  assert.equal(again.body, res.body);
});

signUp('a domain not allowed → 403 SIGN_UP_NOT_ALLOWED; SSO enforced → 403; seats full → 422', async () => {
  const client = await buildClient(server, { seats: { full: 1, connect: 0 } });
  const refused = await server.request('POST', '/api/client/auth/sign-up', { body: { clientId: client.id, email: uniqueEmail() } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'SIGN_UP_NOT_ALLOWED');
  await server.request('PUT', PATH, { token: client.owner.token, body: { allowedSignUpDomains: ['example.test'] } });
  const full = await server.request('POST', '/api/client/auth/sign-up', { body: { clientId: client.id, email: uniqueEmail() } });
  assert.is(full.status, 422);
  assert.is(full.body.error.code, 'LICENSE_SEATS_EXHAUSTED');
  await server.request('PUT', PATH, { token: client.owner.token, body: { ssoEnforced: true } });
  const sso = await server.request('POST', '/api/client/auth/sign-up', { body: { clientId: client.id, email: uniqueEmail() } });
  assert.is(sso.status, 403);
  assert.is(sso.body.error.code, 'SIGN_UP_NOT_ALLOWED');
});

signUp('neither an invitation token nor clientId/email → 422', async () => {
  const res = await server.request('POST', '/api/client/auth/sign-up', { body: { password: 'whatever-long-pass' } });
  assert.is(res.status, 422);
});

// ---------------------------------------------------------------------------
const createOff = suite('POST /api/client/auth/create-account (self-service off, the default)');
createOff.before(async () => {
  server = await startTestServer();
});
createOff.after(async () => server.stop());

createOff('403 SELF_SERVICE_DISABLED', async () => {
  const res = await server.request('POST', '/api/client/auth/create-account', {
    body: { email: uniqueEmail(), password: 'a-long-enough-pass', clientName: 'Nope' },
  });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'SELF_SERVICE_DISABLED');
});

const createOn = suite('POST /api/client/auth/create-account (WIP_SELF_SERVICE_ACCOUNTS=true)');
createOn.before(async () => {
  server = await startTestServer({ env: { WIP_SELF_SERVICE_ACCOUNTS: 'true', WIP_SELF_SERVICE_SEATS: '3' } });
});
createOn.after(async () => server.stop());

createOn('creates a client with the caller as Security Administrator and the configured seats', async () => {
  const email = uniqueEmail('founder');
  const res = await server.request('POST', '/api/client/auth/create-account', {
    body: { email, password: 'founder-passphrase', clientName: 'Delta Labs' },
  });
  assert.is(res.status, 201, res.text);
  assert.is(res.body.data.client.name, 'Delta Labs');
  assert.equal(res.body.data.user.roles, ['admin']);
  assert.equal(
    res.body.data.licenses.map((l: { licenseType: string; seats: number }) => [l.licenseType, l.seats]),
    [['full', 3]],
  );
  const token = await signIn(server, email, 'founder-passphrase');
  const me = await server.request('GET', '/api/client/auth/me', { token });
  assert.is(me.body.data.clientId, res.body.data.client.id);
});

createOn('the password policy applies → 422 on body.password', async () => {
  const res = await server.request('POST', '/api/client/auth/create-account', {
    body: { email: uniqueEmail(), password: 'password1234', clientName: 'Weak' },
  });
  assert.is(res.status, 422);
  assert.is(res.body.error.details.fields[0].path, 'body.password');
});

settings.run();
info.run();
signUp.run();
createOff.run();
createOn.run();
