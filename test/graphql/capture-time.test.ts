import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createAsset, createJob, publishedTemplate, DOMAIN_TEST_ENV, SAMPLE_CONTENT } from '../helpers/domain';

// Capture time at the GraphQL edge (docs/records.md): capture and receipt times, the bounds on a device's capture time,
// no silent overwrite of a step's record (expectedStepRevision), and the completion blockers.

/** the sample instruction without its photo step: a job completes on values alone */
const CONTENT = {
  sections: [{ ...SAMPLE_CONTENT.sections[0], steps: SAMPLE_CONTENT.sections[0].steps.filter((step) => step.id !== 'photo') }],
};

let server: TestServer;
const test = suite('GraphQL capture time, step revisions and completion blockers');
test.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
test.after(async () => server.stop());

const RECORD_FIELDS = 'stepId status revision capturedAt receivedAt recordedAt values { key value }';
const RECORD = `mutation($i: RecordStepInput!) { recordStep(input: $i) { revision record { ${RECORD_FIELDS} } job { startedAt } } }`;
const TRANSITION = (name: string) =>
  `mutation($i: JobTransitionInput!) { ${name}(input: $i) { job { state startedAt completedAt revision } } }`;
const BLOCKERS = 'query($id: ID!) { job(id: $id) { completionBlockers { code stepId message } } }';

async function setup(): Promise<{ client: BuiltClient; operator: { id: number; token: string }; job: { id: number; createdAt: string } }> {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client, CONTENT);
  const op = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const read = await gql(server, client.owner.token, 'query($id: ID!) { job(id: $id) { createdAt } }', { id: gid('Job', job.id) });
  return { client, operator: { id: op.id, token: op.token! }, job: { id: job.id, createdAt: read.data.job.createdAt } };
}

const measure = (jobId: number, more: Record<string, unknown> = {}) => ({
  i: { jobId: gid('Job', jobId), stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 15 }], ...more },
});
const minutesFrom = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
/** the server's clock (a manual one: tests move it) */
const now = () => server.clock.now().toISOString();

test('a record carries the capture time sent, the receipt time, and starts the job at its capture time', async () => {
  const { operator, job } = await setup();
  // entered offline 10 minutes after the job was created, synced 20 minutes later
  const capturedAt = minutesFrom(job.createdAt, 10);
  server.clock.advance(30 * 60_000);
  const result = await gql(server, operator.token, RECORD, measure(job.id, { capturedAt }));
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  const { record } = result.data.recordStep;
  assert.is(record.capturedAt, capturedAt);
  assert.is(record.receivedAt, now(), 'received now');
  assert.is(record.recordedAt, record.receivedAt, 'the deprecated recordedAt keeps meaning the receipt time');
  assert.is(record.revision, 1);
  assert.is(result.data.recordStep.job.startedAt, capturedAt, 'the job started when its first step was captured');
});

test('hostile capture times and revisions are clear refusals that change nothing', async () => {
  const { client, operator, job } = await setup();
  for (const [more, code] of [
    [{ capturedAt: 'yesterday' }, 'BAD_REQUEST'],
    [{ capturedAt: 12 }, 'BAD_REQUEST'],
    [{ capturedAt: '9999-12-31T23:59:59Z' }, 'VALIDATION_ERROR'],
    [{ capturedAt: '1970-01-01T00:00:00Z' }, 'VALIDATION_ERROR'],
    [{ capturedAt: '+275760-09-13T00:00:00.000Z' }, 'VALIDATION_ERROR'],
    [{ expectedStepRevision: -1 }, 'VALIDATION_ERROR'],
    [{ expectedStepRevision: 2 ** 31 }, 'BAD_REQUEST'],
  ] as const) {
    const result = await gql(server, operator.token, RECORD, measure(job.id, more));
    assert.is(result.status < 500, true, JSON.stringify(more));
    assert.equal(result.codes, [code], `${JSON.stringify(more)}: ${JSON.stringify(result.errors)}`);
  }
  const read = await gql(server, client.owner.token, 'query($id: ID!) { job(id: $id) { revision records { stepId } } }', {
    id: gid('Job', job.id),
  });
  assert.equal(read.data.job, { revision: 1, records: [] });
});

