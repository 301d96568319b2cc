import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { daemonAsServer, startDaemon, type SpawnedDaemon } from '../helpers/cli';
import { installedDataDir, ROOT, runWip } from '../helpers/spawn-wip';
import { buildClient, type BuiltClient } from '../helpers/factories';
import { createJob, publishedTemplate } from '../helpers/domain';
import { mulberry32 } from '../helpers/prng';
import { request } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { assertRecordedOnce, recording, sendRecordings, type Recording } from '../helpers/exactly-once';

// Exactly once on SQLite, with real crashes of a real `wip serve`: recordings sent
// with Idempotency-Keys, the daemon killed (SIGKILL) at random moments and at
// the exact moment between the commit and the answer
// (WIP_TEST_CRASH_AFTER_COMMIT), restarted, and the device resending what it
// has no answer for. Each recording is applied once, no resend gets CONFLICT
// for its own write, and the resend is answered within seconds. Also: a stale
// pid file (a zombie, a reused pid) does not keep the daemon from starting.
// PostgreSQL, two nodes: test/db/postgres-exactly-once.test.ts.

const ROUNDS = Number(process.env.EXACTLY_ONCE_ROUNDS ?? 3);
const SEED = Number(process.env.EXACTLY_ONCE_SEED ?? Date.now() % 1_000_000);
/** The longest a resend may wait for its answer after the restart. */
const ANSWERED_WITHIN_MS = 8_000;

const test = suite('Exactly once with real crashes (SQLite): SIGKILL mid-recording, and between commit and answer');

let env: Record<string, string>;
let dataDir: string;
let daemon: SpawnedDaemon | undefined;
test.before(async () => {
  ({ dataDir, env } = await installedDataDir());
  assert.is((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], env)).code, 0);
});
test.after(async () => {
  await daemon?.stop('SIGKILL');
});

async function setUp(): Promise<{ client: BuiltClient; jobId: number }> {
  daemon = await startDaemon([], env);
  const server = daemonAsServer(daemon);
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  const job = await createJob(server, client.owner.token, { templateId });
  return { client, jobId: job.id as number };
}

test(`killed at ${ROUNDS} random moments while recordings are sent with keys: each recording once, every resend answered within seconds (seed ${SEED})`, async () => {
  const { client, jobId } = await setUp();
  const random = mulberry32(SEED);
  const recordings: Recording[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const pending = Array.from({ length: 40 }, (_, i) => recording(jobId, recordings.length + 1 + i));
    recordings.push(...pending);
    const live = daemon!;
    const killAfter = 20 + Math.floor(random() * 400);
    const kill = new Promise<void>((resolve) =>
      setTimeout(() => {
        live.stop('SIGKILL').then(() => resolve(), resolve);
      }, killAfter),
    );
    const sent = await sendRecordings(live.url, client.owner.token, pending);
    await kill;
    daemon = await startDaemon([], env);
    // the device resends what it has no answer for, in order, same key and body
    const resent = await sendRecordings(daemon.url, client.owner.token, pending.slice(sent), { untilAnswered: true });
    assert.is(resent, pending.length - sent);
    const first = pending[sent];
    if (first) assert.ok(first.answeredAfterMs! < ANSWERED_WITHIN_MS, `the resend was answered after ${first.answeredAfterMs} ms`);
  }
  await assertRecordedOnce(daemon!.url, client.owner.token, jobId, recordings);
});

test('killed between the commit and the answer (WIP_TEST_CRASH_AFTER_COMMIT): the resend replays the answer, no CONFLICT, recorded once', async () => {
  await daemon?.stop();
  daemon = await startDaemon([], { ...env, WIP_TEST_CRASH_AFTER_COMMIT: 'crash-' });
  const server = daemonAsServer(daemon);
  const client = await buildClient(server);
  const { templateId } = await publishedTemplate(server, client);
  const job = await createJob(server, client.owner.token, { templateId });
  const item = recording(job.id, 1, `crash-${randomUUID()}`);
  const died = daemon;
  const lost = await sendRecordings(died.url, client.owner.token, [item]);
  assert.is(lost, 0, 'the answer never came: the daemon killed itself right after the commit');
  assert.is(await died.stop(), null, 'it died of SIGKILL');
  daemon = await startDaemon([], env);
  const started = Date.now();
  const again = await request(daemon.url, 'POST', '/api/client/graphql', {
    token: client.owner.token,
    body: item.body,
    headers: { 'idempotency-key': item.key },
  });
  assert.ok(Date.now() - started < ANSWERED_WITHIN_MS);
  assert.is(again.status, 200, again.text);
  assert.is(again.headers.get('idempotency-replayed'), 'true', 'the answer committed with the write');
  assert.equal(again.body, { data: { recordStep: { revision: 2, record: { stepId: 'measure' } } } });
  await assertRecordedOnce(daemon.url, client.owner.token, job.id, [item]);
});

