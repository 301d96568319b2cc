// sqlite-only: tests the SQLite caller-state cache (PRAGMA data_version) with a second connection to the wip.db file; PostgreSQL mode has no such cache
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { runCli } from '../helpers/cli';
import { issueTestLicense, DAY } from '../helpers/licenses';

// The request path caches the caller's state (src/repos/hot-path.ts). Every
// test first makes a request that fills the cache, then changes the state, and
// expects the very next request to see the change — through the API, and from
// another process writing to the same database (the CLI).

const fresh = suite('caller state is seen by the very next request');
let server: TestServer;
fresh.before(async () => {
  server = await startTestServer();
});
fresh.after(async () => server.stop());

const wip = (args: string[]) => runCli(['--data-dir', server.dataDir, ...args], { env: { WIP_ENV: 'test', WIP_LOG_LEVEL: 'silent' } });
const me = (token: string | undefined) => server.request('GET', '/api/client/auth/me', { token });

fresh('a role change: /auth/me shows the new roles and role-guarded routes follow at once', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['author'] });
  assert.equal((await me(user.token)).body.data.roles, ['author']);
  assert.is((await server.request('GET', '/api/admin/user', { token: user.token })).status, 403);
  const granted = await server.request('PUT', '/api/admin/user', {
    token: client.owner.token,
    body: { id: user.id, roles: ['admin', 'author'] },
  });
  assert.is(granted.status, 200, granted.text);
  assert.equal((await me(user.token)).body.data.roles.sort(), ['admin', 'author']);
  assert.is((await server.request('GET', '/api/admin/user', { token: user.token })).status, 200);
  await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: user.id, roles: ['author'] } });
  assert.is((await server.request('GET', '/api/admin/user', { token: user.token })).status, 403);
});

fresh('a license type change is in the next /auth/me', async () => {
  const client = await buildClient(server, { seats: { full: 3, connect: 2 } });
  const user = await buildUser(server, client, { roles: ['operator'], licenseType: 'full' });
  assert.is((await me(user.token)).body.data.licenseType, 'full');
  const moved = await server.request('POST', '/api/client/license', {
    token: client.owner.token,
    body: { userId: user.id, licenseType: 'connect' },
  });
  assert.is(moved.status, 200, moved.text);
  assert.is((await me(user.token)).body.data.licenseType, 'connect');
});

fresh('sign-out, disabling, a new password and deleting the client each end a warm session at once', async () => {
  const client = await buildClient(server);
  const [a, b, c] = [await buildUser(server, client), await buildUser(server, client), await buildUser(server, client)];
  for (const u of [a, b, c]) assert.is((await me(u.token)).status, 200);
  await server.request('POST', '/api/client/auth/sign-out', { token: a.token });
  assert.is((await me(a.token)).status, 401);
  await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: b.id, disabled: true } });
  assert.is((await me(b.token)).status, 401);
  await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: c.id, password: 'a-brand-new-password' } });
  assert.is((await me(c.token)).status, 401);
  assert.is((await me(client.owner.token)).status, 200);
  assert.is((await server.request('DELETE', `/api/admin/client/${client.id}`, { token: await adminToken(server) })).status, 200);
  assert.is((await me(client.owner.token)).status, 401);
});

fresh('a two-factor requirement applies to the next request of a signed-in user', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['author'] });
  assert.is((await server.request('GET', '/api/client/auth/client', { token: user.token })).status, 200);
  assert.is((await server.request('GET', '/api/client/license', { token: user.token })).status, 200);
  const set = await server.request('PUT', '/api/client/auth/client-security-settings', {
    token: client.owner.token,
    body: { twoFactorRequired: 'all' },
  });
  assert.is(set.status, 200, set.text);
  const refused = await server.request('GET', '/api/client/license', { token: user.token });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'TWO_FACTOR_SETUP_REQUIRED');
});

fresh('another process revoking a session, changing roles or disabling a user: seen by the next request', async () => {
  const client = await buildClient(server);
  const [a, b, c] = [
    await buildUser(server, client, { roles: ['author'] }),
    await buildUser(server, client),
    await buildUser(server, client),
  ];
  for (const u of [a, b, c]) assert.is((await me(u.token)).status, 200);
  // a second connection, as the CLI or a restore tool would hold: the daemon learns of its commits from PRAGMA data_version
  const other = new BetterSqlite3(path.join(server.dataDir, 'wip.db'));
  try {
    other.prepare("UPDATE user_roles SET role = 'viewer' WHERE client_id = ? AND user_id = ?").run(client.id, a.id);
    assert.equal((await me(a.token)).body.data.roles, ['viewer']);
    other.prepare('UPDATE sessions SET revoked_at = ? WHERE client_id = ? AND user_id = ?').run(new Date().toISOString(), client.id, b.id);
    assert.is((await me(b.token)).status, 401);
    other.prepare("UPDATE users SET status = 'disabled' WHERE client_id = ? AND id = ?").run(client.id, c.id);
    assert.is((await me(c.token)).status, 401);
  } finally {
    other.close();
  }
});