test('expectedStepRevision: a record changed since the device read it is refused with the record now on the server', async () => {
  const { client, operator, job } = await setup();
  const first = await gql(server, operator.token, RECORD, measure(job.id, { expectedStepRevision: 0 }));
  assert.equal(first.codes, [], JSON.stringify(first.errors));
  assert.is(first.data.recordStep.record.revision, 1);
  // the same user on another device that saw no record
  const stale = await gql(
    server,
    operator.token,
    RECORD,
    measure(job.id, { expectedStepRevision: null, values: [{ key: 'torque', value: 11 }] }),
  );
  assert.equal(stale.codes, ['CONFLICT']);
  const details = stale.errors![0].extensions!.details;
  assert.is(details.stepId, 'measure');
  assert.is(details.record.revision, 1);
  assert.equal(details.record.values, [{ key: 'torque', value: 15, outOfLimits: false }]);
  assert.is(details.record.capturedAt, first.data.recordStep.record.capturedAt);
  // naming the revision it saw, the device records again; the old revision is now stale for anyone
  const again = await gql(
    server,
    client.owner.token,
    RECORD,
    measure(job.id, { expectedStepRevision: 1, values: [{ key: 'torque', value: 12 }] }),
  );
  assert.equal(again.codes, [], JSON.stringify(again.errors));
  assert.is(again.data.recordStep.record.revision, 2);
  const late = await gql(server, operator.token, RECORD, measure(job.id, { expectedStepRevision: 1 }));
  assert.equal(late.codes, ['CONFLICT']);
  assert.equal(late.errors![0].extensions!.details.record.values, [{ key: 'torque', value: 12, outOfLimits: false }]);
  // a device that names a record that is not there (it saw revision 1 of a step nobody recorded)
  const phantom = await gql(server, operator.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: 'PASS' }], expectedStepRevision: 1 },
  });
  assert.equal(phantom.codes, ['CONFLICT']);
  assert.equal(phantom.errors![0].extensions!.details, { stepId: 'check', record: null });
});

test('two devices that saw no record race for the step: exactly one records, the other gets its CONFLICT', async () => {
  const { client, operator, job } = await setup();
  const results = await Promise.all(
    [operator.token, client.owner.token, operator.token, client.owner.token].map((token, i) =>
      gql(server, token, RECORD, measure(job.id, { expectedStepRevision: 0, values: [{ key: 'torque', value: 11 + i }] })),
    ),
  );
  const codes = results.map((r) => r.codes.join() || 'ok').sort();
  assert.equal(codes, ['CONFLICT', 'CONFLICT', 'CONFLICT', 'ok']);
  const winner = results.find((r) => r.codes.length === 0)!.data.recordStep.record;
  for (const lost of results.filter((r) => r.codes.length > 0))
    assert.equal(lost.errors![0].extensions!.details.record.values, [{ key: 'torque', value: winner.values[0].value, outOfLimits: false }]);
  assert.is(winner.revision, 1);
});

test('start and completion recorded offline take their capture times; reports measure with them', async () => {
  const { operator, job } = await setup();
  // the whole job done offline: started a minute after it was created, synced an hour later
  const startedAt = minutesFrom(job.createdAt, 1);
  server.clock.advance(60 * 60_000);
  const start = await gql(server, operator.token, TRANSITION('startJob'), { i: { jobId: gid('Job', job.id), capturedAt: startedAt } });
  assert.equal(start.codes, [], JSON.stringify(start.errors));
  assert.is(start.data.startJob.job.startedAt, startedAt);
  for (const [stepId, values] of [
    ['measure', [{ key: 'torque', value: 15 }]],
    ['check', [{ key: 'sealOk', value: 'PASS' }]],
  ] as const) {
    const recorded = await gql(server, operator.token, RECORD, { i: { jobId: gid('Job', job.id), stepId, status: 'DONE', values } });
    assert.equal(recorded.codes, []);
  }
  const future = await gql(server, operator.token, TRANSITION('completeJob'), {
    i: { jobId: gid('Job', job.id), capturedAt: minutesFrom(now(), 10) },
  });
  assert.equal(future.codes, ['VALIDATION_ERROR']);
  const completedAt = minutesFrom(job.createdAt, 41);
  const done = await gql(server, operator.token, TRANSITION('completeJob'), { i: { jobId: gid('Job', job.id), capturedAt: completedAt } });
  assert.equal(done.codes, [], JSON.stringify(done.errors));
  assert.equal(done.data.completeJob.job.completedAt, completedAt);
});

