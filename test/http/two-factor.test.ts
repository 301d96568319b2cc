import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Secret, TOTP } from 'otpauth';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

let server: TestServer;
let smtp: TestSmtp;

/** The code an authenticator app shows now (by the server's clock). */
function codeFor(secret: string, at = server.clock.now().getTime()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: at });
}

async function enrol(token: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await server.request('POST', '/api/client/auth/two-factor/setup', { token, body: { password: PASSWORD } });
  assert.is(setup.status, 200, setup.text);
  const secret = setup.body.data.secret as string;
  const enable = await server.request('POST', '/api/client/auth/two-factor/enable', { token, body: { code: codeFor(secret) } });
  assert.is(enable.status, 200, enable.text);
  // the enabling code's time step is spent: move to the next one
  server.clock.advance(30_000);
  return { secret, recoveryCodes: enable.body.data.recoveryCodes };
}

async function challenge(email: string, route = '/api/client/auth/sign-in'): Promise<string> {
  const res = await server.request('POST', route, { body: { email, password: PASSWORD } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.twoFactorRequired, true);
  assert.not.ok('token' in res.body.data || 'accessToken' in res.body.data || 'refreshToken' in res.body.data);
  assert.not.ok(res.headers.get('set-cookie'));
  return res.body.data.challengeToken;
}

const setup = suite('POST /api/client/auth/two-factor/setup and /enable');
setup.before(async () => {
  smtp = await startTestSmtp();
  server = await startTestServer({ env: { WIP_SMTP_URL: smtp.url, WIP_MAIL_POLL_INTERVAL: '50ms' } });
});
setup.after(async () => {
  await server.stop();
  await smtp.stop();
});

setup('setup returns an otpauth:// URI and a PNG QR code; enable with a code returns 10 recovery codes', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const res = await server.request('POST', '/api/client/auth/two-factor/setup', { token: user.token, body: { password: PASSWORD } });
  assert.is(res.status, 200);
  assert.match(res.body.data.otpauthUri, /^otpauth:\/\/totp\/wip:.+\?.*secret=[A-Z2-7]+/);
  assert.ok(res.body.data.otpauthUri.includes(encodeURIComponent(user.email)));
  assert.match(res.body.data.qrCodeDataUrl, /^data:image\/png;base64,/);
  // not active until enabled: sign-in still gives tokens
  const before = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  assert.type(before.body.data.token, 'string');
  const wrong = await server.request('POST', '/api/client/auth/two-factor/enable', { token: user.token, body: { code: '000000' } });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error.code, 'TWO_FACTOR_INVALID');
  const enable = await server.request('POST', '/api/client/auth/two-factor/enable', {
    token: user.token,
    body: { code: codeFor(res.body.data.secret) },
  });
  assert.is(enable.status, 200);
  assert.is(enable.body.data.recoveryCodes.length, 10);
  assert.is(new Set(enable.body.data.recoveryCodes).size, 10);
  const again = await server.request('POST', '/api/client/auth/two-factor/setup', { token: user.token, body: { password: PASSWORD } });
  assert.is(again.status, 409);
});

setup('setup needs the password again → 401 with a wrong one; no token → 401', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const res = await server.request('POST', '/api/client/auth/two-factor/setup', {
    token: user.token,
    body: { password: 'not-my-password' },
  });
  assert.is(res.status, 401);
  assert.is((await server.request('POST', '/api/client/auth/two-factor/setup', { body: { password: PASSWORD } })).status, 401);
});

const verify = suite('POST /api/client/auth/verify-two-factor');
verify.before(async () => {
  smtp = await startTestSmtp();
  // many sign-ins in a row: the per-IP request limit of the sign-in routes is not under test
  server = await startTestServer({ env: { WIP_SMTP_URL: smtp.url, WIP_MAIL_POLL_INTERVAL: '50ms', WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
verify.after(async () => {
  await server.stop();
  await smtp.stop();
});

verify('sign-in answers with a challenge; a code computed from the secret completes it like sign-in (tokens + cookie)', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const challengeToken = await challenge(user.email);
  const res = await server.request('POST', '/api/client/auth/verify-two-factor', { body: { challengeToken, code: codeFor(secret) } });
  assert.is(res.status, 200, res.text);
  assert.type(res.body.data.token, 'string');
  assert.type(res.body.data.refreshToken, 'string');
  assert.is(res.body.data.user.id, user.id);
  assert.match(res.headers.get('set-cookie') ?? '', /wip_session=/);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: res.body.data.token })).status, 200);
  // the challenge works once
  const reuse = await server.request('POST', '/api/client/auth/verify-two-factor', { body: { challengeToken, code: codeFor(secret) } });
  assert.is(reuse.status, 400);
  assert.is(reuse.body.error.code, 'TOKEN_INVALID');
});

verify('sign-in-v2 challenges complete in the v2 shape', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const challengeToken = await challenge(user.email, '/api/client/auth/sign-in-v2');
  const res = await server.request('POST', '/api/client/auth/verify-two-factor', { body: { challengeToken, code: codeFor(secret) } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.tokenType, 'Bearer');
  assert.type(res.body.data.accessToken, 'string');
  assert.not.ok(res.headers.get('set-cookie'));
});

