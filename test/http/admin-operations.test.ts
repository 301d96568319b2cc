import * as tar from 'tar';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_BACKEND, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { waitFor } from '../helpers/wait';
import { adminToken } from '../helpers/factories';
import { recordLogEntry } from '#services/security-log';
import { insertOutbox, markAttemptFailed } from '#repos/outbox';

// The system-admin routes behind the console's operations pages: backups
// (start with progress, list, download), the mail outbox (failed, retry),
// storage facts, the security-event filter, the log export and live tail —
// the last two never show a secret.

let server: TestServer;
let token: string;
const test = suite('admin operations routes');
test.before(async () => {
  // on PostgreSQL, release 15: the backups run this machine's and CI's pg_dump (Debian's 15), which refuses a newer server
  const env: Record<string, string> =
    TEST_BACKEND === 'postgres'
      ? { WIP_DATABASE_URL: await (await testPostgres({ release: 15 })).freshDatabaseUrl(), WIP_MASTER_KEY: TEST_MASTER_KEY }
      : {};
  server = await startTestServer({ env });
  token = await adminToken(server);
});
test.after(async () => server.stop());

test('a backup started over the API reports progress, is listed, shows in storage facts and downloads as the archive', async () => {
  const before = await server.request('GET', '/api/admin/system/storage', { token });
  assert.is(before.status, 200, before.text);
  assert.is(before.body.data.lastBackup, null);
  assert.ok(before.body.data.databaseBytes > 0);
  assert.ok(before.body.data.dataDisk.freeBytes > 0);

  const started = await server.request('POST', '/api/admin/backups', { token });
  assert.is(started.status, 202, started.text);
  const job = started.body.data;
  assert.is(job.status, 'running');
  const again = await server.request('POST', '/api/admin/backups', { token });
  const finished = await waitFor('the backup', async () => {
    const res = await server.request('GET', `/api/admin/backups/jobs/${job.id}`, { token });
    return res.body.data.status === 'running' ? undefined : res.body.data;
  });
  assert.is(finished.status, 'succeeded', JSON.stringify(finished));
  assert.is(finished.percent, 100);
  assert.match(finished.backup.name, /^wip-backup-.*\.tar\.gz$/);
  // a second start while the first ran was refused (or came after it finished)
  assert.ok(again.status === 409 || again.status === 202, again.text);
  if (again.status === 202)
    await waitFor('the second backup', async () =>
      (await server.request('GET', `/api/admin/backups/jobs/${again.body.data.id}`, { token })).body.data.status === 'running'
        ? undefined
        : true,
    );

  const listed = await server.request('GET', '/api/admin/backups?limit=1', { token });
  assert.is(listed.status, 200);
  assert.is(listed.body.data.items.length, 1);
  assert.is(listed.body.data.items[0].kind, 'manual');
  const storage = await server.request('GET', '/api/admin/system/storage', { token });
  assert.ok(storage.body.data.lastBackup);
  assert.ok(storage.body.data.backupCount >= 1);

  const download = await fetch(`${server.url}/api/admin/backups/${finished.backup.name}/download`, {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.is(download.status, 200);
  assert.match(download.headers.get('content-disposition') ?? '', finished.backup.name);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-dl-'));
  try {
    const file = path.join(dir, 'b.tar.gz');
    fs.writeFileSync(file, Buffer.from(await download.arrayBuffer()));
    assert.is(fs.statSync(file).size, finished.backup.bytes);
    const entries: string[] = [];
    await tar.list({ file, onReadEntry: (e) => entries.push(e.path) });
    assert.is(entries[0], 'manifest.json');
    assert.ok(entries.includes(TEST_BACKEND === 'postgres' ? 'wip.pgdump' : 'wip.db'), entries.join(', '));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const security = await server.request('GET', '/api/admin/logs?category=security&event=backup.downloaded', { token });
  assert.is(security.body.data.items.length, 1, 'the download is a security event');
  for (const name of ['..%2Fsecrets.json', 'secrets.json', 'wip-backup-2026-01-01T00-00-00-000Z.tar.gz']) {
    assert.is((await server.request('GET', `/api/admin/backups/${name}/download`, { token })).status, 404, name);
  }
});

test('failed mail is listed and retried; a message that has not failed cannot be', async () => {
  const now = new Date().toISOString();
  const id = await insertOutbox(
    server.deps.db.kysely,
    { client_id: null, user_id: null, kind: 'test', to_address: 'x@example.test', subject: 'Hello', text_body: 'body' },
    now,
  );
  await markAttemptFailed(
    server.deps.db.kysely,
    'outbox',
    id,
    { attempts: 5, status: 'failed', next_attempt_at: now, last_error: 'connection refused' },
    now,
  );
  const failed = await server.request('GET', '/api/admin/mail/outbox?status=failed', { token });
  assert.is(failed.status, 200);
  const item = failed.body.data.items.find((m: { id: number }) => m.id === id);
  assert.is(item.lastError, 'connection refused');
  assert.is(item.body, undefined, 'never the body');
  const retried = await server.request('POST', `/api/admin/mail/outbox/${id}/retry`, { token });
  assert.is(retried.status, 200, retried.text);
  // without SMTP the mailer stores it as a file: delivered
  await waitFor('delivery', async () => {
    const res = await server.request('GET', '/api/admin/mail/outbox?status=stored', { token });
    return res.body.data.items.some((m: { id: number }) => m.id === id) ? true : undefined;
  });
  const refused = await server.request('POST', `/api/admin/mail/outbox/${id}/retry`, { token });
  assert.is(refused.status, 409);
  assert.is((await server.request('POST', '/api/admin/mail/outbox/999999/retry', { token })).status, 404);
  assert.equal((await server.request('POST', '/api/admin/mail/outbox/retry', { token })).body.data, { requeued: 0 });
});

test('security events: sign-in failures are in the category, ordinary events are not', async () => {
  await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: 'wrong-password' } });
  await recordLogEntry(server.deps, { event: 'test.ordinary', message: 'not security' });
  const res = await server.request('GET', '/api/admin/logs?category=security&limit=200', { token });
  const events = res.body.data.items.map((i: { event: string }) => i.event);
  assert.ok(events.includes('auth.admin_sign_in_failed'), events.join());
  assert.not.ok(events.includes('test.ordinary'));
  assert.is((await server.request('GET', '/api/admin/logs?category=other', { token })).status, 422);
});