test('completionBlockers lists what completeJob refuses, and is empty exactly when it succeeds', async () => {
  const { operator, job } = await setup();
  const blockers = async () => (await gql(server, operator.token, BLOCKERS, { id: gid('Job', job.id) })).data.job.completionBlockers;
  const complete = () => gql(server, operator.token, TRANSITION('completeJob'), { i: { jobId: gid('Job', job.id) } });
  // an OPEN job cannot complete, and nothing is recorded
  assert.equal(
    (await blockers()).map((b: { code: string; stepId: string | null }) => [b.code, b.stepId]),
    [
      ['INVALID_TRANSITION', null],
      ['REQUIRED_FIELDS_MISSING', 'measure'],
      ['REQUIRED_FIELDS_MISSING', 'check'],
    ],
  );
  assert.equal((await complete()).codes, ['INVALID_TRANSITION']);
  // out of limits and uncommented; the seal not recorded yet
  await gql(server, operator.token, RECORD, measure(job.id, { values: [{ key: 'torque', value: 99 }] }));
  assert.equal(
    (await blockers()).map((b: { code: string; stepId: string | null }) => [b.code, b.stepId]),
    [
      ['REQUIRED_FIELDS_MISSING', 'check'],
      ['COMMENT_REQUIRED', 'measure'],
    ],
  );
  assert.equal((await complete()).codes, ['REQUIRED_FIELDS_MISSING']);
  await gql(server, operator.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'check', status: 'DONE', values: [{ key: 'sealOk', value: 'PASS' }] },
  });
  assert.equal(
    (await blockers()).map((b: { code: string }) => b.code),
    ['COMMENT_REQUIRED'],
  );
  assert.equal((await complete()).codes, ['COMMENT_REQUIRED']);
  await gql(server, operator.token, RECORD, measure(job.id, { values: [{ key: 'torque', value: 99 }], comment: 'gauge replaced' }));
  assert.equal(await blockers(), []);
  assert.equal((await complete()).codes, []);
});

test('a fault raised offline carries its capture time, within the same bounds', async () => {
  const { client, operator, job } = await setup();
  const RAISE = 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { capturedAt raisedAt } } }';
  const capturedAt = minutesFrom(now(), -0.5);
  const raised = await gql(server, operator.token, RAISE, {
    i: { jobId: gid('Job', job.id), description: 'Leak', severity: 'HIGH', capturedAt },
  });
  assert.equal(raised.codes, [], JSON.stringify(raised.errors));
  assert.is(raised.data.raiseFault.fault.capturedAt, capturedAt);
  assert.ok(Date.parse(raised.data.raiseFault.fault.raisedAt) > Date.parse(capturedAt));
  const early = await gql(server, operator.token, RAISE, {
    i: { jobId: gid('Job', job.id), description: 'Leak', severity: 'HIGH', capturedAt: minutesFrom(job.createdAt, -10) },
  });
  assert.equal(early.codes, ['VALIDATION_ERROR']);
  const assetId = await createAsset(server, client.owner.token);
  const onAsset = await gql(server, operator.token, RAISE, {
    i: { assetId: gid('Asset', assetId), description: 'Rust', severity: 'LOW', capturedAt: minutesFrom(now(), 5) },
  });
  assert.equal(onAsset.codes, ['VALIDATION_ERROR']);
});

test.run();
