import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request, ADMIN_PASSWORD } from '../helpers/server';
import { uniqueEmail } from '../helpers/factories';
import { startDaemon } from '../helpers/cli';
import { installedDataDir, runWip } from '../helpers/spawn-wip';

const test = suite('log redaction (spawned wip serve)');

test("a sign-in's password and tokens never appear in any stdout log line nor in any logs table row", async () => {
  const { root, env } = await installedDataDir();
  const daemon = await startDaemon([], { ...env, WIP_LOG_LEVEL: 'trace' });
  const url = daemon.url;
  const secrets: string[] = [ADMIN_PASSWORD];
  try {
    const admin = await request(url, 'POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.is(admin.status, 200);
    const adminToken = admin.body.data.token as string;
    secrets.push(adminToken);
    const email = uniqueEmail('redact');
    const password = 'Redaction-Test-Password-42';
    const wrongPassword = 'Wrong-Password-Attempt-77';
    secrets.push(password, wrongPassword);
    const created = await request(url, 'POST', '/api/admin/client', {
      token: adminToken,
      body: { name: 'Redaction', owner: { email, password } },
    });
    assert.is(created.status, 201, created.text);

    assert.is((await request(url, 'POST', '/api/client/auth/sign-in', { body: { email, password: wrongPassword } })).status, 401);
    const signIn = await request(url, 'POST', '/api/client/auth/sign-in', { body: { email, password } });
    assert.is(signIn.status, 200);
    const { token, refreshToken } = signIn.body.data as { token: string; refreshToken: string };
    const pairs = signIn.headers.getSetCookie().map((c) => c.split(';')[0]);
    const cookie = pairs.join('; ');
    secrets.push(token, refreshToken, ...pairs.map((p) => p.split('=')[1]));

    assert.is((await request(url, 'GET', '/api/client/auth/me', { token })).status, 200);
    assert.is((await request(url, 'GET', '/api/client/auth/me', { headers: { cookie } })).status, 200);
    const refreshed = await request(url, 'POST', '/api/client/auth/refresh', { body: { refreshToken } });
    assert.is(refreshed.status, 200, refreshed.text);
    secrets.push(refreshed.body.data.token, refreshed.body.data.refreshToken);
    // presenting the rotated token again is reuse: a security event in the logs table
    assert.is((await request(url, 'POST', '/api/client/auth/refresh', { body: { refreshToken } })).status, 401);
    assert.is((await request(url, 'GET', '/api/client/auth/me', { token: 'forged.' + token })).status, 401);
  } finally {
    await daemon.stop();
  }

  const lines = daemon.stdout().trim().split('\n');
  for (const line of lines) {
    assert.ok(line.startsWith('{'), `structured JSON only: ${line.slice(0, 80)}`);
    const entry = JSON.parse(line) as Record<string, unknown>;
    if (entry.msg === 'request')
      for (const key of ['requestId', 'route', 'status', 'ms']) assert.ok(key in entry, `request line has ${key}`);
  }
  assert.ok(
    lines.some((l) => l.includes('"route":"/api/client/auth/sign-in"')),
    'the sign-ins were logged',
  );
  assert.ok(
    lines.some((l) => l.includes('auth.refresh_token_reuse')),
    'the reuse event was logged',
  );
  for (const secret of secrets) {
    assert.ok(secret.length >= 10);
    for (const line of lines) assert.not.ok(line.includes(secret), `a secret leaked into the log: ${line}`);
  }

  const exported = await runWip(['logs', 'export'], env);
  assert.is(exported.code, 0, exported.stderr);
  const rows = exported.stdout.trim().split('\n');
  assert.ok(
    rows.some((r) => r.includes('auth.refresh_token_reuse')),
    'the logs table has the security event',
  );
  for (const secret of secrets) for (const row of rows) assert.not.ok(row.includes(secret), `a secret leaked into the logs table: ${row}`);
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
