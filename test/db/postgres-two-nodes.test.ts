import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { adminToken, buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { insertOutbox } from '#repos/outbox';
import { recordLogEntry } from '#services/security-log';
import { runCli, startDaemon } from '../helpers/cli';
import { cliEnv } from '../helpers/spawn-wip';

// Two nodes (two daemons with their own data directories) on one PostgreSQL
// database: what one node does, the other honours at the very next request.

let databaseUrl: string;
let a: TestServer;
let b: TestServer;
let smtp: TestSmtp;

const nodes = suite('two nodes on one PostgreSQL database');
nodes.before(async () => {
  smtp = await startTestSmtp();
  databaseUrl = await (await testPostgres()).freshDatabaseUrl();
  const env = {
    WIP_DATABASE_URL: databaseUrl,
    WIP_MASTER_KEY: TEST_MASTER_KEY,
    WIP_SMTP_URL: smtp.url,
    WIP_SIGN_IN_RATE_LIMIT_MAX: '1000',
    WIP_LOCKOUT_MAX_FAILURES: '4',
  };
  a = await startTestServer({ env });
  // the license was installed through node A: B finds it in the database
  b = await startTestServer({ env, license: 'evaluation' });
});
nodes.after(async () => {
  await a.stop();
  await b.stop();
  await smtp.stop();
});

nodes(
  'a token issued by node A is accepted by node B (the signing key is shared), and a sign-out through A is refused by B at the next request',
  async () => {
    const client = await buildClient(a);
    const user = await buildUser(a, client);
    const token = await signIn(a, user.email, PASSWORD);
    assert.is((await b.request('GET', '/api/client/auth/me', { token })).status, 200);
    assert.is((await a.request('POST', '/api/client/auth/sign-out', { token })).status, 200);
    const after = await b.request('GET', '/api/client/auth/me', { token });
    assert.is(after.status, 401);
  },
);

nodes('a user disabled through node A is refused by node B at the next request', async () => {
  const client = await buildClient(a);
  const user = await buildUser(a, client);
  assert.is((await b.request('GET', '/api/client/auth/me', { token: user.token })).status, 200);
  const off = await a.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: user.id, disabled: true } });
  assert.is(off.status, 200);
  assert.is((await b.request('GET', '/api/client/auth/me', { token: user.token })).status, 401);
});

nodes('sign-in failures count across nodes: two through A and two through B lock the account on both', async () => {
  const client = await buildClient(a);
  const user = await buildUser(a, client);
  for (const node of [a, b, a, b]) {
    await node.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: 'wrong-password-1' } });
  }
  for (const node of [a, b]) {
    const right = await node.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
    assert.is(right.status, 429, right.text);
    assert.is(right.body.error.code, 'TOO_MANY_ATTEMPTS');
  }
});

nodes('queued mail is delivered exactly once when both nodes deliver at the same time', async () => {
  // due for both nodes' clocks
  const now = new Date(Math.min(a.clock.now().getTime(), b.clock.now().getTime())).toISOString();
  const before = smtp.messages.length;
  const subjects = Array.from({ length: 30 }, (_, i) => `two-node mail ${i}`);
  for (const subject of subjects) {
    await insertOutbox(
      a.deps.db.kysely,
      { client_id: null, user_id: null, kind: 'test', to_address: 'someone@example.test', subject, text_body: 'hello' },
      now,
    );
  }
  await Promise.all([a.deps.mailer.deliverDue(), b.deps.mailer.deliverDue(), a.deps.mailer.deliverDue(), b.deps.mailer.deliverDue()]);
  const received = smtp.messages
    .slice(before)
    .map((m) => m.subject)
    .filter((s) => s.startsWith('two-node mail'));
  assert.is(received.length, subjects.length);
  assert.equal([...received].sort(), [...subjects].sort());
});

nodes('a translation added and changed through node A is served by a node in another process at its next request', async () => {
  // another process: nodes A and B share this process's module state, which would hide a cache kept there
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-node-c-'));
  const c = await startDaemon([], { ...cliEnv(root), WIP_DATABASE_URL: databaseUrl, WIP_MASTER_KEY: TEST_MASTER_KEY });
  try {
    const client = await buildClient(a);
    const admin = await adminToken(a);
    const read = async () => {
      const res = await fetch(`${c.url}/api/client/internalization/de`, { headers: { authorization: `Bearer ${client.owner.token}` } });
      assert.is(res.status, 200);
      return ((await res.json()) as { data: { namespaces: Record<string, Record<string, string>> } }).data.namespaces;
    };
    assert.is((await read()).fleet?.truck, undefined, 'node C has read the bundle without the entry');
    const added = await a.request('POST', '/api/admin/internationalization', {
      token: admin,
      body: { language: 'de', namespace: 'fleet', key: 'truck', text: 'Lastwagen' },
    });
    assert.is(added.status, 201, added.text);
    assert.is((await read()).fleet?.truck, 'Lastwagen');
    const changed = await a.request('PUT', `/api/admin/internationalization/${added.body.data.id}`, {
      token: admin,
      body: { text: 'LKW' },
    });
    assert.is(changed.status, 200, changed.text);
    assert.is((await read()).fleet?.truck, 'LKW');
  } finally {
    await c.stop();
    fs.rmSync(root, { recursive: true, force: true });
  }
});

nodes('the log export scrubs the shared secrets, which live in the database and not in a secrets file', async () => {
  const secret = a.deps.secrets.jwtSecret;
  await recordLogEntry(a.deps, {
    event: 'test.shared_secret_leak',
    message: `oops ${secret}`,
    data: { note: `has ${a.deps.secrets.vapid.privateKey}` },
  });
  const admin = await adminToken(b);
  const res = await fetch(`${b.url}/api/admin/logs/export?event=test.shared_secret_leak`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  assert.is(res.status, 200);
  const text = await res.text();
  assert.ok(text.includes('oops [redacted]'), text);
  assert.not.ok(text.includes(secret) || text.includes(a.deps.secrets.vapid.privateKey), 'a shared secret left the appliance');
});

nodes(
  '`wip doctor` in PostgreSQL mode checks the server, its version, the schema, the shared secrets and the clock skew; a wrong master key fails',
  async () => {
    const env = { WIP_DATABASE_URL: databaseUrl, WIP_MASTER_KEY: TEST_MASTER_KEY, WIP_PORT: '1' };
    const result = await runCli(['--data-dir', a.dataDir, 'doctor', '--json'], { env });
    const checks = Object.fromEntries(
      JSON.parse(result.stdout).checks.map((c: { name: string; status: string; message: string }) => [c.name, c]),
    );
    assert.is(checks.database.status, 'OK');
    assert.match(checks.database.message, /^PostgreSQL \d+/);
    assert.is(checks.migrations.status, 'OK');
    assert.is(checks.secrets.status, 'OK');
    assert.is(checks['clock-skew'].status, 'OK');
    const wrong = await runCli(['--data-dir', a.dataDir, 'doctor', '--json'], {
      env: { ...env, WIP_MASTER_KEY: 'another-master-key-of-32-characters-or-more' },
    });
    const secrets = JSON.parse(wrong.stdout).checks.find((c: { name: string }) => c.name === 'secrets');
    assert.is(secrets.status, 'FAIL');
    assert.match(secrets.message, /WIP_MASTER_KEY does not open/);
  },
);

nodes.run();
