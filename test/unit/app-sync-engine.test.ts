import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, type BuiltClient } from '../helpers/factories';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { waitFor } from '../helpers/wait';
import { createSyncEngine, type SyncEngine } from '../../src/app/offline/sync';
import { createHttpTransport } from '../../src/app/offline/transport';
import { createServerClock } from '../../src/app/offline/server-clock';
import { memoryStorage, type OfflineStorage } from '../../src/app/offline/storage';
import type { JobData } from '../../src/app/offline/job-types';
import type { QueueItem } from '../../src/app/offline/types';

/**
 * The floor app's sync engine (src/app/offline/sync.ts) in Node: the same
 * code the app runs, given an in-memory storage (what IndexedDB guarantees)
 * and the real HTTP transport against a real server on loopback. Where an
 * answer must be lost, the transport's fetch sends the request for real and
 * then drops the answer — the server committed, the device never heard. The
 * Chromium suites (test/browser/app-offline-queue and others) prove the same
 * engine over IndexedDB and the browser's own fetch.
 */
let server: TestServer;
const engineSuite = suite('the offline sync engine in Node (storage and transport injected)');
engineSuite.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
engineSuite.after(async () => {
  await server?.stop();
});

// the parts of a job the engine reads (the app selects more: offline/job-data.ts)
const JOB_QUERY = `query EngineJob($id: ID!, $language: String) { job(id: $id) {
  id databaseId title state priority revision dueAt template { id title } assignees { databaseId firstName lastName email }
  version { id number content(language: $language) { sections { sectionId title when steps { stepId title body media when fields { key type required } } } } }
  records { stepId status values { key value outOfLimits error } comment reason recordedBy { databaseId firstName lastName email }
    recordedAt capturedAt receivedAt revision }
  steps { stepId applies reason } signoffs { stepId signerName meaning signedAt invalidatedAt }
  faults(last: 50) { nodes { id databaseId stepId description severity state raisedAt } } } }`;
const SERVER_JOB = `query($id: ID!) { job(id: $id) { state revision records { stepId status values { key value } recordedBy { databaseId }
  capturedAt receivedAt } } }`;

/** A browser's cookie jar for one origin: the session cookie and the CSRF cookie of a sign-in. */
class Session {
  cookies = new Map<string, string>();
  async signIn(email: string, clientId: number): Promise<void> {
    const response = await fetch(`${server.url}/api/client/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email, password: PASSWORD, clientId }),
    });
    if (response.status !== 200) throw new Error(`sign-in of ${email}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    this.cookies.clear();
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const at = pair.indexOf('=');
      this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  }
  csrf = () => decodeURIComponent(this.cookies.get('wip_csrf') ?? '');
  fetch: typeof fetch = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    headers.set('origin', server.url);
    return fetch(input, { ...init, headers });
  };
}

interface Sent {
  key: string;
  body: string;
  field: string;
}

/**
 * A device: an engine over `storage`, the real transport through `session`. `intercept` sees every mutation the
 * engine sends and may drop its answer ('lose': sent for real, the answer never arrives; 'unsent': no network).
 */
