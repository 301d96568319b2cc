import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, uniqueEmail } from '../helpers/factories';
import { createAdmin, resetAdminPassword } from '#services/admins';
import { changedByCli } from '#services/security-log';

let server: TestServer;

const signInAs = (email: string, password: string, headers: Record<string, string> = {}) =>
  server.request('POST', '/api/client/auth/sign-in', { body: { email, password }, headers });

async function failTimes(email: string, n: number, headers: Record<string, string> = {}) {
  for (let i = 0; i < n; i++) {
    const res = await signInAs(email, `wrong-password-${i}`, headers);
    if (i < n - 1) assert.is(res.status, 401, `attempt ${i + 1}: ${res.text}`);
    else return res;
  }
  throw new Error('unreachable');
}

// the lockout's rules (its window, a success clearing the count, unknown emails, the IP's own limit, the security
// events): test/services/accounts.test.ts
const lockout = suite('sign-in lockout');
lockout.before(async () => {
  // the per-route request rate limit is not what is under test here
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '1000', WIP_LOCKOUT_IP_MAX_FAILURES: '1000' } });
});
lockout.after(async () => server.stop());

lockout(
  'the 10th failure in 15 minutes locks the account: 429 TOO_MANY_ATTEMPTS with Retry-After, even for the right password',
  async () => {
    const client = await buildClient(server);
    const user = await buildUser(server, client);
    const tenth = await failTimes(user.email, 10);
    assert.is(tenth.status, 429);
    assert.is(tenth.body.error.code, 'TOO_MANY_ATTEMPTS');
    assert.is(tenth.headers.get('retry-after'), String(15 * 60));
    const right = await signInAs(user.email, PASSWORD);
    assert.is(right.status, 429);
    assert.is(right.body.error.code, 'TOO_MANY_ATTEMPTS');
    assert.ok(Number(right.headers.get('retry-after')) > 0);
    // the lock ends by itself after the lockout duration
    server.clock.advance(15 * 60_000 + 1000);
    assert.is((await signInAs(user.email, PASSWORD)).status, 200);
  },
);

lockout("a system administrator's sign-in has the same lockout and security events", async () => {
  const username = `ops-${Date.now()}`;
  const admin = await createAdmin(server.deps, username, PASSWORD, changedByCli());
  const adminSignIn = (password: string) =>
    server.request('POST', '/api/admin/auth/sign-in', { body: { username, password }, headers: { 'user-agent': 'admin-lockout-test' } });
  for (let i = 1; i < 10; i++) assert.is((await adminSignIn(`wrong-${i}`)).status, 401);
  const tenth = await adminSignIn('wrong-10');
  assert.is(tenth.status, 429);
  assert.is(tenth.body.error.code, 'TOO_MANY_ATTEMPTS');
  assert.is(tenth.headers.get('retry-after'), String(15 * 60));
  const right = await adminSignIn(PASSWORD);
  assert.is(right.status, 429, 'locked even for the right password');

  const rows = await server.deps.db.kysely.selectFrom('logs').selectAll().where('admin_id', '=', admin.id).execute();
  const failed = rows.filter((r) => r.event === 'auth.admin_sign_in_failed');
  assert.is(failed.length, 10);
  assert.equal(JSON.parse(failed[0].data), { username, reason: 'wrong password' });
  assert.is(failed[0].user_agent, 'admin-lockout-test');
  assert.ok(failed[0].ip);
  assert.ok(rows.some((r) => r.event === 'auth.admin_lockout'));
  // an unknown username is counted too, without revealing anything
  const ghost = await server.request('POST', '/api/admin/auth/sign-in', { body: { username: `${username}-ghost`, password: 'x' } });
  assert.is(ghost.status, 401);
  assert.ok(
    await server.deps.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('event', '=', 'auth.admin_sign_in_failed')
      .where('data', 'like', '%-ghost%')
      .executeTakeFirst(),
  );

  // the operator's way out: reset-password (the CLI) lifts the lock
  await resetAdminPassword(server.deps, username, PASSWORD, changedByCli());
  assert.is((await adminSignIn(PASSWORD)).status, 200);
});

lockout('POST /api/admin/user/:userId/unlock: a Security Administrator unlocks; other roles 403; another client 404', async () => {
  const client = await buildClient(server);
  const other = await buildClient(server);
  const user = await buildUser(server, client);
  const colleague = await buildUser(server, client);
  await failTimes(user.email, 10);
  assert.is((await server.request('POST', `/api/admin/user/${user.id}/unlock`)).status, 401);
  assert.is((await server.request('POST', `/api/admin/user/${user.id}/unlock`, { token: colleague.token })).status, 403);
  assert.is((await server.request('POST', `/api/admin/user/${user.id}/unlock`, { token: other.owner.token })).status, 404);
  assert.is((await signInAs(user.email, PASSWORD)).status, 429);
  const res = await server.request('POST', `/api/admin/user/${user.id}/unlock`, { token: client.owner.token });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.wasLocked, true);
  assert.is((await signInAs(user.email, PASSWORD)).status, 200);
});

lockout('a system administrator may unlock any user', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  await failTimes(user.email, 10);
  const res = await server.request('POST', `/api/admin/user/${user.id}/unlock`, { token: await adminToken(server) });
  assert.is(res.status, 200, res.text);
  assert.is((await signInAs(user.email, PASSWORD)).status, 200);
});

