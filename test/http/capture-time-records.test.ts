import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV, SAMPLE_CONTENT } from '../helpers/domain';
import { download, unzip } from '../helpers/zip';
import { pdfText } from '../helpers/pdf';
import { fetchBundle, payloadOf, publishedKeys } from '../helpers/records';
import { verifyRecordBundle } from '#domain/record-verify';
import { signWithApplianceKey } from '#services/signing-keys';
import { canonicalJson } from '#lib/canonical-json';
import { RECORD_TYP } from '#lib/record-bundle-format';
import { withTransaction } from '#db/transaction';
import { tenantScope } from '#db/tenant';
import { appendAudit } from '#repos/audit';

// Capture time in what leaves the server (docs/records.md): the PDF, the zipped report's values, the REST deviations and
// the signed record bundle carry both times of a record; the PDF marks a record synced late and measures durations
// with capture times; bundles of records made before capture times existed still verify.

/** the sample instruction without its photo step: a job completes on values alone */
const CONTENT = {
  sections: [{ ...SAMPLE_CONTENT.sections[0], steps: SAMPLE_CONTENT.sections[0].steps.filter((step) => step.id !== 'photo') }],
};
const MINUTE = 60_000;
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

let server: TestServer;
const test = suite('capture and receipt times in the PDF, the zipped report, REST deviations and record bundles');
test.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
test.after(async () => server.stop());

const at = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
/** an ISO time as the PDF prints it */
const printed = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** A job done offline: entered 10, 25 and 40 minutes after its creation, synced two hours after it. */
async function offlineJob() {
  const client = await buildClient(server, { name: 'Acme Pumps Ltd', seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, title: 'Overhaul pump 7' });
  const created: string = (await gql(server, operator.token, 'query($id: ID!) { job(id: $id) { createdAt } }', { id: gid('Job', job.id) }))
    .data.job.createdAt;
  server.clock.advance(120 * MINUTE);
  const synced = server.clock.now().toISOString();
  const rec = (stepId: string, values: unknown[], capturedAt: string, comment?: string) =>
    gql(server, operator.token, RECORD, { i: { jobId: gid('Job', job.id), stepId, status: 'DONE', values, capturedAt, comment } });
  assert.equal((await rec('measure', [{ key: 'torque', value: 25 }], at(created, 10 * MINUTE), 'wrench slipped')).codes, []);
  assert.equal((await rec('check', [{ key: 'sealOk', value: true }], at(created, 25 * MINUTE))).codes, []);
  const done = await gql(server, operator.token, 'mutation($i: JobTransitionInput!) { completeJob(input: $i) { revision } }', {
    i: { jobId: gid('Job', job.id), capturedAt: at(created, 40 * MINUTE) },
  });
  assert.equal(done.codes, [], JSON.stringify(done.errors));
  return { client, operator, job, created, synced };
}

test('the job PDF prints capture times, marks records synced late and measures durations with capture times', async () => {
  const { operator, job, created, synced } = await offlineJob();
  const res = await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, operator.token!);
  assert.is(res.status, 200, res.text);
  const { text } = await pdfText(res.bytes);
  for (const expected of [
    `Started: ${printed(at(created, 10 * MINUTE))}`,
    `Completed: ${printed(at(created, 40 * MINUTE))}`,
    'Duration: 30 min',
    `Recorded: ${printed(at(created, 10 * MINUTE))} by`,
    `Received: entered offline, synced ${printed(synced)}`,
    'Duration: 15 min',
  ]) {
    assert.ok(text.includes(expected), `"${expected}" in ${text}`);
  }
});

test('a record synced within a minute carries no offline mark', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const recorded = await gql(server, client.owner.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: true }] },
  });
  assert.equal(recorded.codes, []);
  const { text } = await pdfText(
    (await download(`${server.url}/api/client/get-as-pdf/getJobHistoryAsPdf/${job.id}`, client.owner.token)).bytes,
  );
  assert.ok(text.includes(`Received: ${printed(server.clock.now().toISOString())}`), text);
  assert.not.ok(text.includes('entered offline'), text);
});

test('the zipped report and the REST deviations carry both times', async () => {
  const { client, job, created, synced } = await offlineJob();
  const res = await download(`${server.url}/api/client/download-zipped-job-report/${job.id}`, client.owner.token);
  assert.is(res.status, 200, res.text);
  const entries = await unzip(res.bytes);
  const csv = entries.get('values.csv')!.toString('utf8').split('\r\n');
  const header = csv[0].split(',');
  assert.equal(header.slice(-4), ['recordedAt', 'comment', 'capturedAt', 'receivedAt']);
  const measure = csv[1].split(',');
  assert.equal(measure.slice(-4), [synced, 'wrench slipped', at(created, 10 * MINUTE), synced]);
  const json = JSON.parse(entries.get('values.json')!.toString('utf8'));
  assert.equal(
    json.values.map((v: any) => [v.fieldKey, v.capturedAt, v.receivedAt]),
    [
      ['torque', at(created, 10 * MINUTE), synced],
      ['sealOk', at(created, 25 * MINUTE), synced],
    ],
  );
  const deviations = await server.request('GET', '/api/client/supervision/deviations?days=7', { token: client.owner.token });
  assert.is(deviations.status, 200, deviations.text);
  const mine = deviations.body.data.outOfLimits.filter((d: any) => d.job.id === job.id);
  assert.equal(
    mine.map((d: any) => [d.capturedAt, d.receivedAt, d.recordedAt]),
    [[at(created, 10 * MINUTE), synced, synced]],
  );
});

