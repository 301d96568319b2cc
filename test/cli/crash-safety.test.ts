import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installedDataDir, runWip } from '../helpers/spawn-wip';
import { daemonAsServer, startDaemon, type SpawnedDaemon } from '../helpers/cli';
import type { TestServer } from '../helpers/server';
import { buildClient, buildUser, uniqueEmail, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { upload } from '../helpers/upload';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';
import { issueTestLicense } from '../helpers/licenses';
import { mulberry32 } from '../helpers/prng';
import { waitFor } from '../helpers/wait';

// Crash safety: writes of every kind run concurrently against a daemon in a
// child process; it is killed with SIGKILL at a random moment. After the
// restart every write the server acknowledged must be there, intact, and the
// database, the stored files and the audit chain must be sound.
// CRASH_ROUNDS=200 (and CRASH_SEED) on demand; a few rounds in CI.

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const random = mulberry32(SEED);

/** What the server (or the CLI) acknowledged, to be found after the crash. */
interface Acknowledged {
  users: { id: number; email: string }[];
  files: { id: number; sha256: string }[];
  jobs: number[];
  /** per draft version: the highest edit number acknowledged (edits are sequential per draft) */
  draftEdits: Map<number, number>;
  /** per job: the highest recording number acknowledged (recordings are sequential per job) */
  recordings: Map<number, number>;
  licenses: string[];
}

interface Fixture {
  client: BuiltClient;
  operatorToken: string;
  templateId: number;
  drafts: number[];
}

const draftContent = (n: number) => ({ sections: [{ title: `Edit ${n}`, steps: [{ stepId: 'only', title: `Edit number ${n}` }] }] });
const editNumber = (title: string | undefined) => Number(/^Edit (\d+)$/.exec(title ?? '')?.[1] ?? 0);
const recordingNumber = (note: unknown) => Number(/^recording (\d+)$/.exec(String(note ?? ''))?.[1] ?? 0);

async function setUp(server: TestServer): Promise<Fixture> {
  const client = await buildClient(server, { seats: { full: 50_000, connect: 100 } });
  const template = await publishedTemplate(server, client);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const drafts: number[] = [];
  for (let i = 0; i < 2; i++) {
    const created = await gql(
      server,
      client.owner.token,
      'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { version { databaseId } } }',
      {
        i: { title: `Draft ${i}`, description: '', tags: [], content: draftContent(0) },
      },
    );
    assert.equal(created.codes, [], JSON.stringify(created.errors));
    drafts.push(created.data.createTemplate.version.databaseId);
  }
  return { client, operatorToken: operator.token!, templateId: template.templateId, drafts };
}

/** Runs each kind of write in its own loop until `stop` is set; records what was acknowledged. */
function drive(
  server: TestServer,
  fixture: Fixture,
  env: Record<string, string>,
  ack: Acknowledged,
  licenseDir: string,
  state: { stop: boolean },
) {
  const owner = fixture.client.owner.token;
  const loop = async (write: () => Promise<void>) => {
    while (!state.stop) await write().catch(() => undefined); // a refused connection after the kill is expected
  };
  const createUsers = async () => {
    const email = uniqueEmail('crash');
    const res = await server.request('POST', '/api/admin/user', { token: owner, body: { email, roles: ['viewer'], licenseType: 'full' } });
    if (res.status === 201) ack.users.push({ id: res.body.data.id, email });
  };
  const uploads = async () => {
    const data = randomBytes(1000 + Math.floor(random() * 64_000));
    const res = await upload(server, owner, [{ name: 'crash.bin', data }]);
    if (res.status === 201) ack.files.push({ id: res.body.data.files[0].id, sha256: createHash('sha256').update(data).digest('hex') });
  };
  const editDraft = (versionId: number) => async () => {
    const n = (ack.draftEdits.get(versionId) ?? 0) + 1;
    const res = await gql(
      server,
      owner,
      'mutation($v: ID!, $c: ContentInput!) { updateDraft(input: { versionId: $v, content: $c }) { version { id } } }',
      { v: `TemplateVersion:${versionId}`, c: draftContent(n) },
    );
    if (res.status === 200 && res.codes.length === 0) ack.draftEdits.set(versionId, n);
  };
  const jobs = async () => {
    const job = await createJob(server, owner, { templateId: fixture.templateId });
    ack.jobs.push(job.id);
    for (let n = 1; n <= 3 && !state.stop; n++) {
      const res = await gql(server, fixture.operatorToken, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
        i: {
          jobId: `Job:${job.id}`,
          stepId: 'measure',
          status: 'DONE',
          values: [
            { key: 'torque', value: 15 },
            { key: 'note', value: `recording ${n}` },
          ],
        },
      });
      if (res.status === 200 && res.codes.length === 0) ack.recordings.set(job.id, n);
    }
  };
  const installLicenses = async () => {
    const licenseId = `L-crash-${randomBytes(4).toString('hex')}`;
    const file = path.join(licenseDir, `${licenseId}.lic`);
    fs.writeFileSync(file, issueTestLicense({ licenseId, seats: { full: 100_000, connect: 100_000 }, maxClients: 1000 }));
    const result = await runWip(['license', 'install', file], env);
    if (result.code === 0) ack.licenses.push(licenseId);
  };
  return Promise.all([
    loop(createUsers),
    loop(createUsers),
    loop(uploads),
    loop(uploads),
    ...fixture.drafts.map((d) => loop(editDraft(d))),
    loop(jobs),
    loop(installLicenses),
  ]);
}

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The database, opened after the crash as a forensic tool would (no application code in between). */
function checkDatabase(dataDir: string, ack: Acknowledged): void {
  const db = new Database(path.join(dataDir, 'wip.db'));
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    assert.equal(db.pragma('foreign_key_check'), [], 'no orphan row');
    const licenses = new Set(
      (db.prepare('select license_id from installed_licenses').all() as { license_id: string }[]).map((r) => r.license_id),
    );
    for (const id of ack.licenses) assert.ok(licenses.has(id), `acknowledged license ${id} is installed`);
    // every file row (acknowledged or committed just before the kill) has its complete content
    for (const row of db.prepare('select id, sha256, size from files').all() as { id: number; sha256: string; size: number }[]) {
      const blob = path.join(dataDir, 'files', row.sha256.slice(0, 2), row.sha256);
      assert.ok(fs.existsSync(blob) && fs.statSync(blob).size === row.size, `file row ${row.id} has its complete content`);
    }
  } finally {
    db.close();
  }
}

