import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { PNG, upload } from '../helpers/upload';
import {
  contentInput,
  createAsset,
  createJob,
  JOB_FIELDS,
  publishedTemplate,
  publishNewVersion,
  SAMPLE_CONTENT,
  DOMAIN_TEST_ENV,
} from '../helpers/domain';
import { verifyAuditChain, listAuditEntries } from '#repos/audit';
import { tenantScope } from '#db/tenant';

let server: TestServer;
const jobs = suite('GraphQL jobs: creation, recording, completion, concurrency, faults');
jobs.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
jobs.after(async () => server.stop());

const RECORD = `mutation($i: RecordStepInput!) { recordStep(input: $i) { revision record { stepId status } job { id: databaseId state revision records { stepId status values { key value outOfLimits } recordedBy { id: databaseId } recordedAt } } }}`;

async function setup(): Promise<{
  client: BuiltClient;
  template: Awaited<ReturnType<typeof publishedTemplate>>;
  operator: { id: number; token: string };
}> {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client);
  const op = await buildUser(server, client, { roles: ['operator'] });
  return { client, template, operator: { id: op.id, token: op.token! } };
}

jobs('createJob pins the published version, defaults to MEDIUM priority and takes no assignees', async () => {
  const { client, template } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  assert.is(job.state, 'OPEN');
  assert.is(job.priority, 'MEDIUM');
  assert.is(job.revision, 1);
  assert.is(job.version.id, template.versionId);
  assert.is(job.template.id, template.templateId);
  assert.equal(job.assignees, []);
});

jobs('createJob takes an asset, a priority, assignees, step owners and a due date', async () => {
  const { client, template, operator } = await setup();
  const assetId = await createAsset(server, client.owner.token);
  const result = await gql(
    server,
    client.owner.token,
    `mutation($i: CreateJobInput!) { createJob(input: $i) { job { id: databaseId priority dueAt asset { id: databaseId } assignees { id: databaseId } stepOwners { stepId user { id: databaseId } } } }}`,
    {
      i: {
        templateId: gid('Template', template.templateId),
        title: 'Team job',
        assetId: gid('Asset', assetId),
        priority: 'HIGH',
        assigneeIds: [gid('User', operator.id)],
        stepOwners: [{ stepId: 'photo', userId: gid('User', client.owner.id) }],
        dueAt: '2030-01-02T03:04:05Z',
      },
    },
  );
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  const job = result.data.createJob.job;
  assert.is(job.priority, 'HIGH');
  assert.is(job.dueAt, '2030-01-02T03:04:05.000Z');
  assert.is(job.asset.id, assetId);
  assert.equal(job.assignees, [{ id: operator.id }]);
  assert.equal(job.stepOwners, [{ stepId: 'photo', user: { id: client.owner.id } }]);
});

jobs('createJob from a template without a published version → NO_PUBLISHED_VERSION', async () => {
  const client = await buildClient(server);
  const created = await gql(
    server,
    client.owner.token,
    'mutation($i: CreateTemplateInput!) { createTemplate(input: $i) { template { id: databaseId } }}',
    {
      i: { title: 'Draft only', content: contentInput(SAMPLE_CONTENT) },
    },
  );
  assert.equal(created.codes, []);
  const result = await gql(server, client.owner.token, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id: databaseId } }}', {
    i: { templateId: gid('Template', created.data.createTemplate.template.id), title: 'x' },
  });
  assert.equal(result.codes, ['NO_PUBLISHED_VERSION']);
});

jobs('a job stays on its version across a later publish; new jobs take the new one', async () => {
  const { client, template } = await setup();
  const old = await createJob(server, client.owner.token, { templateId: template.templateId });
  const newVersionId = await publishNewVersion(server, client, template);
  assert.is.not(newVersionId, template.versionId);
  const reread = await gql(server, client.owner.token, `query($id: ID!) { job(id: $id) { ${JOB_FIELDS} } }`, { id: gid('Job', old.id) });
  assert.is(reread.data.job.version.id, template.versionId);
  assert.is(reread.data.job.version.number, 1);
  const fresh = await createJob(server, client.owner.token, { templateId: template.templateId });
  assert.is(fresh.version.id, newVersionId);
  assert.is(fresh.version.number, 2);
});