fresh('another process publishing an MSA or removing its acceptance: the agreement gate sees it at the next request', async () => {
  const client = await buildClient(server);
  const info = async () => (await server.request('GET', '/api/client/client-info', { token: client.owner.token })).body.error?.code;
  assert.is(await info(), undefined);
  const other = new BetterSqlite3(path.join(server.dataDir, 'wip.db'));
  const now = server.clock.now().toISOString();
  try {
    other
      .prepare(
        "INSERT INTO agreements (kind, version, title, body_markdown, effective_at, requires_reacceptance, created_at, updated_at) VALUES ('msa', 'cli-1', 'Terms', 'terms', ?, 1, ?, ?)",
      )
      .run(now, now, now);
    assert.is(await info(), 'MSA_NOT_ACCEPTED');
    assert.is((await server.request('POST', '/api/client/accept-msa', { token: client.owner.token, body: {} })).status, 200);
    assert.is(await info(), undefined);
    other.prepare('DELETE FROM agreement_acceptances WHERE client_id = ?').run(client.id);
    assert.is(await info(), 'MSA_NOT_ACCEPTED');
  } finally {
    other.prepare("DELETE FROM agreements WHERE version = 'cli-1'").run();
    other.close();
  }
  assert.is(await info(), undefined);
});

fresh('`wip admin reset-password` and `wip admin delete` from the CLI end a warm admin session at once', async () => {
  const token = await adminToken(server);
  assert.is((await server.request('GET', '/api/admin/client', { token })).status, 200);
  const created = await wip(['admin', 'create', '--username', 'night-shift', '--password', 'night-pass-123456']);
  assert.is(created.code, 0, created.stderr);
  const signIn = async () =>
    (await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'night-shift', password: 'night-pass-123456' } })).body
      .data.token as string;
  const first = await signIn();
  assert.is((await server.request('GET', '/api/admin/client', { token: first })).status, 200);
  const reset = await wip(['admin', 'reset-password', '--username', 'night-shift', '--password', 'night-pass-123456']);
  assert.is(reset.code, 0, reset.stderr);
  assert.is((await server.request('GET', '/api/admin/client', { token: first })).status, 401);
  const second = await signIn();
  assert.is((await server.request('GET', '/api/admin/client', { token: second })).status, 200);
  const deleted = await wip(['admin', 'delete', '--username', 'night-shift']);
  assert.is(deleted.code, 0, deleted.stderr);
  assert.is((await server.request('GET', '/api/admin/client', { token: second })).status, 401);
});

fresh('`wip license install` of an expired key from the CLI: the next write is refused, and a new key lifts it', async () => {
  const client = await buildClient(server);
  assert.is((await me(client.owner.token)).status, 200);
  const now = server.clock.now();
  const expired = issueTestLicense(
    { issuedAt: new Date(now.getTime() - 60 * DAY).toISOString(), expiresAt: new Date(now.getTime() + DAY).toISOString() },
    { now },
  );
  const installed = await wip(['license', 'install', expired]);
  assert.is(installed.code, 0, installed.stderr + installed.stdout);
  // the daemon's clock (not the CLI's) runs past expiry and grace
  server.clock.advance(30 * DAY);
  const token = await adminToken(server);
  const write = await server.request('POST', '/api/admin/client', { token, body: { name: 'x' } });
  assert.is(write.status, 403, write.text);
  assert.is(write.body.error.code, 'LICENSE_EXPIRED');
  const renewed = await server.request('POST', '/api/admin/license-on-prem', {
    token,
    body: { licenseKey: issueTestLicense({}, { now: server.clock.now() }) },
  });
  assert.ok(renewed.status < 300, renewed.text);
  const again = await server.request('POST', '/api/admin/client', { token, body: { name: 'x' } });
  assert.is(again.status, 422, again.text); // past the gate: refused by validation only
});

fresh.run();