/**
 * The writes acknowledged since `from` (this round), and a sample of earlier
 * ones (a later crash must not lose them either); everything at the end.
 */
function toVerify(ack: Acknowledged, from: Counts | undefined): Acknowledged {
  if (!from) return ack;
  const recentAndSample = <T>(items: T[], start: number) => [...items.slice(start), ...items.slice(0, start).filter(() => random() < 0.05)];
  return {
    ...ack,
    users: recentAndSample(ack.users, from.users),
    files: recentAndSample(ack.files, from.files),
    jobs: recentAndSample(ack.jobs, from.jobs),
  };
}

const everyKindAcknowledged = (ack: Acknowledged) =>
  ack.users.length > 0 &&
  ack.files.length > 0 &&
  ack.jobs.length > 0 &&
  ack.draftEdits.size > 0 &&
  ack.recordings.size > 0 &&
  ack.licenses.length > 0;

type Counts = { users: number; files: number; jobs: number };
const counts = (ack: Acknowledged): Counts => ({ users: ack.users.length, files: ack.files.length, jobs: ack.jobs.length });

async function checkAcknowledged(server: TestServer, fixture: Fixture, ack: Acknowledged): Promise<void> {
  const owner = fixture.client.owner.token;
  for (const user of ack.users) {
    const res = await server.request('GET', `/api/admin/user/${user.id}`, { token: owner });
    assert.is(res.status, 200, `acknowledged user ${user.id}: ${res.text}`);
    assert.is(res.body.data.email, user.email);
  }
  for (const file of ack.files) {
    const res = await fetch(`${server.url}/api/client/files/${file.id}`, { headers: { authorization: `Bearer ${owner}` } });
    assert.is(res.status, 200, `acknowledged file ${file.id}`);
    assert.is(
      createHash('sha256')
        .update(Buffer.from(await res.arrayBuffer()))
        .digest('hex'),
      file.sha256,
      `file ${file.id} intact`,
    );
  }
  for (const [versionId, n] of ack.draftEdits) {
    const res = await gql(server, owner, 'query($v: ID!) { templateVersion(id: $v) { content { sections { title } } } }', {
      v: `TemplateVersion:${versionId}`,
    });
    const stored = editNumber(res.data?.templateVersion?.content.sections[0]?.title);
    // the acknowledged edit, or one sent after it that committed before the kill
    assert.ok(stored === n || stored === n + 1, `draft ${versionId}: acknowledged edit ${n}, stored ${stored}`);
  }
  for (const jobId of ack.jobs) {
    const res = await gql(server, owner, 'query($j: ID!) { job(id: $j) { id: databaseId records { stepId values { key value } } } }', {
      j: `Job:${jobId}`,
    });
    assert.is(res.data?.job?.id, jobId, `acknowledged job ${jobId}: ${JSON.stringify(res.errors)}`);
    const n = ack.recordings.get(jobId) ?? 0;
    const note = res.data.job.records
      .find((r: { stepId: string }) => r.stepId === 'measure')
      ?.values.find((v: { key: string }) => v.key === 'note')?.value;
    const stored = recordingNumber(note);
    assert.ok(stored === n || stored === n + 1, `job ${jobId}: acknowledged recording ${n}, stored ${stored}`);
  }
}