jobs('recording starts an OPEN job, normalizes values and flags a number outside min/max', async () => {
  const { client, template, operator } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const result = await gql(server, operator.token, RECORD, {
    i: {
      jobId: gid('Job', job.id),
      stepId: 'measure',
      status: 'DONE',
      values: [
        { key: 'torque', value: 25 },
        { key: 'note', value: 'tight' },
      ],
      comment: 'ok',
    },
  });
  assert.equal(result.codes, [], JSON.stringify(result.errors));
  const recorded = result.data.recordStep.job;
  assert.is(recorded.state, 'IN_PROGRESS');
  assert.is(recorded.revision, 2);
  const [record] = recorded.records;
  assert.is(record.stepId, 'measure');
  assert.is(record.recordedBy.id, operator.id);
  assert.equal(record.values, [
    { key: 'torque', value: 25, outOfLimits: true },
    { key: 'note', value: 'tight', outOfLimits: false },
  ]);

  const inside = await gql(server, operator.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 15 }] },
  });
  assert.equal(inside.data.recordStep.job.records[0].values, [{ key: 'torque', value: 15, outOfLimits: false }]);

  const passFail = await gql(server, operator.token, RECORD, {
    i: {
      jobId: gid('Job', job.id),
      stepId: 'check',
      status: 'DONE',
      values: [
        { key: 'sealOk', value: true },
        { key: 'colour', value: 'green' },
      ],
    },
  });
  const check = passFail.data.recordStep.job.records.find((r: { stepId: string }) => r.stepId === 'check');
  assert.equal(
    check.values.map((v: { value: unknown }) => v.value),
    ['PASS', 'green'],
  );
});

jobs("a SENSOR field takes its sensor's latest reading at recording time unless a value is sent", async () => {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const sensor = await gql(
    server,
    client.owner.token,
    'mutation { createSensor(input: {name: "Line pressure", unit: "bar", kind: "pressure"}) { sensor { id: databaseId } }}',
  );
  assert.equal(sensor.codes, [], JSON.stringify(sensor.errors));
  const sensorId = sensor.data.createSensor.sensor.id;
  const content = {
    sections: [
      {
        title: 'Run',
        steps: [
          { id: 'run', title: 'Run the pump', fields: [{ key: 'pressure', type: 'SENSOR', sensorId, min: 0, max: 10, required: true }] },
        ],
      },
    ],
  };
  const { templateId } = await publishedTemplate(server, client, content);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId });
  const read = (values?: unknown) =>
    gql(server, operator.token, RECORD, {
      i: { jobId: gid('Job', job.id), stepId: 'run', status: 'DONE', ...(values !== undefined && { values }) },
    });

  // no reading yet: the field stays empty
  assert.equal((await read()).data.recordStep.job.records[0].values, []);
  const sent = await server.request('POST', '/api/client/update-sensors', {
    token: client.owner.token,
    body: {
      readings: [
        { sensorId, readingId: 'r-2', value: 12.5, timestamp: '2030-01-01T10:05:00Z' },
        { sensorId, readingId: 'r-1', value: 4, timestamp: '2030-01-01T10:00:00Z' },
      ],
    },
  });
  assert.is(sent.status, 200, sent.text);
  assert.equal((await read()).data.recordStep.job.records[0].values, [{ key: 'pressure', value: 12.5, outOfLimits: true }]);
  assert.equal((await read([{ key: 'pressure', value: 3 }])).data.recordStep.job.records[0].values, [
    { key: 'pressure', value: 3, outOfLimits: false },
  ]);
  assert.equal((await read([{ key: 'pressure', value: 'high' }])).codes, ['VALIDATION_ERROR']);
});

jobs('a stale expectedRevision → CONFLICT with the current job; nothing is overwritten', async () => {
  const { client, template, operator } = await setup();
  const other = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
  // the second operator co-works on the assigned job
  const joined = await server.request('POST', '/api/client/workingTogether', {
    token: other.token,
    body: { action: 'JOIN', jobId: job.id },
  });
  assert.is(joined.status, 200, joined.text);
  const seen = joined.body.data.job.revision;

  const first = await gql(server, operator.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }], expectedRevision: seen },
  });
  assert.equal(first.codes, []);
  // the payload: the new revision (what the next write sends) and the record written
  assert.is(first.data.recordStep.revision, seen + 1);
  assert.equal(first.data.recordStep.record, { stepId: 'measure', status: 'DONE' });
  const second = await gql(server, other.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 99 }], expectedRevision: seen },
  });
  assert.equal(second.codes, ['CONFLICT']);
  const current = second.errors![0].extensions!.details.job;
  assert.is(current.id, job.id);
  assert.is(current.revision, seen + 1);
  assert.is(current.state, 'IN_PROGRESS');
  const reread = await gql(
    server,
    operator.token,
    'query($id: ID!) { job(id: $id) { revision records { values { value } recordedBy { id: databaseId } } } }',
    { id: gid('Job', job.id) },
  );
  assert.is(reread.data.job.revision, seen + 1);
  assert.equal(reread.data.job.records, [{ values: [{ value: 12 }], recordedBy: { id: operator.id } }]);
  // the transitions take expectedRevision too
  const stalePause = await gql(
    server,
    operator.token,
    'mutation($j: ID!, $r: Int) { pauseJob(input: { jobId: $j, expectedRevision: $r }) { job { id: databaseId } }}',
    { j: gid('Job', job.id), r: seen },
  );
  assert.equal(stalePause.codes, ['CONFLICT']);
});

