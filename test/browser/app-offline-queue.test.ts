import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, waitInPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';
import { gql } from '../helpers/graphql';
import { harnessPage } from '../helpers/offline-harness';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { tenantScope } from '#db/tenant';

/**
 * The operator's offline queue and sync engine (src/app/offline), the app's own code run in Chromium on the
 * app's origin (test/helpers/offline-harness.ts), against a real server: exactly-once through lost answers,
 * revisions, conflicts, and a queue bound to its user. The screens on top are test/browser/app-journey.test.ts
 * and app-conflict.test.ts.
 */
let server: TestServer;
let browser: Browser;
const queue = suite('offline queue and sync (src/app/offline) in Chromium');
queue.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
  browser = await launchChromium();
});
queue.after(async () => {
  await browser?.close();
  await server?.stop();
});

const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';
const JOB = 'query($id: ID!) { job(id: $id) { state revision records { stepId status values { key value } recordedBy { databaseId } } } }';

interface Setup {
  client: BuiltClient;
  operator: Awaited<ReturnType<typeof buildUser>>;
  colleague: Awaited<ReturnType<typeof buildUser>>;
  jobId: string;
  jobDatabaseId: number;
  user: string;
  context: BrowserContext;
  page: Page;
}

async function setup(): Promise<Setup> {
  const client = await buildClient(server);
  const template = await publishedTemplate(server, client);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const colleague = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const context = await browser.newContext();
  const page = await harnessPage(context, server.url, operator, client.id);
  const user = `${client.id}:${operator.id}`;
  const jobId = `Job:${job.id}`;
  await page.evaluate(`wipOffline.fetchAndStoreJob(${JSON.stringify(user)}, ${JSON.stringify(jobId)})`);
  return { client, operator, colleague, jobId, jobDatabaseId: job.id, user, context, page };
}

const js = JSON.stringify;
const record = (s: Setup, stepId: string, values: unknown[]) =>
  s.page.evaluate(
    `wipOffline.localJobView(${js(s.user)}, ${js(s.jobId)}).then((v) => wipOffline.enqueueRecord(${js(s.user)}, v.job, { stepId: ${js(stepId)}, status: 'DONE', values: ${js(values)} }))`,
  );
const start = (s: Setup) => s.page.evaluate(`wipOffline.startSync({ id: ${s.operator.id}, clientId: ${s.client.id} })`);
const drained = (s: Setup) => s.page.evaluate(`wipOffline.drained(${js(s.user)}, 30000)`);
const items = (s: Setup) => s.page.evaluate<any[]>(`wipOffline.queuedItems(${js(s.user)})`);
const serverJob = async (s: Setup) => (await gql(server, s.client.owner.token, JOB, { id: s.jobId })).data.job;

queue('an answer lost on the way back: the resend carries the same key and body, the server replays, one record', async () => {
  const s = await setup();
  const sent: { key: string; body: string }[] = [];
  let lose = true;
  await s.page.route('**/api/client/graphql', async (route) => {
    const request = route.request();
    const body = request.postData() ?? '';
    if (!body.includes('recordStep')) return route.continue();
    sent.push({ key: (await request.allHeaders())['idempotency-key'], body });
    if (lose) {
      lose = false;
      // the server receives and applies it; the browser never hears back
      await route.fetch();
      return route.abort('connectionreset');
    }
    return route.continue();
  });
  const replayed: string[] = [];
  s.page.on('response', (response) => {
    if (response.url().endsWith('/api/client/graphql') && response.request().postData()?.includes('recordStep'))
      replayed.push(response.headers()['idempotency-replayed'] ?? 'no');
  });
  await record(s, 'measure', [{ key: 'torque', value: 15 }]);
  await start(s);
  await drained(s);
  assert.is(sent.length, 2, 'sent, then resent once');
  assert.is(sent[1].key, sent[0].key);
  assert.is(sent[1].body, sent[0].body);
  assert.equal(replayed, ['true'], 'the resend was answered from the first answer');
  const job = await serverJob(s);
  assert.is(job.revision, 2, 'one write (a new job is at revision 1)');
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value]),
    [['measure', 15]],
  );
  const entries = await listAuditEntries(
    server.deps.db.kysely,
    tenantScope(s.client.id),
    { entityType: 'job', entityId: String(s.jobDatabaseId) },
    { limit: 50 },
  );
  assert.equal(
    entries.items.map((e) => e.action),
    ['job.created', 'job.step_recorded'],
  );
  assert.is((await verifyAuditChain(server.deps.db.kysely, s.client.id)).broken, null);
  assert.equal(await items(s), []);
  await s.context.close();
});