function device(storage: OfflineStorage, session: Session, intercept?: (sent: Sent) => 'lose' | 'unsent' | undefined) {
  const sent: Sent[] = [];
  const serverClock = createServerClock({ now: () => Date.now() });
  const fetchThrough: typeof fetch = async (input, init = {}) => {
    const body = typeof init.body === 'string' ? init.body : '';
    const key = new Headers(init.headers).get('idempotency-key');
    if (key && body.includes('mutation')) {
      const one = { key, body, field: /mutation \w+\(\$input: \w+!\) \{ (\w+)/.exec(body)?.[1] ?? '' };
      const fate = intercept?.(one);
      if (fate === 'unsent') throw new TypeError('fetch failed (offline)');
      sent.push(one);
      const response = await session.fetch(input, init);
      if (fate === 'lose') {
        await response.arrayBuffer();
        throw new TypeError('fetch failed (connection reset after the server answered)');
      }
      return response;
    }
    return session.fetch(input, init);
  };
  let online = true;
  const transport = createHttpTransport({
    baseUrl: server.url,
    fetch: fetchThrough,
    csrfToken: session.csrf,
    signedOut: () => false,
    serverClock,
    now: () => Date.now(),
    language: () => null,
    jobQuery: async () => JOB_QUERY,
  });
  const engine = createSyncEngine({
    storage,
    transport,
    serverClock,
    now: () => Date.now(),
    network: { online: () => online, subscribe: () => () => undefined },
  });
  return {
    engine,
    sent,
    setOnline(value: boolean) {
      online = value;
    },
    async fetchJob(user: string, jobId: string): Promise<JobData> {
      const job = await transport.readJob(jobId);
      if (!job) throw new Error(`no job ${jobId}`);
      await engine.queue.storeJob(user, job);
      return job;
    },
  };
}

/** Whether every item left waits for a decision (its own or an earlier one's of its job). */
function onlyHeld(items: QueueItem[]): boolean {
  const held = new Set<string>();
  for (const item of items) {
    if (item.state !== 'pending') held.add(item.jobId);
    else if (!held.has(item.jobId)) return false;
  }
  return true;
}

/** Rounds until the user's queue holds only items waiting for a decision (a bounded wait: a stall fails the test). */
async function drain(engine: SyncEngine, user: string): Promise<void> {
  await waitFor(`the queue of ${user} drained`, async () => {
    await engine.syncNow();
    return onlyHeld(await engine.queue.queuedItems(user)) && !engine.state.get().syncing;
  });
}

interface Setup {
  client: BuiltClient;
  operator: Awaited<ReturnType<typeof buildUser>>;
  colleague: Awaited<ReturnType<typeof buildUser>>;
  jobId: string;
  user: string;
  session: Session;
}

async function setup(): Promise<Setup> {
  const client = await buildClient(server);
  const template = await publishedTemplate(server, client);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const colleague = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const session = new Session();
  await session.signIn(operator.email, client.id);
  return { client, operator, colleague, jobId: `Job:${job.id}`, user: `${client.id}:${operator.id}`, session };
}

const serverJob = async (s: Setup) => (await gql(server, s.client.owner.token, SERVER_JOB, { id: s.jobId })).data.job;
const record = async (d: ReturnType<typeof device>, s: Setup, stepId: string, values: { key: string; value: unknown }[]) => {
  const view = await d.engine.queue.localJobView(s.user, s.jobId);
  return d.engine.queue.enqueueRecord(s.user, view!.job, { stepId, status: 'DONE', values });
};

engineSuite('an answer lost after the server committed: resent with the same key and bytes, recorded once', async () => {
  const s = await setup();
  let lost = false;
  const d = device(memoryStorage(), s.session, () => (lost ? undefined : ((lost = true), 'lose')));
  await d.fetchJob(s.user, s.jobId);
  await record(d, s, 'measure', [{ key: 'torque', value: 15 }]);
  d.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(d.engine, s.user);
  d.engine.stop();
  assert.is(d.sent.length, 2, 'sent, then resent once');
  assert.is(d.sent[1].key, d.sent[0].key, 'the same Idempotency-Key');
  assert.is(d.sent[1].body, d.sent[0].body, 'the same bytes');
  const job = await serverJob(s);
  assert.is(job.revision, 2, 'one write (a new job is at revision 1)');
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value]),
    [['measure', 15]],
  );
  assert.equal(await d.engine.queue.queuedItems(s.user), []);
  const view = await d.engine.queue.localJobView(s.user, s.jobId);
  assert.is(view!.confirmed.length, 1, 'shown as confirmed once the replayed answer came');
});

engineSuite('reordering: a later item never goes before an earlier one is confirmed, each at the revision before it', async () => {
  const s = await setup();
  let lost = false;
  const d = device(memoryStorage(), s.session, (one) =>
    one.field === 'recordStep' && one.body.includes('"measure"') && !lost ? ((lost = true), 'lose') : undefined,
  );
  await d.fetchJob(s.user, s.jobId);
  await record(d, s, 'measure', [{ key: 'torque', value: 14 }]);
  await record(d, s, 'check', [{ key: 'sealOk', value: 'PASS' }]);
  await d.engine.queue.enqueueTransition(s.user, s.jobId, 'pause');
  d.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(d.engine, s.user);
  d.engine.stop();
  const steps = d.sent.map((one) => (one.field === 'recordStep' ? JSON.parse(one.body).variables.input.stepId : one.field));
  assert.equal(steps, ['measure', 'measure', 'check', 'pauseJob'], 'the lost one again before anything after it');
  assert.equal(
    d.sent.map((one) => JSON.parse(one.body).variables.input.expectedRevision),
    [1, 1, 2, 3],
  );
  const job = await serverJob(s);
  assert.is(job.revision, 4);
  assert.is(job.state, 'PAUSED');
});