jobs('an assigned job is worked by its assignees and co-workers; other operators are refused', async () => {
  const { client, template, operator } = await setup();
  const outsider = await buildUser(server, client, { roles: ['operator'] });
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assigneeIds: [operator.id] });
  const refused = await gql(server, outsider.token, 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { id: databaseId } }}', {
    j: gid('Job', job.id),
  });
  assert.equal(refused.codes, ['FORBIDDEN']);
  const started = await gql(server, operator.token, 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { state } }}', {
    j: gid('Job', job.id),
  });
  assert.is(started.data.startJob.job.state, 'IN_PROGRESS');
});

jobs('cancelJob needs a reason and records it; a cancelled job takes no recording', async () => {
  const { client, template, operator } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  const blank = await gql(
    server,
    operator.token,
    'mutation($j: ID!) { cancelJob(input: { jobId: $j, reason: "  " }) { job { id: databaseId } }}',
    { j: gid('Job', job.id) },
  );
  assert.equal(blank.codes, ['VALIDATION_ERROR']);
  const cancelled = await gql(
    server,
    operator.token,
    'mutation($j: ID!) { cancelJob(input: { jobId: $j, reason: "wrong pump" }) { job { state cancelReason } }}',
    { j: gid('Job', job.id) },
  );
  assert.equal(cancelled.data.cancelJob.job, { state: 'CANCELLED', cancelReason: 'wrong pump' });
  const late = await gql(server, operator.token, RECORD, { i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE' } });
  assert.equal(late.codes, ['JOB_CLOSED']);
});

jobs('faults: raised from a step with severity and photos, listed per job and per asset, closed with a note', async () => {
  const { client, template, operator } = await setup();
  const assetId = await createAsset(server, client.owner.token);
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assetId });
  const photos = (
    await upload(server, operator.token, [
      { name: 'seal-1.png', data: PNG },
      { name: 'seal-2.png', data: Buffer.concat([PNG, Buffer.from('2')]) },
    ])
  ).body.data.files.map((f: { id: number }) => f.id);
  const raised = await gql(
    server,
    operator.token,
    'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId state severity photos stepId job { id: databaseId } asset { id: databaseId } raisedBy { id: databaseId } } }}',
    { i: { jobId: gid('Job', job.id), stepId: 'check', description: 'Seal cracked', severity: 'HIGH', photos } },
  );
  assert.equal(raised.codes, [], JSON.stringify(raised.errors));
  const fault = raised.data.raiseFault.fault;
  assert.equal(fault, {
    id: fault.id,
    state: 'OPEN',
    severity: 'HIGH',
    photos,
    stepId: 'check',
    job: { id: job.id },
    asset: { id: assetId },
    raisedBy: { id: operator.id },
  });
  const direct = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}', {
    i: { assetId: gid('Asset', assetId), description: 'Leak at flange', severity: 'CRITICAL' },
  });
  assert.equal(direct.codes, []);

  const perJob = await gql(server, operator.token, 'query($j: ID) { faults(jobId: $j) { nodes { id: databaseId } } }', {
    j: gid('Job', job.id),
  });
  assert.equal(perJob.data.faults.nodes, [{ id: fault.id }]);
  const perAsset = await gql(server, operator.token, 'query($a: ID) { faults(assetId: $a) { nodes { id: databaseId } } }', {
    a: gid('Asset', assetId),
  });
  assert.equal(perAsset.data.faults.nodes.map((f: { id: number }) => f.id).sort(), [fault.id, direct.data.raiseFault.fault.id].sort());
  const onJob = await gql(server, operator.token, 'query($id: ID!) { job(id: $id) { faults { nodes { id: databaseId } totalCount } } }', {
    id: gid('Job', job.id),
  });
  assert.equal(onJob.data.job.faults, { nodes: [{ id: fault.id }], totalCount: 1 });

  const close =
    'mutation($f: ID!, $n: String!) { closeFault(input: { faultId: $f, note: $n }) { fault { state closeNote closedBy { id: databaseId } closedAt } }}';
  const closed = await gql(server, operator.token, close, { f: gid('Fault', fault.id), n: 'seal replaced' });
  assert.equal(closed.codes, []);
  assert.is(closed.data.closeFault.fault.state, 'CLOSED');
  assert.is(closed.data.closeFault.fault.closeNote, 'seal replaced');
  assert.is(closed.data.closeFault.fault.closedBy.id, operator.id);
  assert.equal((await gql(server, operator.token, close, { f: gid('Fault', fault.id), n: 'again' })).codes, ['INVALID_TRANSITION']);

  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  const viewerRaise = await gql(
    server,
    viewer.token,
    'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}',
    { i: { assetId: gid('Asset', assetId), description: 'x', severity: 'LOW' } },
  );
  assert.equal(viewerRaise.codes, ['FORBIDDEN']);
  const noSource = await gql(
    server,
    operator.token,
    'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}',
    { i: { description: 'x', severity: 'LOW' } },
  );
  assert.equal(noSource.codes, ['VALIDATION_ERROR']);
});

