import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, publishedTemplate, DOMAIN_TEST_ENV } from '../helpers/domain';

let server: TestServer;
const together = suite('POST /api/client/workingTogether, GET …/handOffStatuses, GET …/colleagues, GET /api/client/job-history-users');
together.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV });
});
together.after(async () => server.stop());

type Op = { id: number; token: string };

async function setup(): Promise<{ client: BuiltClient; templateId: number; a: Op; b: Op; c: Op; jobId: number }> {
  const client = await buildClient(server, { seats: { full: 20, connect: 20 } });
  const { templateId } = await publishedTemplate(server, client);
  const [a, b, c] = await Promise.all([0, 1, 2].map(() => buildUser(server, client, { roles: ['operator'] })));
  const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
  const op = (u: typeof a) => ({ id: u.id, token: u.token! });
  return { client, templateId, a: op(a), b: op(b), c: op(c), jobId: job.id };
}

const post = (token: string, body: Record<string, unknown>) => server.request('POST', '/api/client/workingTogether', { token, body });
const statuses = (token: string, query = '') => server.request('GET', `/api/client/workingTogether/handOffStatuses${query}`, { token });
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { revision } }';
const measure = (jobId: number) => ({
  i: { jobId: `Job:${jobId}`, stepId: 'measure', status: 'DONE', values: [{ key: 'torque', value: 12 }] },
});

together('hand-off between two operators: one pending per job, only the receiver decides, accepting moves the assignment', async () => {
  const { a, b, c, jobId } = await setup();
  const offered = await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id, note: 'shift ends' });
  assert.is(offered.status, 200, offered.text);
  const handOff = offered.body.data.handOff;
  assert.equal(
    { ...handOff, id: 0, createdAt: '' },
    { id: 0, jobId, fromUserId: a.id, toUserId: b.id, status: 'PENDING', note: 'shift ends', createdAt: '', decidedAt: null },
  );

  const second = await post(a.token, { action: 'HAND_OFF', jobId, toUserId: c.id });
  assert.is(second.status, 409);
  assert.is(second.body.error.code, 'CONFLICT');
  assert.is(second.body.error.details.handOff.id, handOff.id);

  for (const sent of [a, b]) {
    const listed = await statuses(sent.token);
    assert.is(listed.status, 200);
    assert.equal(
      listed.body.data.items.map((h: { id: number; status: string }) => [h.id, h.status]),
      [[handOff.id, 'PENDING']],
    );
    assert.is(listed.body.data.nextCursor, null);
  }
  assert.equal((await statuses(c.token)).body.data.items, []);

  for (const notReceiver of [c, a]) {
    const refused = await post(notReceiver.token, { action: 'ACCEPT', jobId, handOffId: handOff.id });
    assert.is(refused.status, 403, refused.text);
    assert.is(refused.body.error.code, 'FORBIDDEN');
  }
  const accepted = await post(b.token, { action: 'ACCEPT', jobId, handOffId: handOff.id });
  assert.is(accepted.status, 200, accepted.text);
  assert.is(accepted.body.data.handOff.status, 'ACCEPTED');
  assert.ok(accepted.body.data.handOff.decidedAt);
  assert.equal(accepted.body.data.job.assigneeIds, [b.id]);
  assert.is(accepted.body.data.job.revision, 2);

  const again = await post(b.token, { action: 'DECLINE', jobId, handOffId: handOff.id });
  assert.is(again.status, 409);
  assert.is(again.body.error.code, 'INVALID_TRANSITION');
  // the rest of the job is b's now
  assert.equal((await gql(server, a.token, RECORD, measure(jobId))).codes, ['FORBIDDEN']);
  assert.equal((await gql(server, b.token, RECORD, measure(jobId))).codes, []);
});