const test = suite(`crash safety: SIGKILL under concurrent writes of every kind (${ROUNDS} rounds, seed ${SEED})`);

test('every acknowledged write survives a SIGKILL at a random moment; the database, files and audit chain stay sound', async () => {
  const { root, dataDir, env: baseEnv } = await installedDataDir();
  // the final check reads back every acknowledged write (thousands after 200 rounds): no request budget may refuse it
  const env = { ...baseEnv, ...DOMAIN_TEST_ENV, WIP_RATE_LIMIT_MAX: '100000000', WIP_RATE_LIMIT_ANONYMOUS_MAX: '100000000' };
  const licenseDir = path.join(root, 'licenses');
  fs.mkdirSync(licenseDir);
  fs.writeFileSync(path.join(licenseDir, 'first.lic'), issueTestLicense({ seats: { full: 100_000, connect: 100_000 }, maxClients: 1000 }));
  assert.is((await runWip(['license', 'install', path.join(licenseDir, 'first.lic')], env)).code, 0);
  // generous: a loaded CI machine can take a while to start a process
  const start = () => startDaemon([], env, { timeoutMs: 120_000 });
  let daemon: SpawnedDaemon = await start();
  const fixture = await setUp(daemonAsServer(daemon));
  const ack: Acknowledged = { users: [], files: [], jobs: [], draftEdits: new Map(), recordings: new Map(), licenses: [] };
  let currentRound = 0;

  try {
    for (let round = 1; round <= ROUNDS; round++) {
      currentRound = round;
      const before = counts(ack);
      const state = { stop: false };
      const load = drive(daemonAsServer(daemon), fixture, env, ack, licenseDir, state);
      // the first kill waits until every kind of write has been acknowledged once (uploads fsync and are slow on a
      // loaded machine), so the rounds are sure to interrupt all of them; then a random moment
      await waitFor('every kind of write to be acknowledged', () => everyKindAcknowledged(ack), 120_000);
      const killAfter = 500 + Math.floor(random() * 2500);
      await new Promise((r) => setTimeout(r, killAfter));
      await daemon.stop('SIGKILL');
      state.stop = true;
      await load;

      checkDatabase(dataDir, ack);
      const audit = await runWip(['audit', 'verify', '--json'], env);
      assert.is(audit.code, 0, `round ${round}: audit verify: ${audit.stdout}${audit.stderr}`);

      daemon = await start();
      const server = daemonAsServer(daemon);
      assert.equal(walk(path.join(dataDir, 'files', 'tmp')), [], `round ${round}: no partial upload left`);
      assert.is((await server.request('GET', '/readyz')).status, 200);
      await checkAcknowledged(server, fixture, toVerify(ack, round === ROUNDS ? undefined : before));
      if (ROUNDS > 10 && round % 10 === 0)
        console.log(
          `round ${round}: ${ack.users.length} users, ${ack.files.length} files, ${ack.jobs.length} jobs, ${ack.licenses.length} licenses acknowledged so far`,
        );
    }
  } catch (error) {
    (error as Error).message = `round ${currentRound} of ${ROUNDS} (CRASH_SEED=${SEED}): ${(error as Error).message}`;
    throw error;
  } finally {
    await daemon.stop();
  }
  const summary = {
    rounds: ROUNDS,
    seed: SEED,
    users: ack.users.length,
    files: ack.files.length,
    jobs: ack.jobs.length,
    draftEdits: [...ack.draftEdits.values()].reduce((a, b) => a + b, 0),
    recordings: [...ack.recordings.values()].reduce((a, b) => a + b, 0),
    licenses: ack.licenses.length,
  };
  console.log(`crash safety: ${JSON.stringify(summary)}`);
  // the load reached every kind of write, so the kill interrupted real work
  for (const [kind, count] of Object.entries(summary)) assert.ok(count > 0, `no acknowledged ${kind}`);
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
