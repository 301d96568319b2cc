import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '#lib/clock';
import { bucketLabel, bucketsBetween, type Period } from '#db/time-buckets';
import * as usageCounts from '../../migrations/0020_usage_counts';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, signIn, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { createJob, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// The meter report reads pre-aggregated per-day counts (usage_step_days,
// usage_job_days: migration 0020, kept in the transaction of every recording
// and job write). After a mix of writes — recordings, re-recordings that move a
// step to another day or user, the same user re-recording the same day, jobs
// started, completed and cancelled on different days, a deleted client — every
// number it gives must equal a direct count over the raw rows (step_records,
// jobs, job_members, sessions, users).

const DAY = 86_400_000;
const START = '2030-01-30'; // a Wednesday, two days before a month ends
const RANGES = [`from=2030-01-28&to=2030-02-10`, `from=2030-02-01&to=2030-02-04`, `from=2030-01-31&to=2030-01-31`];
const RECORD = 'mutation($i: RecordStepInput!) { recordStep(input: $i) { job { id state } } }';
const TRANSITION = (action: string) => `mutation($j: ID!) { ${action}Job(input: { jobId: $j }) { job { id state } } }`;

let server: TestServer;
let client: BuiltClient;
let ids: { op1: number; op2: number };
const exact = suite('meter report: pre-aggregated counts equal direct counts over the raw rows');

async function transition(token: string, action: 'start' | 'complete', jobId: number) {
  const r = await gql(server, token, TRANSITION(action), { j: `Job:${jobId}` });
  assert.ok(r.data?.[`${action}Job`], `${action} ${jobId}: ${JSON.stringify(r)}`);
}

async function record(token: string, jobId: number, stepId: string, values: unknown[], extra: Record<string, unknown> = {}) {
  const r = await gql(server, token, RECORD, { i: { jobId: `Job:${jobId}`, stepId, status: 'DONE', values, ...extra } });
  assert.ok(r.data?.recordStep, `record ${stepId}: ${JSON.stringify(r)}`);
}

exact.before(async () => {
  server = await startTestServer({ env: DOMAIN_TEST_ENV, clock: new ManualClock(new Date(`${START}T22:00:00.000Z`)) });
  client = await buildClient(server, { seats: { full: 10, connect: 10 } });
  const other = await buildClient(server, { seats: { full: 10, connect: 10 } });
  const templateId = (await publishedTemplate(server, client)).templateId;
  const otherTemplate = (await publishedTemplate(server, other)).templateId;
  const op1 = await buildUser(server, client, { roles: ['operator'], licenseType: 'full' });
  const op2 = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  const stranger = await buildUser(server, other, { roles: ['operator'] });
  ids = { op1: op1.id, op2: op2.id };
  const both = { templateId, assigneeIds: [op1.id, op2.id] };
  const jobA = (await createJob(server, client.owner.token, both)).id;
  const jobB = (await createJob(server, client.owner.token, both)).id;
  const jobC = (await createJob(server, other.owner.token, { templateId: otherTemplate, assigneeIds: [stranger.id] })).id;
  const jobD = (await createJob(server, client.owner.token, { templateId, assigneeIds: [op2.id] })).id; // only op2 works on it

  // day 0 (Jan 30, late evening)
  await record(op1.token!, jobA, 'measure', [{ key: 'torque', value: 15 }]);
  await record(op1.token!, jobA, 'check', [{ key: 'sealOk', value: true }]);
  await record(op2.token!, jobB, 'measure', [{ key: 'torque', value: 11 }]);
  await record(op1.token!, jobA, 'check', [{ key: 'sealOk', value: false }]); // same user, same day: no move
  await record(stranger.token!, jobC, 'measure', [{ key: 'torque', value: 12 }]);

  // sessions expire: everyone signs in again on each later day (the sign-ins are activity too)
  const signInAgain = async () => {
    for (const u of [op1, op2]) u.token = await signIn(server, u.email, u.password, client.id);
    stranger.token = await signIn(server, stranger.email, stranger.password, other.id);
  };

  // day 2 (Feb 1): re-recordings move steps to another day and user
  server.clock.advance(2 * DAY);
  await signInAgain();
  await record(op2.token!, jobA, 'measure', [{ key: 'torque', value: 16 }]); // op1/Jan 30 → op2/Feb 1
  await record(op1.token!, jobB, 'measure', [{ key: 'torque', value: 13 }]); // op2/Jan 30 → op1/Feb 1: op2 has no step left on Jan 30
  await record(op2.token!, jobB, 'check', [{ key: 'sealOk', value: true }]);
  await record(stranger.token!, jobC, 'check', [{ key: 'sealOk', value: true }]);
  await transition(op2.token!, 'start', jobD); // started without a recording

  // day 8 (Feb 7): a skipped step, and a step recorded again by the same user a week later
  server.clock.advance(6 * DAY);
  await signInAgain();
  await record(op1.token!, jobA, 'photo', [], { status: 'SKIPPED', reason: 'camera broken' });
  await record(op2.token!, jobB, 'check', [{ key: 'sealOk', value: false }]); // op2/Feb 1 → op2/Feb 7
  await transition(op1.token!, 'complete', jobA);
  await record(op2.token!, jobD, 'measure', [{ key: 'torque', value: 14 }]);

  // the other client goes, with its records
  const gone = await server.request('DELETE', `/api/admin/client/${other.id}`, { token: await adminToken(server) });
  assert.is(gone.status, 200, gone.text);
  client.owner.token = await signIn(server, client.owner.email, client.owner.password, client.id);
});
exact.after(async () => server.stop());

interface Counts {
  steps: number;
  started: number;
  completed: number;
  full: number;
  connect: number;
  total: number;
}
interface Expected {
  buckets: ({ bucket: string } & Counts)[];
  totals: Counts;
}

/** What the meter must say, counted in JavaScript from the raw rows. */
async function directCount(period: Period, query: URLSearchParams): Promise<Expected> {
  const db = server.deps.db.kysely;
  const from = new Date(`${query.get('from')}T00:00:00.000Z`);
  const to = new Date(Date.parse(`${query.get('to')}T00:00:00.000Z`) + DAY);
  const inRange = (at: string) => at >= from.toISOString() && at < to.toISOString();
  const users = new Map(
    (await db.selectFrom('users').select(['id', 'license_type']).where('client_id', '=', client.id).execute()).map((u) => [
      u.id,
      u.license_type,
    ]),
  );
  const userId = query.get('userId') === null ? undefined : Number(query.get('userId'));
  const licenseType = query.get('licenseType') ?? undefined;
  const counted = (id: number) =>
    users.has(id) && (userId === undefined || id === userId) && (licenseType === undefined || users.get(id) === licenseType);
  const records = (
    await db.selectFrom('step_records').select(['recorded_by', 'recorded_at']).where('client_id', '=', client.id).execute()
  ).filter((r) => inRange(r.recorded_at) && counted(r.recorded_by));
  const sessions = (await db.selectFrom('sessions').select(['user_id', 'created_at']).where('client_id', '=', client.id).execute()).filter(
    (s) => inRange(s.created_at) && counted(s.user_id),
  );
  // jobs: a user filter keeps the jobs a matching user created or is a member of
  const members = await db.selectFrom('job_members').select(['job_id', 'user_id']).where('client_id', '=', client.id).execute();
  const filtered = userId !== undefined || licenseType !== undefined;
  const jobs = (
    await db.selectFrom('jobs').select(['id', 'created_by', 'started_at', 'completed_at']).where('client_id', '=', client.id).execute()
  ).filter((j) => !filtered || counted(j.created_by) || members.some((m) => m.job_id === j.id && counted(m.user_id)));
  const started = jobs.flatMap((j) => (j.started_at && inRange(j.started_at) ? [j.started_at] : []));
  const completed = jobs.flatMap((j) => (j.completed_at && inRange(j.completed_at) ? [j.completed_at] : []));
  const activity = [
    ...records.map((r) => ({ user: r.recorded_by, at: r.recorded_at })),
    ...sessions.map((s) => ({ user: s.user_id, at: s.created_at })),
  ];
  const active = (of: typeof activity) => {
    const distinct = new Set(of.map((a) => a.user));
    const byType = (type: string) => [...distinct].filter((u) => users.get(u) === type).length;
    return { full: byType('full'), connect: byType('connect'), total: distinct.size };
  };
  const label = (at: string) => bucketLabel(period, new Date(at));
  return {
    buckets: bucketsBetween(period, from, to).map(({ bucket }) => ({
      bucket,
      steps: records.filter((r) => label(r.recorded_at) === bucket).length,
      started: started.filter((at) => label(at) === bucket).length,
      completed: completed.filter((at) => label(at) === bucket).length,
      ...active(activity.filter((a) => label(a.at) === bucket)),
    })),
    totals: { steps: records.length, started: started.length, completed: completed.length, ...active(activity) },
  };
}

async function assertMeterExact(what: string) {
  const filters = ['', `&userId=${ids.op1}`, `&userId=${ids.op2}`, '&licenseType=connect', '&licenseType=full'];
  for (const period of ['day', 'week', 'month'] as const) {
    for (const range of RANGES) {
      for (const filter of filters) {
        const query = new URLSearchParams(`period=${period}&${range}${filter}`);
        const res = await server.request('GET', `/api/client/meter-report?${query}`, { token: client.owner.token });
        assert.is(res.status, 200, res.text);
        const report = res.body.data;
        const actual: Expected = {
          buckets: report.buckets.map((b: any) => ({
            bucket: b.bucket,
            steps: b.stepsRecorded,
            started: b.jobsStarted,
            completed: b.jobsCompleted,
            full: b.activeUsers.byLicenseType.full,
            connect: b.activeUsers.byLicenseType.connect,
            total: b.activeUsers.total,
          })),
          totals: {
            steps: report.totals.stepsRecorded,
            started: report.totals.jobsStarted,
            completed: report.totals.jobsCompleted,
            full: report.totals.activeUsers.byLicenseType.full,
            connect: report.totals.activeUsers.byLicenseType.connect,
            total: report.totals.activeUsers.total,
          },
        };
        assert.equal(actual, await directCount(period, query), `${what}: ${query}`);
      }
    }
  }
}

/** usage_step_days, row for row, as a regrouping of step_records would give it (every client). */
async function assertCountsMatchRecords() {
  const db = server.deps.db.kysely;
  const expected = new Map<string, number>();
  for (const r of await db.selectFrom('step_records').select(['client_id', 'recorded_at', 'recorded_by']).execute()) {
    const key = `${r.client_id}/${r.recorded_at.slice(0, 10)}/${r.recorded_by}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const rows = await db.selectFrom('usage_step_days').selectAll().execute();
  const actual = new Map(rows.map((r) => [`${r.client_id}/${r.day}/${r.user_id}`, Number(r.steps)]));
  assert.equal(Object.fromEntries([...actual].sort()), Object.fromEntries([...expected].sort()));

  const expectedJobs = new Map<string, number>();
  const add = (key: string) => expectedJobs.set(key, (expectedJobs.get(key) ?? 0) + 1);
  for (const j of await db.selectFrom('jobs').select(['client_id', 'started_at', 'completed_at']).execute()) {
    if (j.started_at) add(`${j.client_id}/${j.started_at.slice(0, 10)}/started`);
    if (j.completed_at) add(`${j.client_id}/${j.completed_at.slice(0, 10)}/completed`);
  }
  const actualJobs = new Map<string, number>();
  for (const r of await db.selectFrom('usage_job_days').selectAll().execute()) {
    if (Number(r.started) !== 0) actualJobs.set(`${r.client_id}/${r.day}/started`, Number(r.started));
    if (Number(r.completed) !== 0) actualJobs.set(`${r.client_id}/${r.day}/completed`, Number(r.completed));
  }
  assert.equal(Object.fromEntries([...actualJobs].sort()), Object.fromEntries([...expectedJobs].sort()));
}

exact(
  'the counts kept with every write equal a regrouping of the step records and jobs (moves, same-day re-recordings, a deleted client)',
  async () => {
    await assertCountsMatchRecords();
    const jobDays = await server.deps.db.kysely
      .selectFrom('usage_job_days')
      .select(['day', 'started', 'completed'])
      .where('client_id', '=', client.id)
      .orderBy('day')
      .execute();
    assert.equal(
      jobDays.map((r) => [r.day, Number(r.started), Number(r.completed)]),
      [
        ['2030-01-30', 2, 0],
        ['2030-02-01', 1, 0],
        ['2030-02-07', 0, 1],
      ],
    );
    const rows = await server.deps.db.kysely
      .selectFrom('usage_step_days')
      .select(['day', 'user_id', 'steps'])
      .where('client_id', '=', client.id)
      .orderBy('day')
      .orderBy('user_id')
      .execute();
    // op2's only step on Jan 30 moved to op1 on Feb 1: its row is gone, not left at zero
    assert.equal(
      rows.map((r) => [r.day, r.user_id === ids.op1 ? 'op1' : 'op2', Number(r.steps)]),
      [
        ['2030-01-30', 'op1', 1],
        ['2030-02-01', 'op1', 1],
        ['2030-02-01', 'op2', 1],
        ['2030-02-07', 'op1', 1],
        ['2030-02-07', 'op2', 2],
      ],
    );
  },
);

exact('meter report per day, week and month, over several ranges and user filters, equals a direct count over the raw rows', async () => {
  await assertMeterExact('kept counts');
});

exact('migration 0020 backfills the same counts from the step records and jobs already kept', async () => {
  const db = server.deps.db.kysely;
  await usageCounts.down(db);
  await usageCounts.up(db);
  await assertCountsMatchRecords();
  // (the meter over these rows was compared with the raw rows above; the route allows 60 reports a minute)
  const res = await server.request('GET', '/api/client/meter-report?period=month&from=2030-01-01&to=2030-02-28', {
    token: client.owner.token,
  });
  assert.is(res.status, 200, res.text);
  assert.equal([res.body.data.totals.stepsRecorded, res.body.data.totals.jobsStarted, res.body.data.totals.jobsCompleted], [6, 3, 1]);
});

exact.run();