engineSuite('a conflict: a stale value meets a newer one on the server, is held for the operator, never written over it', async () => {
  const s = await setup();
  const d = device(memoryStorage(), s.session);
  await d.fetchJob(s.user, s.jobId);
  await record(d, s, 'measure', [{ key: 'torque', value: 12 }]);
  // meanwhile a colleague records the same step on another device
  const theirs = await gql(server, s.colleague.token, 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }', {
    i: { jobId: s.jobId, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 11 }], expectedRevision: 1 },
  });
  assert.is(theirs.data.recordStep.revision, 2);
  const settled: string[] = [];
  d.engine.signals.onItemSettled((_item, how) => settled.push(how));
  d.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(d.engine, s.user);
  d.engine.stop();
  const [held] = await d.engine.queue.queuedItems(s.user);
  assert.is(held.state, 'conflict');
  assert.is(held.conflict?.theirs?.values[0].value, 11, 'both values shown: theirs');
  assert.equal(held.kind === 'record' && held.values, [{ key: 'torque', value: 12 }], 'and mine, kept');
  assert.equal(settled, ['conflict']);
  const job = await serverJob(s);
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]),
    [['measure', 11, s.colleague.id]],
    'the newer value stays on the server',
  );
  assert.is(d.engine.state.get().conflicts, 1);
});

engineSuite('a refusal: the entry is marked refused with the server code, never shown as sent', async () => {
  const s = await setup();
  const d = device(memoryStorage(), s.session);
  await d.fetchJob(s.user, s.jobId);
  await record(d, s, 'measure', [{ key: 'torque', value: 13 }]);
  const cancelled = await gql(server, s.client.owner.token, 'mutation($i: CancelJobInput!) { cancelJob(input: $i) { revision } }', {
    i: { jobId: s.jobId, reason: 'Asset withdrawn' },
  });
  assert.ok(cancelled.data?.cancelJob, JSON.stringify(cancelled.errors));
  const settled: string[] = [];
  d.engine.signals.onItemSettled((_item, how) => settled.push(how));
  d.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(d.engine, s.user);
  d.engine.stop();
  const [refused] = await d.engine.queue.queuedItems(s.user);
  assert.is(refused.state, 'rejected');
  assert.ok(refused.error?.code && refused.error.code !== 'CONFLICT', `refused with the server's code: ${refused.error?.code}`);
  assert.equal(settled, ['refused']);
  const view = await d.engine.queue.localJobView(s.user, s.jobId);
  assert.equal(view!.confirmed, [], 'nothing shown as confirmed');
  assert.is(d.engine.state.get().refused, 1);
  assert.equal((await serverJob(s)).records, []);
});

engineSuite('sign-out with unsent entries: bound to their user, not sent under the next one, sent when they return', async () => {
  const s = await setup();
  const storage = memoryStorage();
  const tablet = device(storage, s.session);
  tablet.setOnline(false);
  await tablet.fetchJob(s.user, s.jobId);
  await record(tablet, s, 'measure', [{ key: 'torque', value: 16 }]);
  // the operator signs out offline; the colleague signs in on the same tablet (same storage)
  tablet.engine.stop();
  await tablet.engine.queue.forgetUser(s.user);
  const colleagueSession = new Session();
  await colleagueSession.signIn(s.colleague.email, s.client.id);
  const next = device(storage, colleagueSession);
  const colleagueUser = `${s.client.id}:${s.colleague.id}`;
  await next.fetchJob(colleagueUser, s.jobId);
  next.engine.start({ id: s.colleague.id, clientId: s.client.id });
  await drain(next.engine, colleagueUser);
  next.engine.stop();
  assert.equal(next.sent, [], 'nothing sent under the colleague');
  assert.equal(await next.engine.queue.queuedItems(colleagueUser), [], 'nor shown to them');
  assert.equal((await serverJob(s)).records, []);
  const waiting = await next.engine.queue.queuedItems(s.user);
  assert.equal(
    waiting.map((i) => i.user),
    [s.user],
    'still on the tablet, bound to its user',
  );
  // the operator signs in again: now it goes, as theirs
  await s.session.signIn(s.operator.email, s.client.id);
  const back = device(storage, s.session);
  back.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(back.engine, s.user);
  back.engine.stop();
  const job = await serverJob(s);
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]),
    [['measure', 16, s.operator.id]],
  );
});

engineSuite('capture times kept from the device: a value synced half an hour later keeps when it was entered', async () => {
  const s = await setup();
  const d = device(memoryStorage(), s.session);
  await d.fetchJob(s.user, s.jobId);
  d.setOnline(false);
  const item = await record(d, s, 'measure', [{ key: 'torque', value: 17 }]);
  server.clock.advance(30 * 60_000);
  d.setOnline(true);
  d.engine.start({ id: s.operator.id, clientId: s.client.id });
  await drain(d.engine, s.user);
  d.engine.stop();
  const [stored] = (await serverJob(s)).records;
  assert.is(stored.capturedAt, item.capturedAt, 'the capture time the device gave');
  assert.ok(Date.parse(stored.receivedAt) - Date.parse(stored.capturedAt) >= 30 * 60_000 - 5_000, 'received half an hour later');
});

engineSuite.run();