lockout('`wip user unlock --client-id N --email E` unlocks from the CLI', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  await failTimes(user.email, 10);
  const cli = await runCli(['--data-dir', server.dataDir, 'user', 'unlock', '--client-id', String(client.id), '--email', user.email]);
  assert.is(cli.code, 0, cli.stderr);
  assert.match(cli.stdout, /Unlocked/);
  assert.is((await signInAs(user.email, PASSWORD)).status, 200);
  const missing = await runCli([
    '--data-dir',
    server.dataDir,
    'user',
    'unlock',
    '--client-id',
    String(client.id),
    '--email',
    uniqueEmail('none'),
  ]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /not found/i);
});

// ---------------------------------------------------------------------------
const csrf = suite('CSRF defence for cookie-authenticated requests');
csrf.before(async () => {
  server = await startTestServer();
});
csrf.after(async () => server.stop());

function cookieJar(headers: Headers): { cookie: string; csrf: string } {
  const pairs = headers.getSetCookie().map((c) => c.split(';')[0]);
  const csrfPair = pairs.find((p) => p.startsWith('wip_csrf='));
  return { cookie: pairs.join('; '), csrf: csrfPair ? csrfPair.slice('wip_csrf='.length) : '' };
}

csrf('sign-in sets a readable wip_csrf cookie next to the HttpOnly session cookie', async () => {
  const client = await buildClient(server);
  const res = await signInAs(client.owner.email, PASSWORD);
  const raw = res.headers.getSetCookie();
  const csrfCookie = raw.find((c) => c.startsWith('wip_csrf='));
  assert.ok(csrfCookie);
  assert.not.match(csrfCookie, /httponly/i);
  assert.match(csrfCookie, /samesite=lax/i);
});

csrf('a cookie-authenticated POST without X-CSRF-Token → 403 CSRF_FAILED; with a wrong one → 403; with the cookie value → ok', async () => {
  const client = await buildClient(server);
  const jar = cookieJar((await signInAs(client.owner.email, PASSWORD)).headers);
  const body = { currentPassword: PASSWORD, newPassword: 'brand-new-passphrase' };
  const none = await server.request('POST', '/api/client/auth/change-password', { headers: { cookie: jar.cookie }, body });
  assert.is(none.status, 403);
  assert.is(none.body.error.code, 'CSRF_FAILED');
  const wrong = await server.request('POST', '/api/client/auth/change-password', {
    headers: { cookie: jar.cookie, 'x-csrf-token': 'forged' },
    body,
  });
  assert.is(wrong.status, 403);
  assert.is(wrong.body.error.code, 'CSRF_FAILED');
  const ok = await server.request('POST', '/api/client/auth/change-password', {
    headers: { cookie: jar.cookie, 'x-csrf-token': jar.csrf },
    body,
  });
  assert.is(ok.status, 200, ok.text);
});

csrf('the token of another session does not pass', async () => {
  const client = await buildClient(server);
  const mine = cookieJar((await signInAs(client.owner.email, PASSWORD)).headers);
  const theirs = cookieJar((await signInAs(client.owner.email, PASSWORD)).headers);
  const res = await server.request('POST', '/api/client/auth/sign-out', { headers: { cookie: mine.cookie, 'x-csrf-token': theirs.csrf } });
  assert.is(res.status, 403);
});

csrf('cookie GETs need no token; bearer-authenticated writes are exempt', async () => {
  const client = await buildClient(server);
  const jar = cookieJar((await signInAs(client.owner.email, PASSWORD)).headers);
  assert.is((await server.request('GET', '/api/client/auth/me', { headers: { cookie: jar.cookie } })).status, 200);
  const bearer = await server.request('POST', '/api/client/auth/sign-out', { token: client.owner.token });
  assert.is(bearer.status, 200);
});

// ---------------------------------------------------------------------------
const reuse = suite('refresh-token reuse detection');
reuse.before(async () => {
  server = await startTestServer();
});
reuse.after(async () => server.stop());

reuse('presenting a rotated refresh token revokes the family and records auth.refresh_token_reuse', async () => {
  const client = await buildClient(server);
  const signed = await signInAs(client.owner.email, PASSWORD);
  const first = signed.body.data.refreshToken;
  const rotated = await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: first } });
  assert.is(rotated.status, 200);
  const replay = await server.request('POST', '/api/client/auth/refresh', {
    body: { refreshToken: first },
    headers: { 'user-agent': 'thief' },
  });
  assert.is(replay.status, 401);
  assert.is(
    (await server.request('POST', '/api/client/auth/refresh', { body: { refreshToken: rotated.body.data.refreshToken } })).status,
    401,
  );
  assert.is((await server.request('GET', '/api/client/auth/me', { token: rotated.body.data.accessToken })).status, 401);
  const events = await server.deps.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('event', '=', 'auth.refresh_token_reuse')
    .where('user_id', '=', client.owner.id)
    .execute();
  assert.is(events.length, 1);
  assert.is(events[0].level, 'warn');
  assert.is(events[0].user_agent, 'thief');
  assert.is(events[0].client_id, client.id);
});

lockout.run();
csrf.run();
reuse.run();