jobs('the jobs connection pages and filters', async () => {
  const { client, template, operator } = await setup();
  const a = await createJob(server, client.owner.token, { templateId: template.templateId, priority: 'HIGH', assigneeIds: [operator.id] });
  const b = await createJob(server, client.owner.token, { templateId: template.templateId, priority: 'LOW' });
  const c = await createJob(server, client.owner.token, { templateId: template.templateId, priority: 'LOW' });
  const q =
    'query($f: Int, $a: String, $filter: JobFilter) { jobs(first: $f, after: $a, filter: $filter) { edges { node { id: databaseId } cursor } pageInfo { hasNextPage endCursor } } }';
  const page1 = await gql(server, operator.token, q, { f: 2 });
  assert.equal(
    page1.data.jobs.edges.map((e: any) => e.node.id),
    [a.id, b.id],
  );
  assert.is(page1.data.jobs.pageInfo.hasNextPage, true);
  const page2 = await gql(server, operator.token, q, { f: 2, a: page1.data.jobs.pageInfo.endCursor });
  assert.equal(
    page2.data.jobs.edges.map((e: any) => e.node.id),
    [c.id],
  );
  assert.is(page2.data.jobs.pageInfo.hasNextPage, false);
  const low = await gql(server, operator.token, q, { filter: { priority: 'LOW' } });
  assert.equal(
    low.data.jobs.edges.map((e: any) => e.node.id),
    [b.id, c.id],
  );
  const mine = await gql(server, operator.token, q, { filter: { assigneeId: gid('User', operator.id), state: 'OPEN' } });
  assert.equal(
    mine.data.jobs.edges.map((e: any) => e.node.id),
    [a.id],
  );
  // the same filters with other values (a page read is compiled once per set of filters), and more of them together
  const high = await gql(server, operator.token, q, { filter: { priority: 'HIGH' } });
  assert.equal(
    high.data.jobs.edges.map((e: any) => e.node.id),
    [a.id],
  );
  const lowOfTemplate = await gql(server, operator.token, q, {
    f: 1,
    filter: { templateId: gid('Template', template.templateId), priority: 'LOW', state: 'OPEN' },
  });
  assert.equal(
    lowOfTemplate.data.jobs.edges.map((e: any) => e.node.id),
    [b.id],
  );
  const next = await gql(server, operator.token, q, {
    f: 1,
    a: lowOfTemplate.data.jobs.pageInfo.endCursor,
    filter: { templateId: gid('Template', template.templateId), priority: 'LOW', state: 'OPEN' },
  });
  assert.equal(
    next.data.jobs.edges.map((e: any) => e.node.id),
    [c.id],
  );
  const otherTemplate = await gql(server, operator.token, q, {
    filter: { templateId: gid('Template', template.templateId + 1000), assigneeId: gid('User', operator.id) },
  });
  assert.equal(otherTemplate.data.jobs.edges, []);
  const tooMany = await gql(server, operator.token, q, { f: 201 });
  assert.equal(tooMany.codes, ['VALIDATION_ERROR']);
});