queue('offline: items wait in order; online they go in order, each expecting the revision the one before made', async () => {
  const s = await setup();
  await s.context.setOffline(true);
  await record(s, 'measure', [{ key: 'torque', value: 14 }]);
  await record(s, 'check', [{ key: 'sealOk', value: 'PASS' }]);
  await s.page.evaluate(`wipOffline.enqueueTransition(${js(s.user)}, ${js(s.jobId)}, 'pause')`);
  const sentBefore = await s.page.evaluate<number>('wipOffline.requestsSent()');
  // the engine started, and a whole round of it (syncNow resolves when the round is over) found the device offline
  await s.page.evaluate(`(wipOffline.startSync({ id: ${s.operator.id}, clientId: ${s.client.id} }), wipOffline.syncNow())`);
  assert.is(await s.page.evaluate<number>('wipOffline.requestsSent()'), sentBefore, 'the round sent nothing');
  const waiting = await items(s);
  assert.equal(
    waiting.map((i) => [i.kind, i.expectedRevision]),
    [
      ['record', 1],
      ['record', 2],
      ['transition', 3],
    ],
  );
  assert.is(new Set(waiting.map((i) => i.idempotencyKey)).size, 3);
  assert.is((await serverJob(s)).revision, 1, 'nothing sent while offline');
  await s.context.setOffline(false);
  await drained(s);
  const job = await serverJob(s);
  assert.is(job.revision, 4);
  assert.is(job.state, 'PAUSED');
  assert.equal(job.records.map((r: any) => r.stepId).sort(), ['check', 'measure']);
  await s.context.close();
});

queue('someone else wrote another step meanwhile: the stale revision is no conflict, the queue moves on', async () => {
  const s = await setup();
  await s.context.setOffline(true);
  await record(s, 'check', [{ key: 'sealOk', value: 'FAIL' }]);
  const other = await gql(server, s.colleague.token, RECORD, {
    i: { jobId: s.jobId, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 11 }], expectedRevision: 1 },
  });
  assert.equal(other.codes, []);
  await start(s);
  await s.context.setOffline(false);
  await drained(s);
  assert.equal(await items(s), [], 'no conflict left for the operator');
  const job = await serverJob(s);
  assert.is(job.revision, 3);
  assert.equal(job.records.map((r: any) => [r.stepId, r.recordedBy.databaseId]).sort(), [
    ['check', s.operator.id],
    ['measure', s.colleague.id],
  ]);
  await s.context.close();
});

queue('someone else recorded the same step: a conflict with both values; later items of the job wait; keep mine records mine', async () => {
  const s = await setup();
  await s.context.setOffline(true);
  await record(s, 'measure', [{ key: 'torque', value: 18 }]);
  await record(s, 'check', [{ key: 'sealOk', value: 'PASS' }]);
  assert.equal(
    (
      await gql(server, s.colleague.token, RECORD, {
        i: { jobId: s.jobId, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
      })
    ).codes,
    [],
  );
  await start(s);
  await s.context.setOffline(false);
  await drained(s);
  const held = await items(s);
  assert.is(held.length, 2, 'nothing dropped');
  assert.is(held[0].state, 'conflict');
  assert.equal(held[0].values, [{ key: 'torque', value: 18 }]);
  assert.equal(
    held[0].conflict.theirs.values.map((v: any) => [v.key, v.value]),
    [['torque', 12]],
  );
  assert.is(held[1].state, 'pending', 'the later item waits behind the conflict');
  let job = await serverJob(s);
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value]),
    [['measure', 12]],
    'neither sent while the conflict is open',
  );
  await s.page.evaluate(`wipOffline.resolveItem(${js(s.user)}, ${js(held[0].id)}, 'mine')`);
  await drained(s);
  job = await serverJob(s);
  assert.equal(job.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]).sort(), [
    ['check', 'PASS', s.operator.id],
    ['measure', 18, s.operator.id],
  ]);
  const entries = await listAuditEntries(
    server.deps.db.kysely,
    tenantScope(s.client.id),
    { entityType: 'job', entityId: String(s.jobDatabaseId) },
    { limit: 50 },
  );
  assert.is(entries.items.filter((e) => e.action === 'job.step_recorded').length, 3, "theirs stays in the job's history");
  await s.context.close();
});

queue('the queue belongs to its user: another user signed in sends nothing; its user signs in again and it goes', async () => {
  const s = await setup();
  await s.context.setOffline(true);
  await record(s, 'measure', [{ key: 'torque', value: 16 }]);
  await s.context.setOffline(false);
  // the operator's session ends and a colleague signs in on the same browser
  await s.context.clearCookies();
  const other = await s.page.request.post(`${server.url}/api/client/auth/sign-in`, {
    data: { email: s.colleague.email, password: s.colleague.password, clientId: s.client.id },
  });
  assert.ok(other.ok());
  await start(s);
  await waitInPage(s.page, 'wipOffline.getSyncState().signInNeeded === true');
  assert.is((await serverJob(s)).revision, 1, "nothing sent on the colleague's session");
  assert.is((await items(s)).length, 1, 'the queue is still there');
  await s.context.clearCookies();
  const again = await s.page.request.post(`${server.url}/api/client/auth/sign-in`, {
    data: { email: s.operator.email, password: s.operator.password, clientId: s.client.id },
  });
  assert.ok(again.ok());
  await start(s);
  await drained(s);
  const job = await serverJob(s);
  assert.equal(
    job.records.map((r: any) => [r.stepId, r.values[0].value, r.recordedBy.databaseId]),
    [['measure', 16, s.operator.id]],
  );
  await s.context.close();
});

queue.run();