test('the log export streams matching rows with secrets redacted, in NDJSON and CSV', async () => {
  const secret = server.deps.secrets.jwtSecret;
  await recordLogEntry(server.deps, {
    event: 'test.leak',
    message: `oops ${secret}`,
    data: { password: 'hunter22', note: `has ${secret}` },
  });
  const ndjson = await fetch(`${server.url}/api/admin/logs/export?event=test.leak`, { headers: { authorization: `Bearer ${token}` } });
  assert.is(ndjson.status, 200);
  assert.is(ndjson.headers.get('x-total-count'), '1');
  assert.match(ndjson.headers.get('content-disposition') ?? '', /attachment; filename="wip-logs-.*\.ndjson"/);
  const text = await ndjson.text();
  assert.not.match(text, secret);
  assert.not.match(text, 'hunter22');
  const row = JSON.parse(text.trim());
  assert.is(row.message, 'oops [redacted]');
  assert.is(row.data.password, '[redacted]');
  const csv = await (
    await fetch(`${server.url}/api/admin/logs/export?event=test.leak&format=csv`, { headers: { authorization: `Bearer ${token}` } })
  ).text();
  assert.match(csv.split('\n')[0], /^id,createdAt,level,event/);
  assert.not.match(csv, secret);
  const listed = await server.request('GET', '/api/admin/logs?event=test.leak', { token });
  assert.is(listed.body.data.items[0].message, 'oops [redacted]');
});

test('the live tail streams new matching rows, redacted, as they are recorded', async () => {
  const secret = server.deps.secrets.jwtSecret;
  const controller = new AbortController();
  const response = await fetch(`${server.url}/api/admin/logs/stream?event=test.tail`, {
    headers: { authorization: `Bearer ${token}` },
    signal: controller.signal,
  });
  assert.is(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', 'text/event-stream');
  const reader = response.body!.getReader();
  let received = '';
  await recordLogEntry(server.deps, { event: 'test.other', message: 'filtered out' });
  await recordLogEntry(server.deps, { event: 'test.tail', message: `tail ${secret}` });
  try {
    await waitFor('the tailed row', async () => {
      const { value } = await reader.read();
      received += Buffer.from(value ?? []).toString('utf8');
      return received.includes('event: log') ? true : undefined;
    });
  } finally {
    controller.abort();
  }
  assert.match(received, /id: \d+\nevent: log\ndata: \{.*"message":"tail \[redacted\]"/);
  assert.not.match(received, 'filtered out');
  assert.not.match(received, secret);
});

test('the live tail survives its session check failing (database unavailable) without an unhandled rejection, and beats again after', async () => {
  const tailed = await startTestServer({ env: { WIP_EVENT_STREAM_HEARTBEAT: '100ms' } });
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const controller = new AbortController();
  const hotPath = tailed.deps.hotPath;
  const adminSession = hotPath.adminSession;
  try {
    const tailToken = await adminToken(tailed);
    const response = await fetch(`${tailed.url}/api/admin/logs/stream`, {
      headers: { authorization: `Bearer ${tailToken}` },
      signal: controller.signal,
    });
    assert.is(response.status, 200);
    const reader = response.body!.getReader();
    const heartbeats = async () => {
      let received = '';
      await waitFor('a heartbeat', async () => {
        const { value } = await reader.read();
        received += Buffer.from(value ?? []).toString('utf8');
        return received.includes(': heartbeat');
      });
    };
    await heartbeats();
    let failures = 0;
    hotPath.adminSession = () => {
      failures++;
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    };
    await waitFor('heartbeats whose session check failed', () => failures >= 3);
    hotPath.adminSession = adminSession;
    await heartbeats();
    await new Promise((r) => setImmediate(r));
    assert.equal(unhandled.map(String), []);
    assert.is(tailed.deps.logTail.size, 1, 'the tail is kept while its session cannot be checked');
  } finally {
    hotPath.adminSession = adminSession;
    controller.abort();
    process.off('unhandledRejection', onUnhandled);
    await tailed.stop();
  }
});

test.run();
