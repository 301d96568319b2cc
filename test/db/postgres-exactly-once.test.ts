import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { daemonAsServer, startDaemon, type SpawnedDaemon } from '../helpers/cli';
import { buildClient, type BuiltClient } from '../helpers/factories';
import { createJob, publishedTemplate } from '../helpers/domain';
import { assertRecordedOnce, recording, sendRecordings, type Recording } from '../helpers/exactly-once';
import { testPostgres } from '../helpers/postgres';
import { mulberry32 } from '../helpers/prng';
import { request, TEST_MASTER_KEY } from '../helpers/server';
import { cliEnv, ROOT, runWip } from '../helpers/spawn-wip';

// Exactly once on two PostgreSQL nodes, with real crashes: recordings sent with
// Idempotency-Keys to node A, A killed (SIGKILL) at random moments and at the
// exact moment between commit and answer (WIP_TEST_CRASH_AFTER_COMMIT); the
// device resends what it got no answer for to node B. A key A held in progress
// is B's once A's lease (10 s) ran out — not after 5 minutes — and each
// recording is applied once. SQLite: test/cli/exactly-once-crash.test.ts.

const ROUNDS = Number(process.env.EXACTLY_ONCE_ROUNDS ?? 3);
const SEED = Number(process.env.EXACTLY_ONCE_SEED ?? Date.now() % 1_000_000);
/** The lease (runtime/key-leases.ts) and a margin for a loaded machine. */
const ANSWERED_WITHIN_MS = 10_000 + 5_000;

const test = suite('Exactly once with real crashes on two PostgreSQL nodes');

let root: string;
let databaseUrl: string;
const nodes = new Set<SpawnedDaemon>();
test.before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-exactly-once-'));
  databaseUrl = await (await testPostgres()).freshDatabaseUrl();
  assert.is((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], nodeEnv('a'))).code, 0);
});
test.after(async () => {
  for (const node of nodes) await node.stop('SIGKILL');
});

function nodeEnv(name: string, extra: Record<string, string> = {}): Record<string, string> {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  return { ...cliEnv(dir), WIP_DATABASE_URL: databaseUrl, WIP_MASTER_KEY: TEST_MASTER_KEY, ...extra };
}

async function start(name: string, extra: Record<string, string> = {}): Promise<SpawnedDaemon> {
  const node = await startDaemon([], nodeEnv(name, extra));
  nodes.add(node);
  return node;
}

async function kill(node: SpawnedDaemon): Promise<void> {
  await node.stop('SIGKILL');
  nodes.delete(node);
}

async function jobOn(node: SpawnedDaemon): Promise<{ client: BuiltClient; jobId: number }> {
  const server = daemonAsServer(node);
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  const job = await createJob(server, client.owner.token, { templateId });
  return { client, jobId: job.id as number };
}

test(`node A killed at ${ROUNDS} random moments mid-recording: node B answers the resends within the lease, each recording once (seed ${SEED})`, async () => {
  const b = await start('b');
  let a = await start('a');
  const { client, jobId } = await jobOn(a);
  const random = mulberry32(SEED);
  const recordings: Recording[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pending = Array.from({ length: 40 }, (_, i) => recording(jobId, recordings.length + 1 + i));
    recordings.push(...pending);
    const dying = a;
    const killed = new Promise<void>((resolve) =>
      setTimeout(() => void kill(dying).then(resolve, resolve), 20 + Math.floor(random() * 400)),
    );
    const sent = await sendRecordings(dying.url, client.owner.token, pending);
    await killed;
    const resent = await sendRecordings(b.url, client.owner.token, pending.slice(sent), { untilAnswered: true });
    assert.is(resent, pending.length - sent);
    const first = pending[sent];
    if (first) assert.ok(first.answeredAfterMs! < ANSWERED_WITHIN_MS, `node B answered the resend after ${first.answeredAfterMs} ms`);
    a = await start('a');
  }
  await assertRecordedOnce(b.url, client.owner.token, jobId, recordings);
  await assertRecordedOnce(a.url, client.owner.token, jobId, recordings);
  for (const node of [...nodes]) await kill(node);
});

test('node A killed between commit and answer (WIP_TEST_CRASH_AFTER_COMMIT): node B replays the answer at once, recorded once', async () => {
  const b = await start('b');
  const a = await start('a', { WIP_TEST_CRASH_AFTER_COMMIT: 'crash-' });
  const { client, jobId } = await jobOn(a);
  const item = recording(jobId, 1, `crash-${randomUUID()}`);
  assert.is(await sendRecordings(a.url, client.owner.token, [item]), 0, 'A died before answering');
  assert.is(await a.stop(), null, 'A died of SIGKILL');
  nodes.delete(a);
  const started = Date.now();
  const again = await request(b.url, 'POST', '/api/client/graphql', {
    token: client.owner.token,
    body: item.body,
    headers: { 'idempotency-key': item.key },
  });
  assert.ok(Date.now() - started < 2_000, 'no lease to wait for: the key was done with the commit');
  assert.is(again.status, 200, again.text);
  assert.is(again.headers.get('idempotency-replayed'), 'true');
  assert.equal(again.body, { data: { recordStep: { revision: 2, record: { stepId: 'measure' } } } });
  await assertRecordedOnce(b.url, client.owner.token, jobId, [item]);
});

test.run();