test('a restore changes the data epoch: the device resends what was acknowledged after the backup; what cannot be applied any more becomes a deviation', async () => {
  await daemon?.stop();
  const { client, jobId } = await setUp();
  const token = client.owner.token;
  const epochOf = async (url: string) => (await request(url, 'GET', '/api/client/version')).body.data.dataEpoch as string;
  const before = await epochOf(daemon!.url);
  // acknowledged under the first epoch: two before the backup, three after it
  const items = Array.from({ length: 5 }, (_, i) => recording(jobId, i + 1));
  assert.is(await sendRecordings(daemon!.url, token, items.slice(0, 2)), 2);
  const archive = path.join(path.dirname(dataDir), `restore-${randomUUID()}.tar.gz`);
  assert.is((await runWip(['backup', '--output', archive], env)).code, 0);
  assert.is(await sendRecordings(daemon!.url, token, items.slice(2)), 3);
  await daemon!.stop();
  daemon = undefined;
  const restored = await runWip(['restore', archive, '--json'], env);
  assert.is(restored.code, 0, restored.stderr);
  const newEpoch: string = JSON.parse(restored.stdout).dataEpoch;
  daemon = await startDaemon([], env);
  const after = await epochOf(daemon.url);
  assert.is(after, newEpoch);
  assert.is.not(after, before, 'the restore changed the epoch');
  // meanwhile someone records on the job three times (the server was at revision 3, as in the backup)
  const others = [3, 4, 5].map((revision) => recording(jobId, revision));
  assert.is(await sendRecordings(daemon.url, token, others), 3);
  // the device resends every item acknowledged under the old epoch, in order, same key and body
  const replayed: boolean[] = [];
  const refused: { item: Recording; code: string }[] = [];
  for (const item of items) {
    const res = await request(daemon.url, 'POST', '/api/client/graphql', {
      token,
      body: item.body,
      headers: { 'idempotency-key': item.key },
    });
    assert.is(res.headers.get('wip-data-epoch'), after);
    if (res.body.errors) refused.push({ item, code: res.body.errors[0].extensions.code });
    else replayed.push(res.headers.get('idempotency-replayed') === 'true');
  }
  assert.equal(replayed, [true, true], 'the two from before the backup: the server still has their answers');
  assert.equal(
    refused.map((r) => r.code),
    ['CONFLICT', 'CONFLICT', 'CONFLICT'],
  );
  // what cannot be applied any more is reported, not dropped
  for (const { item, code } of refused) {
    const res = await request(daemon.url, 'POST', '/api/client/sync/unapplied', {
      token,
      headers: { 'idempotency-key': `unapplied:${item.key}` },
      body: {
        idempotencyKey: item.key,
        operation: 'recordStep',
        jobId,
        stepId: 'measure',
        acknowledgedAt: new Date().toISOString(),
        acknowledgedEpoch: before,
        error: { code, message: 'refused when sent again' },
        summary: `Measure: note #${item.expectedRevision}`,
        payload: item.body,
      },
    });
    assert.is(res.status, 201, res.text);
  }
  const deviations = await request(daemon.url, 'POST', '/api/client/graphql', {
    token,
    body: {
      query: 'query($f: DeviationFilter) { deviations(first: 10, filter: $f) { nodes { kind detail } } }',
      variables: { f: { jobId: `Job:${jobId}`, kind: 'UNAPPLIED_CHANGE' } },
    },
  });
  const details = deviations.body.data.deviations.nodes.map((d: { detail: string }) => d.detail);
  assert.is(details.length, 3, deviations.text);
  for (const n of [3, 4, 5])
    assert.ok(
      details.some((d: string) => d.includes(`note #${n}`)),
      `#${n} is a deviation`,
    );
});

test('wip renew-data-epoch (a restore by other means): a new epoch the daemon announces at its next start; refused while it serves', async () => {
  daemon ??= await startDaemon([], env);
  const before = (await request(daemon.url, 'GET', '/api/client/version')).body.data.dataEpoch;
  const refused = await runWip(['renew-data-epoch'], env);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /is serving/);
  await daemon.stop();
  const renewed = await runWip(['renew-data-epoch', '--json'], env);
  assert.is(renewed.code, 0, renewed.stderr);
  const epoch = JSON.parse(renewed.stdout).dataEpoch;
  daemon = await startDaemon([], env);
  const after = await request(daemon.url, 'GET', '/api/client/version');
  assert.is(after.body.data.dataEpoch, epoch);
  assert.is(after.headers.get('wip-data-epoch'), epoch);
  assert.is.not(epoch, before);
});

test('a stale pid file — a zombie, a reused pid, a process that is no wip daemon — never keeps the daemon from starting', async () => {
  await daemon?.stop();
  daemon = undefined;
  const pidFile = path.join(dataDir, 'wip.pid');
  // a zombie: `sh` starts a short `sleep` in the background and execs a long one, which never reaps it when it ends
  const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))));
    await waitFor(
      'the child to become a zombie',
      () => fs.existsSync(`/proc/${zombie}/stat`) && fs.readFileSync(`/proc/${zombie}/stat`, 'utf8').includes(') Z '),
    );
    // as a daemon of this version writes it (pid, start time), and as an older one did (pid only)
    for (const text of [`${zombie}\n123\n`, `${zombie}\n`]) {
      fs.writeFileSync(pidFile, text);
      const started = await startDaemon([], env);
      assert.ok(fs.readFileSync(pidFile, 'utf8').startsWith(`${started.child.pid}\n`));
      await started.stop();
    }
    // a live process that got the dead daemon's pid (another start time), and a live process that is no daemon
    for (const text of [`${parent.pid}\n1\n`, `${parent.pid}\n`]) {
      fs.writeFileSync(pidFile, text);
      const started = await startDaemon([], env);
      await started.stop();
    }
  } finally {
    parent.kill('SIGKILL');
  }
  // the live daemon still keeps a second one out
  daemon = await startDaemon([], env);
  const second = await startDaemon([], env).then(
    (d) => d.stop().then(() => 'started'),
    (error: Error) => error.message,
  );
  assert.match(second, /another wip daemon \(pid \d+\) is serving/);
});

test.run();