jobs('another client sees none of it: every query and mutation answers NOT_FOUND', async () => {
  const { client, template, operator } = await setup();
  const assetId = await createAsset(server, client.owner.token);
  const job = await createJob(server, client.owner.token, { templateId: template.templateId, assetId });
  const fault = await gql(server, operator.token, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}', {
    i: { jobId: gid('Job', job.id), description: 'x', severity: 'LOW' },
  });
  const faultId = fault.data.raiseFault.fault.id;

  const intruder = await buildClient(server);
  const t = intruder.owner.token;
  const one = await gql(server, t, 'query($id: ID!) { job(id: $id) { id: databaseId title } }', { id: gid('Job', job.id) });
  assert.is(one.data.job, null);
  assert.equal(one.codes, ['NOT_FOUND']);
  const list = await gql(server, t, 'query { jobs(first: 200) { edges { node { id: databaseId } } } }');
  assert.equal(list.data.jobs.edges, []);
  const calls: [string, Record<string, unknown>][] = [
    ['mutation($j: ID!) { startJob(input: { jobId: $j }) { job { id: databaseId } }}', { j: gid('Job', job.id) }],
    ['mutation($j: ID!) { pauseJob(input: { jobId: $j }) { job { id: databaseId } }}', { j: gid('Job', job.id) }],
    ['mutation($j: ID!) { resumeJob(input: { jobId: $j }) { job { id: databaseId } }}', { j: gid('Job', job.id) }],
    ['mutation($j: ID!) { completeJob(input: { jobId: $j }) { job { id: databaseId } }}', { j: gid('Job', job.id) }],
    ['mutation($j: ID!) { cancelJob(input: { jobId: $j, reason: "x" }) { job { id: databaseId } }}', { j: gid('Job', job.id) }],
    [RECORD, { i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE' } }],
    [
      'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id: databaseId } }}',
      { i: { templateId: gid('Template', template.templateId), title: 'x' } },
    ],
    [
      'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}',
      { i: { jobId: gid('Job', job.id), description: 'x', severity: 'LOW' } },
    ],
    [
      'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { id: databaseId } }}',
      { i: { assetId: gid('Asset', assetId), description: 'x', severity: 'LOW' } },
    ],
    ['mutation($f: ID!) { closeFault(input: { faultId: $f, note: "x" }) { fault { id: databaseId } }}', { f: gid('Fault', faultId) }],
    ['query($j: ID) { faults(jobId: $j) { nodes { id: databaseId } } }', { j: gid('Job', job.id) }],
    ['query($a: ID) { faults(assetId: $a) { nodes { id: databaseId } } }', { a: gid('Asset', assetId) }],
  ];
  for (const [query, variables] of calls) {
    const result = await gql(server, t, query, variables);
    assert.equal(result.codes, ['NOT_FOUND'], query);
  }
  // the intruder's own client cannot point a job at the victim's users or assets either
  const intruderTemplate = await publishedTemplate(server, intruder);
  for (const input of [{ assigneeIds: [gid('User', operator.id)] }, { assetId: gid('Asset', assetId) }]) {
    const result = await gql(server, t, 'mutation($i: CreateJobInput!) { createJob(input: $i) { job { id: databaseId } }}', {
      i: { templateId: gid('Template', intruderTemplate.templateId), title: 'x', ...input },
    });
    assert.equal(result.codes, ['NOT_FOUND'], JSON.stringify(input));
  }
  const unfiltered = await gql(server, t, 'query { faults { nodes { id: databaseId } } }');
  assert.equal(unfiltered.data.faults.nodes, []);
});

jobs('every job change is on the client audit chain, which verifies', async () => {
  const { client, template, operator } = await setup();
  const job = await createJob(server, client.owner.token, { templateId: template.templateId });
  await gql(server, operator.token, RECORD, {
    i: { jobId: gid('Job', job.id), stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
  });
  await gql(server, operator.token, 'mutation($j: ID!) { pauseJob(input: { jobId: $j }) { job { id: databaseId } }}', {
    j: gid('Job', job.id),
  });
  const entries = await listAuditEntries(
    server.deps.db.kysely,
    tenantScope(client.id),
    { entityType: 'job', entityId: String(job.id) },
    { limit: 50 },
  );
  assert.equal(
    entries.items.map((e) => e.action),
    ['job.created', 'job.step_recorded', 'job.paused'],
  );
  assert.equal(
    entries.items.map((e) => e.actor_user_id),
    [client.owner.id, operator.id, operator.id],
  );
  assert.is((await verifyAuditChain(server.deps.db.kysely, client.id)).broken, null);
});

jobs.run();