verify('a wrong code → 401 TWO_FACTOR_INVALID; a used code is refused within its window (replay)', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const wrong = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: '123456' === codeFor(secret) ? '654321' : '123456' },
  });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error.code, 'TWO_FACTOR_INVALID');
  const code = codeFor(secret);
  const first = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code },
  });
  assert.is(first.status, 200);
  server.clock.advance(10_000); // same 30 s window (or the next, within the drift window)
  const replay = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code },
  });
  assert.is(replay.status, 401);
  assert.is(replay.body.error.code, 'TWO_FACTOR_INVALID');
  server.clock.advance(30_000);
  const fresh = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: codeFor(secret) },
  });
  assert.is(fresh.status, 200);
});

verify('wrong codes count toward the lockout, and re-entering the password does not reset the count', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const bad = codeFor(secret) === '111111' ? '222222' : '111111';
  let last: TestResponse | undefined;
  for (let i = 0; i < 10; i++) {
    last = await server.request('POST', '/api/client/auth/verify-two-factor', {
      body: { challengeToken: await challenge(user.email), code: bad },
    });
    if (i < 9) assert.is(last.status, 401);
  }
  assert.is(last!.status, 429);
  assert.is(last!.body.error.code, 'TOO_MANY_ATTEMPTS');
  const locked = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  assert.is(locked.status, 429);
});

verify('a recovery code works once', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { recoveryCodes } = await enrol(user.token!);
  const ok = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: recoveryCodes[3] },
  });
  assert.is(ok.status, 200, ok.text);
  const again = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: recoveryCodes[3] },
  });
  assert.is(again.status, 401);
  assert.is(again.body.error.code, 'TWO_FACTOR_INVALID');
  const other = await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: recoveryCodes[4].toUpperCase() },
  });
  assert.is(other.status, 200);
});

verify('a challenge expires after 5 minutes', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const challengeToken = await challenge(user.email);
  server.clock.advance(5 * 60_000 + 1000);
  const res = await server.request('POST', '/api/client/auth/verify-two-factor', { body: { challengeToken, code: codeFor(secret) } });
  assert.is(res.status, 400);
  assert.is(res.body.error.code, 'TOKEN_INVALID');
});

verify('enabling and the sign-ins are recorded as security events', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  await server.request('POST', '/api/client/auth/verify-two-factor', {
    body: { challengeToken: await challenge(user.email), code: codeFor(secret) },
    headers: { 'user-agent': 'twofactor-test' },
  });
  const events = await server.deps.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', user.id).execute();
  assert.ok(events.some((e) => e.event === 'auth.two_factor_enabled'));
  const signInEvent = events.find((e) => e.event === 'auth.sign_in' && e.user_agent === 'twofactor-test');
  assert.ok(signInEvent);
  assert.is(signInEvent.client_id, client.id);
  assert.ok(signInEvent.ip);
  assert.match(signInEvent.message, /password\+totp/);
});

const reset = suite('POST /api/client/auth/reset-two-factor');
reset.before(async () => {
  smtp = await startTestSmtp();
  server = await startTestServer({ env: { WIP_SMTP_URL: smtp.url, WIP_MAIL_POLL_INTERVAL: '50ms' } });
});
reset.after(async () => {
  await server.stop();
  await smtp.stop();
});

reset('the user resets with the password; sign-in gives tokens again; the user is emailed', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  await enrol(user.token!);
  const wrong = await server.request('POST', '/api/client/auth/reset-two-factor', {
    token: user.token,
    body: { password: 'wrong-password' },
  });
  assert.is(wrong.status, 401);
  const res = await server.request('POST', '/api/client/auth/reset-two-factor', { token: user.token, body: { password: PASSWORD } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.reset, true);
  const signIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  assert.type(signIn.body.data.token, 'string');
  const mail = await smtp.waitFor((m) => m.to.includes(user.email) && m.headers['x-wip-mail-kind'] === 'two_factor_reset');
  assert.match(mail.text, /reset/);
});

reset('the user resets with a current code', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const { secret } = await enrol(user.token!);
  const res = await server.request('POST', '/api/client/auth/reset-two-factor', { token: user.token, body: { code: codeFor(secret) } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.reset, true);
});

reset('a Security Administrator resets a user of the client; another user → 403; another client → 404', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const user = await buildUser(server, client);
  const colleague = await buildUser(server, client);
  const stranger = await buildUser(server, other);
  await enrol(user.token!);
  const notAdmin = await server.request('POST', '/api/client/auth/reset-two-factor', { token: colleague.token, body: { userId: user.id } });
  assert.is(notAdmin.status, 403);
  const crossTenant = await server.request('POST', '/api/client/auth/reset-two-factor', {
    token: client.owner.token,
    body: { userId: stranger.id },
  });
  assert.is(crossTenant.status, 404);
  const res = await server.request('POST', '/api/client/auth/reset-two-factor', { token: client.owner.token, body: { userId: user.id } });
  assert.is(res.status, 200, res.text);
  const mail = await smtp.waitFor((m) => m.to.includes(user.email) && m.headers['x-wip-mail-kind'] === 'two_factor_reset');
  assert.match(mail.text, /Security Administrator/);
  const events = await server.deps.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('event', '=', 'auth.two_factor_reset')
    .where('user_id', '=', user.id)
    .execute();
  assert.is(events.length, 1);
});

setup.run();
verify.run();
reset.run();