together('declining leaves the assignment; the sender may cancel; closing the job cancels a pending hand-off', async () => {
  const { a, b, c, jobId } = await setup();
  const first = (await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id })).body.data.handOff;
  const declined = await post(b.token, { action: 'DECLINE', jobId, handOffId: first.id });
  assert.is(declined.status, 200, declined.text);
  assert.is(declined.body.data.handOff.status, 'DECLINED');
  assert.equal(declined.body.data.job.assigneeIds, [a.id]);

  const second = (await post(a.token, { action: 'HAND_OFF', jobId, toUserId: c.id })).body.data.handOff;
  assert.is((await post(c.token, { action: 'CANCEL', jobId, handOffId: second.id })).status, 403);
  const cancelled = await post(a.token, { action: 'CANCEL', jobId, handOffId: second.id });
  assert.is(cancelled.body.data.handOff.status, 'CANCELLED');

  const third = (await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id })).body.data.handOff;
  const closed = await gql(
    server,
    a.token,
    'mutation($j: ID!) { cancelJob(input: { jobId: $j, reason: "not needed" }) { job { state } } }',
    { j: `Job:${jobId}` },
  );
  assert.equal(closed.codes, []);
  const listed = await statuses(b.token);
  assert.equal(
    listed.body.data.items.map((h: { id: number; status: string }) => [h.id, h.status]),
    [
      [first.id, 'DECLINED'],
      [third.id, 'CANCELLED'],
    ],
  );
  const late = await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id });
  assert.is(late.status, 409);
  assert.is(late.body.error.code, 'JOB_CLOSED');
});

together('a hand-off goes to another operator of the client', async () => {
  const { client, a, jobId } = await setup();
  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  const stranger = await buildClient(server);
  const cases: [number, number, string][] = [
    [viewer.id, 422, 'VALIDATION_ERROR'],
    [a.id, 422, 'VALIDATION_ERROR'],
    [stranger.owner.id, 404, 'NOT_FOUND'],
  ];
  for (const [toUserId, status, code] of cases) {
    const res = await post(a.token, { action: 'HAND_OFF', jobId, toUserId });
    assert.is(res.status, status, res.text);
    assert.is(res.body.error.code, code);
  }
  const noTarget = await post(a.token, { action: 'HAND_OFF', jobId });
  assert.is(noTarget.status, 422);
  const unknownAction = await post(a.token, { action: 'DANCE', jobId });
  assert.is(unknownAction.status, 422);
  const viewerCall = await post(viewer.token!, { action: 'JOIN', jobId });
  assert.is(viewerCall.status, 403);
});

together('JOIN and LEAVE make and unmake a co-worker, who may then record on the assigned job', async () => {
  const { c, jobId } = await setup();
  assert.equal((await gql(server, c.token, RECORD, measure(jobId))).codes, ['FORBIDDEN']);
  const joined = await post(c.token, { action: 'JOIN', jobId });
  assert.is(joined.status, 200, joined.text);
  assert.equal(joined.body.data.job.coworkerIds, [c.id]);
  assert.is(joined.body.data.job.revision, 2);
  assert.is(joined.body.data.handOff, null);
  // joining twice changes nothing
  assert.is((await post(c.token, { action: 'JOIN', jobId })).body.data.job.revision, 2);
  assert.equal((await gql(server, c.token, RECORD, measure(jobId))).codes, []);
  const stale = await post(c.token, { action: 'LEAVE', jobId, expectedRevision: 2 });
  assert.is(stale.status, 409);
  assert.is(stale.body.error.code, 'CONFLICT');
  assert.is(stale.body.error.details.job.revision, 3);
  const left = await post(c.token, { action: 'LEAVE', jobId, expectedRevision: 3 });
  assert.equal(left.body.data.job.coworkerIds, []);
  assert.equal((await gql(server, c.token, RECORD, measure(jobId))).codes, ['FORBIDDEN']);
});

together('handOffStatuses pages with the one pagination shape', async () => {
  const { client, templateId, a, b } = await setup();
  for (let i = 0; i < 3; i++) {
    const job = await createJob(server, client.owner.token, { templateId, assigneeIds: [a.id] });
    assert.is((await post(a.token, { action: 'HAND_OFF', jobId: job.id, toUserId: b.id })).status, 200);
  }
  const page1 = await statuses(b.token, '?limit=2');
  assert.is(page1.body.data.items.length, 2);
  assert.ok(page1.body.data.nextCursor);
  const page2 = await statuses(b.token, `?limit=2&cursor=${page1.body.data.nextCursor}`);
  assert.is(page2.body.data.items.length, 1);
  assert.is(page2.body.data.nextCursor, null);
});

