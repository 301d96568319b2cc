import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createAsset, createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// The supervisor's screens: the board of open jobs by due date, the people a job can be assigned to,
// and the deviations of the last days — read through REST (GET /api/client/supervision/*), for whoever may
// create jobs, scoped to their client.

const DAY = 24 * 60 * 60 * 1000;
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';

let server: TestServer;
const test = suite('supervision: board, assignees, deviations');
test.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
test.after(async () => server.stop());

async function setup() {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const template = await publishedTemplate(server, client);
  const supervisor = await buildUser(server, client, { roles: ['publisher', 'operator'] });
  const operator = await buildUser(server, client, { roles: ['operator'] });
  return { client, template, supervisor: supervisor.token!, supervisorUser: supervisor, operator };
}

async function record(
  token: string,
  jobId: number,
  stepId: string,
  status: string,
  values: { key: string; value: unknown }[] = [],
  extra: Record<string, unknown> = {},
) {
  const result = await gql(server, token, RECORD, { i: { jobId: gid('Job', jobId), stepId, status, values, ...extra } });
  assert.equal(result.codes, [], JSON.stringify(result.errors));
}

test('the board: open jobs only, the earliest due first (none last), then priority; asset and assignees named', async () => {
  const { client, template, supervisor, operator } = await setup();
  const assetId = await createAsset(server, client.owner.token, 'Pump 12');
  const now = server.clock.now().getTime();
  const later = await createJob(server, supervisor, {
    templateId: template.templateId,
    title: 'Later',
    dueAt: new Date(now + 3 * DAY).toISOString(),
  });
  const undated = await createJob(server, supervisor, { templateId: template.templateId, title: 'Undated', priority: 'HIGH' });
  const soonLow = await createJob(server, supervisor, {
    templateId: template.templateId,
    title: 'Soon low',
    priority: 'LOW',
    dueAt: new Date(now + DAY).toISOString(),
  });
  const soonHigh = await createJob(server, supervisor, {
    templateId: template.templateId,
    title: 'Soon high',
    priority: 'HIGH',
    dueAt: new Date(now + DAY).toISOString(),
    assetId,
    assigneeIds: [operator.id],
  });
  const done = await createJob(server, supervisor, { templateId: template.templateId, title: 'Cancelled' });
  const cancelled = await gql(
    server,
    supervisor,
    'mutation($j: ID!) { cancelJob(input: { jobId: $j, reason: "not needed" }) { revision } }',
    { j: gid('Job', done.id) },
  );
  assert.equal(cancelled.codes, [], JSON.stringify(cancelled.errors));
  await record(operator.token!, later.id, 'measure', 'DONE', [{ key: 'torque', value: 15 }]);

  const board = await server.request('GET', '/api/client/supervision/board', { token: supervisor });
  assert.is(board.status, 200, board.text);
  assert.equal(
    board.body.data.jobs.map((j: { id: number }) => j.id),
    [soonHigh.id, soonLow.id, later.id, undated.id],
  );
  const high = board.body.data.jobs[0];
  assert.equal(high.asset, { id: assetId, name: 'Pump 12' });
  assert.equal(high.assignees, [{ id: operator.id, name: operator.email }]);
  assert.is(board.body.data.jobs[2].state, 'IN_PROGRESS');
  assert.is(board.body.data.truncated, false);
});

test('assignees: active users of the client who may run jobs, nobody of another client', async () => {
  const { client, supervisor, operator } = await setup();
  const author = await buildUser(server, client, { roles: ['author'] });
  const other = await buildClient(server);
  const stranger = await buildUser(server, other, { roles: ['operator'] });
  const answer = await server.request('GET', '/api/client/supervision/assignees', { token: supervisor });
  assert.is(answer.status, 200, answer.text);
  const ids = answer.body.data.users.map((u: { id: number }) => u.id);
  assert.ok(ids.includes(operator.id));
  assert.ok(ids.includes(client.owner.id), 'the owner (admin) may run jobs');
  assert.not.ok(ids.includes(author.id), 'an author may not');
  assert.not.ok(ids.includes(stranger.id), "another client's operator");
});