/** The bundle file with its payload changed and signed again with the appliance's own key. */
async function signedAgain(text: string, change: (payload: any) => void): Promise<string> {
  const bundle = JSON.parse(text);
  const payload = payloadOf(bundle);
  change(payload);
  const { jws } = await signWithApplianceKey(server.deps, canonicalJson(payload), RECORD_TYP);
  bundle.jws = { protected: jws.protected, payload: jws.payload, signature: jws.signature };
  delete bundle.timestamp;
  return JSON.stringify(bundle);
}

test('the record bundle carries both times and the revision of every step, verifies, and binds them to the chain', async () => {
  const { operator, job, created, synced } = await offlineJob();
  const res = await fetchBundle(server, operator.token!, job.id);
  assert.is(res.status, 200, res.text);
  const payload = payloadOf(JSON.parse(res.text));
  assert.is(payload.version, 2);
  assert.equal(
    payload.steps.map((s: any) => [s.stepId, s.capturedAt, s.receivedAt, s.recordedAt, s.revision]),
    [
      ['measure', at(created, 10 * MINUTE), synced, synced, 1],
      ['check', at(created, 25 * MINUTE), synced, synced, 1],
    ],
  );
  assert.is(payload.job.startedAt, at(created, 10 * MINUTE));
  assert.is(payload.job.completedAt, at(created, 40 * MINUTE));
  const keys = await publishedKeys(server);
  const verified = await verifyRecordBundle(res.text, keys);
  assert.equal(verified.problems, []);
  assert.ok(verified.ok);

  // a capture time moved — even by a holder of the appliance key — no longer matches the audit chain
  const moved = await verifyRecordBundle(await signedAgain(res.text, (p) => (p.steps[0].capturedAt = at(created, 5 * MINUTE))), keys);
  assert.not.ok(moved.ok);
  assert.ok(
    moved.problems.some((p) => p.includes('"Measure the torque" (measure)')),
    moved.problems.join('\n'),
  );
  const stripped = await verifyRecordBundle(await signedAgain(res.text, (p) => delete p.steps[1].capturedAt), keys);
  assert.not.ok(stripped.ok, 'a version 2 record without a capture time');
});

test('a record made before capture times existed: its bundle verifies, as version 2 and as the version 1 made then', async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT, 'Pump overhaul');
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  // the row and the audit entry as the server wrote them before migration 0038 (the row then backfilled by it)
  const scope = tenantScope(client.id);
  const then = server.clock.now().toISOString();
  const old = {
    stepId: 'check',
    status: 'DONE',
    values: [{ key: 'sealOk', value: 'PASS', outOfLimits: false }],
    comment: null,
    reason: null,
  };
  await withTransaction(server.deps.db, { lockClient: client.id }, async (trx) => {
    await trx
      .insertInto('step_records')
      .values({
        client_id: client.id,
        job_id: job.id,
        step_id: old.stepId,
        status: 'DONE',
        values: JSON.stringify(old.values),
        comment: null,
        reason: null,
        recorded_by: client.owner.id,
        recorded_at: then,
        captured_at: then,
        revision: 1,
      })
      .execute();
    await appendAudit(trx, scope, {
      actor: { userId: client.owner.id, email: client.owner.email },
      action: 'job.step_recorded',
      entityType: 'job',
      entityId: job.id,
      before: { state: 'OPEN', revision: 1, record: null },
      after: { state: 'OPEN', revision: 1, record: { ...old, recordedById: client.owner.id, recordedAt: then } },
      at: then,
    });
  });
  const cancelled = await gql(server, client.owner.token, 'mutation($i: CancelJobInput!) { cancelJob(input: $i) { revision } }', {
    i: { jobId: gid('Job', job.id), reason: 'pump replaced' },
  });
  assert.equal(cancelled.codes, [], JSON.stringify(cancelled.errors));
  const keys = await publishedKeys(server);
  const res = await fetchBundle(server, client.owner.token, job.id);
  assert.is(res.status, 200, res.text);
  const payload = payloadOf(JSON.parse(res.text));
  assert.equal(
    payload.steps.map((s: any) => [s.capturedAt, s.receivedAt, s.revision]),
    [[then, then, 1]],
  );
  assert.equal((await verifyRecordBundle(res.text, keys)).problems, []);
  const versionOne = await signedAgain(res.text, (p) => {
    p.version = 1;
    for (const step of p.steps) for (const key of ['capturedAt', 'receivedAt', 'revision']) delete step[key];
    for (const fault of p.faults) delete fault.capturedAt;
  });
  const v1 = await verifyRecordBundle(versionOne, keys);
  assert.equal(v1.problems, []);
  assert.ok(v1.ok);
  // a capture time the chain never recorded, claimed for that old record
  const claimed = await verifyRecordBundle(await signedAgain(res.text, (p) => (p.steps[0].capturedAt = at(then, -30 * MINUTE))), keys);
  assert.ok(
    claimed.problems.some((p) => p.includes('a capture time the audit chain never recorded')),
    claimed.problems.join('\n'),
  );
});

test.run();