together('job-history-users lists the distinct users of a job or of a template’s jobs', async () => {
  const { client, templateId, a, b, c, jobId } = await setup();
  await gql(server, a.token, RECORD, measure(jobId));
  const handOff = (await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id })).body.data.handOff;
  await post(b.token, { action: 'ACCEPT', jobId, handOffId: handOff.id });
  const otherJob = await createJob(server, client.owner.token, { templateId });
  await gql(server, c.token, RECORD, measure(otherJob.id));

  const ofJob = await server.request('GET', `/api/client/job-history-users?jobId=${jobId}`, { token: c.token });
  assert.is(ofJob.status, 200, ofJob.text);
  const ids = (res: typeof ofJob) => res.body.data.items.map((u: { id: number }) => u.id);
  assert.equal(
    ids(ofJob),
    [client.owner.id, a.id, b.id].sort((x, y) => x - y),
  );
  const owner = ofJob.body.data.items.find((u: { id: number }) => u.id === client.owner.id);
  assert.equal(Object.keys(owner).sort(), ['email', 'firstName', 'id', 'lastName']);
  assert.is(owner.email, client.owner.email);

  const ofTemplate = await server.request('GET', `/api/client/job-history-users?templateId=${templateId}`, { token: c.token });
  assert.equal(
    ids(ofTemplate),
    [client.owner.id, a.id, b.id, c.id].sort((x, y) => x - y),
  );

  for (const query of ['', `?jobId=${jobId}&templateId=${templateId}`, '?jobId=abc']) {
    const res = await server.request('GET', `/api/client/job-history-users${query}`, { token: c.token });
    assert.is(res.status, 422, query);
  }
});

together('another client reaches none of it: 404 for its jobs, hand-offs and templates, and its lists stay empty', async () => {
  const { templateId, a, b, jobId } = await setup();
  const handOff = (await post(a.token, { action: 'HAND_OFF', jobId, toUserId: b.id })).body.data.handOff;
  const intruder = await buildClient(server);
  const t = intruder.owner.token;
  for (const body of [
    { action: 'JOIN', jobId },
    { action: 'LEAVE', jobId },
    { action: 'HAND_OFF', jobId, toUserId: b.id },
    { action: 'ACCEPT', jobId, handOffId: handOff.id },
    { action: 'DECLINE', jobId, handOffId: handOff.id },
    { action: 'CANCEL', jobId, handOffId: handOff.id },
  ]) {
    const res = await post(t, body);
    assert.is(res.status, 404, `${body.action}: ${res.text}`);
    assert.is(res.body.error.code, 'NOT_FOUND');
  }
  // the intruder's own job cannot reach the victim's hand-off either
  const own = await publishedTemplate(server, intruder);
  const ownJob = await createJob(server, t, { templateId: own.templateId });
  assert.is((await post(t, { action: 'ACCEPT', jobId: ownJob.id, handOffId: handOff.id })).status, 404);
  assert.equal((await statuses(t)).body.data.items, []);
  for (const query of [`?jobId=${jobId}`, `?templateId=${templateId}`]) {
    const res = await server.request('GET', `/api/client/job-history-users${query}`, { token: t });
    assert.is(res.status, 404, query);
  }
});

together(
  "GET …/colleagues: whom a job can be handed off to — active users who may accept, not the caller, not another client's",
  async () => {
    const { client, a, b, c } = await setup();
    const author = await buildUser(server, client, { roles: ['author'] });
    const disabled = await buildUser(server, client, { roles: ['operator'] });
    assert.is(
      (await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: disabled.id, disabled: true } })).status,
      200,
    );
    const other = await buildClient(server);
    await buildUser(server, other, { roles: ['operator'] });
    const res = await server.request('GET', '/api/client/workingTogether/colleagues', { token: a.token });
    assert.is(res.status, 200, res.text);
    const ids = res.body.data.items.map((u: { id: number }) => u.id);
    assert.ok(ids.includes(b.id) && ids.includes(c.id), 'the other operators');
    assert.not.ok(ids.includes(a.id), 'not the caller');
    assert.not.ok(ids.includes(author.id), 'not who may not accept a hand-off');
    assert.not.ok(ids.includes(disabled.id), 'not a disabled user');
    assert.is(res.body.data.nextCursor, null);
    for (const u of res.body.data.items) assert.equal(Object.keys(u).sort(), ['email', 'firstName', 'id', 'lastName']);
    // an author does not run jobs: no hand-off list for them
    assert.is((await server.request('GET', '/api/client/workingTogether/colleagues', { token: author.token })).status, 403);
    assert.is((await server.request('GET', '/api/client/workingTogether/colleagues')).status, 401);
  },
);

together.run();