test('deviations: out-of-limit values, failed and skipped steps of the period, open faults, overdue jobs', async () => {
  const { template, supervisor: morning, supervisorUser, operator } = await setup();
  // out of limits a week and a half before the rest: outside a 7-day window (the clock only moves forward:
  // a clock turned back makes the license read-only)
  const old = await createJob(server, morning, { templateId: template.templateId, title: 'Old' });
  await record(operator.token!, old.id, 'measure', 'DONE', [{ key: 'torque', value: 99 }]);
  server.clock.advance(10 * DAY);
  // ten days on, the access tokens of the morning have expired: new sessions
  const supervisor = await signIn(server, supervisorUser.email, PASSWORD);
  const operatorToken = await signIn(server, operator.email, PASSWORD);
  const now = server.clock.now().getTime();
  const overdue = await createJob(server, supervisor, {
    templateId: template.templateId,
    title: 'Overdue',
    dueAt: new Date(now + 60_000).toISOString(),
  });
  const job = await createJob(server, supervisor, { templateId: template.templateId, title: 'Measured' });
  await record(operatorToken, job.id, 'measure', 'DONE', [
    { key: 'torque', value: 25 },
    { key: 'note', value: 'too tight' },
  ]);
  await record(operatorToken, job.id, 'check', 'FAILED', [{ key: 'sealOk', value: false }], { comment: 'seal torn' });
  await record(operatorToken, job.id, 'photo', 'SKIPPED', [], { reason: 'camera broken' });
  const fault = await gql(server, operatorToken, 'mutation($i: RaiseFaultInput!) { raiseFault(input: $i) { fault { databaseId } } }', {
    i: { jobId: gid('Job', job.id), stepId: 'check', description: 'Seal torn', severity: 'HIGH' },
  });
  assert.equal(fault.codes, [], JSON.stringify(fault.errors));
  server.clock.advance(5 * 60_000);

  const answer = await server.request('GET', '/api/client/supervision/deviations?days=7', { token: supervisor });
  assert.is(answer.status, 200, answer.text);
  const data = answer.body.data;
  assert.is(data.days, 7);
  assert.equal(
    data.outOfLimits.map((d: any) => [d.job.id, d.stepTitle, d.fieldLabel, d.value, d.unit, d.min, d.max]),
    [[job.id, 'Measure the torque', 'Torque', 25, 'Nm', 10, 20]],
  );
  assert.equal(
    data.stepProblems.map((d: any) => [d.job.id, d.stepId, d.status, d.reason, d.comment]).sort(),
    [
      [job.id, 'check', 'FAILED', null, 'seal torn'],
      [job.id, 'photo', 'SKIPPED', 'camera broken', null],
    ].sort(),
  );
  assert.equal(
    data.openFaults.map((f: any) => [f.id, f.severity, f.description, f.job.id]),
    [[fault.data.raiseFault.fault.databaseId, 'HIGH', 'Seal torn', job.id]],
  );
  assert.equal(
    data.overdueJobs.map((j: any) => j.id),
    [overdue.id],
  );

  // a 30-day window takes the older value too
  const month = await server.request('GET', '/api/client/supervision/deviations?days=30', { token: supervisor });
  assert.equal(
    month.body.data.outOfLimits.map((d: any) => d.job.id),
    [job.id, old.id],
  );
});

test('only those who may create jobs; another client sees none of it; days is checked', async () => {
  const { client, template, supervisor } = await setup();
  await createJob(server, supervisor, {
    templateId: template.templateId,
    title: 'Mine',
    dueAt: new Date(server.clock.now().getTime() - DAY).toISOString(),
  }).catch(() => undefined);
  const author = await buildUser(server, client, { roles: ['author', 'approver'] });
  for (const path of ['/api/client/supervision/board', '/api/client/supervision/assignees', '/api/client/supervision/deviations']) {
    assert.is((await server.request('GET', path, { token: author.token })).status, 403, path);
    assert.is((await server.request('GET', path)).status, 401, path);
  }
  const other = await buildClient(server);
  const otherBoard = await server.request('GET', '/api/client/supervision/board', { token: other.owner.token });
  assert.is(otherBoard.status, 200);
  assert.equal(otherBoard.body.data.jobs, []);
  const otherDeviations = await server.request('GET', '/api/client/supervision/deviations', { token: other.owner.token });
  assert.equal(otherDeviations.body.data.overdueJobs, []);
  for (const days of ['0', '91', 'x']) {
    const bad = await server.request('GET', `/api/client/supervision/deviations?days=${days}`, { token: supervisor });
    assert.is(bad.status, 422, days);
    assert.is(bad.body.error.code, 'VALIDATION_ERROR');
  }
});

test.run();
