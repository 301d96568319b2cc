import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAsset, createAssetClass } from '#services/catalogue';
import { createSchedule, materialiseSchedules } from '#services/schedules';
import { approveVersion, createTemplate, publishVersion, submitVersion } from '#services/templates';
import type { UserActor } from '#services/actor';
import { PASSWORD, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// The limits of schedules (docs/recurring-and-follow-up-jobs.md#limits): whatever the rule, one schedule
// makes a bounded number of jobs a round and a day, one client's schedules a bounded number a round, each limit
// reached is a security event, nothing stalls, and the worker yields between its transactions.

const META = { ip: null, userAgent: null };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const LIMITS = {
  WIP_SCHEDULE_HORIZON: '2d',
  WIP_SCHEDULE_MAX_JOBS_PER_ROUND: '30',
  WIP_SCHEDULE_MAX_JOBS_PER_CLIENT_ROUND: '45',
  WIP_SCHEDULE_MAX_JOBS_PER_DAY: '40',
};
const CONTENT = { sections: [{ title: 'Look', steps: [{ id: 'look', title: 'Look at it', fields: [] }] }] };

/** A client with a published template and a class of `assets` assets; its planner makes schedules. */
async function plannedClient(deps: ServiceDeps, assets: number) {
  const { client, user } = await seedClient(deps);
  const author = await user(['author']);
  const approver = await user(['approver']);
  const planner = await user(['publisher']);
  const template = await createTemplate(deps, author, { title: 'Pump check', content: CONTENT });
  const version = await deps.db.kysely
    .selectFrom('template_versions')
    .select('id')
    .where('template_id', '=', template.id)
    .executeTakeFirstOrThrow();
  await submitVersion(deps, author, version.id);
  await approveVersion(deps, approver, version.id, { password: PASSWORD }, META);
  await publishVersion(deps, planner, version.id, { password: PASSWORD }, META);
  const assetClass = await createAssetClass(deps, author, { name: 'Pumps' });
  for (let i = 1; i <= assets; i++) await createAsset(deps, author, { name: `Pump ${i}`, assetClassId: assetClass.id });
  return { clientId: client.id, planner, templateId: template.id, assetClassId: assetClass.id };
}

function hourly(deps: ServiceDeps, planner: UserActor, templateId: number, assetClassId?: number) {
  const start = new Date(deps.clock.now().getTime() + HOUR);
  return createSchedule(deps, planner, {
    title: 'Hourly',
    templateId,
    ...(assetClassId && { assetClassId }),
    recurrence: 'FREQ=HOURLY',
    startsAt: start.toISOString().slice(0, 16),
  });
}

const occurrenceRows = (deps: ServiceDeps, scheduleId: number) =>
  deps.db.kysely.selectFrom('schedule_occurrences').selectAll().where('schedule_id', '=', scheduleId).orderBy('occurs_at').execute();
const limitEvents = (deps: ServiceDeps, clientId: number) =>
  deps.db.kysely
    .selectFrom('logs')
    .selectAll()
    .where('event', '=', 'security.schedule_limit')
    .where('client_id', '=', clientId)
    .orderBy('id')
    .execute();

const test = suite('schedules: jobs per round, per client and per day are limited; the worker yields (services)');

test('a rule recurring more often than hourly is refused on recurrence, and nothing is saved', async () => {
  const deps = await serviceDeps();
  try {
    const { planner, templateId } = await plannedClient(deps, 0);
    const minutes = Array.from({ length: 60 }, (_, i) => i).join(',');
    const refused = await refusal(
      createSchedule(deps, planner, {
        title: 'Every second',
        templateId,
        recurrence: `FREQ=HOURLY;BYMINUTE=${minutes};BYSECOND=${minutes}`,
        startsAt: '2030-01-01T00:00',
      }),
    );
    assert.is(refused.code, 'VALIDATION_ERROR');
    assert.equal(
      (refused.details?.fields as { path: string }[]).map((f) => f.path),
      ['recurrence'],
    );
    assert.is((await deps.db.kysely.selectFrom('schedules').selectAll().execute()).length, 0);
  } finally {
    await deps.close();
  }
});

test('past the daily limit an occurrence is SKIPPED (DAILY_LIMIT), a security event says so; per round the rest waits, nothing is lost', async () => {
  const deps = await serviceDeps({ env: LIMITS });
  try {
    const { clientId, planner, templateId, assetClassId } = await plannedClient(deps, 5);
    // five jobs an hour: 240 over the 2-day horizon, against 40 a day
    const schedule = await hourly(deps, planner, templateId, assetClassId);
    const first = await materialiseSchedules(deps);
    assert.equal([first.created, first.deferred], [30, 1], 'the schedule stops at 30 jobs this round');
    let events = await limitEvents(deps, clientId);
    assert.equal(
      events.map((e) => [e.level, JSON.parse(e.data).limit, e.actor_name]),
      [['warn', 'scheduleMaxJobsPerRound', `schedule:${schedule.id}`]],
    );
    for (let round = 0; round < 10; round++) if ((await materialiseSchedules(deps)).schedules === 0) break;
    assert.is((await materialiseSchedules(deps)).schedules, 0, 'all handled up to the horizon: no stall');
    const rows = await occurrenceRows(deps, schedule.id);
    const created = rows.filter((r) => r.status === 'CREATED');
    const skipped = rows.filter((r) => r.status === 'SKIPPED');
    assert.ok(skipped.length > 0 && skipped.every((r) => r.reason === 'DAILY_LIMIT' && r.job_id === null));
    // every occurrence of the horizon is there: its five jobs, or its skip
    const instants = new Set(rows.map((r) => r.occurs_at));
    assert.is(instants.size, 48);
    for (const at of instants) {
      const of = rows.filter((r) => r.occurs_at === at);
      assert.ok(of.length === 1 ? of[0].status === 'SKIPPED' : of.length === 5 && of.every((r) => r.job_id !== null), at);
    }
    // never more than 40 jobs for the occurrences of any 24 hours
    for (const at of instants) {
      const end = new Date(at).getTime();
      const inDay = created.filter((r) => new Date(r.occurs_at).getTime() > end - DAY && new Date(r.occurs_at).getTime() <= end);
      assert.ok(inDay.length <= 40, `${inDay.length} jobs in the 24 hours up to ${at}`);
    }
    assert.is(created.length, 80, 'two days of 40');
    events = await limitEvents(deps, clientId);
    const daily = events.filter((e) => JSON.parse(e.data).limit === 'scheduleMaxJobsPerDay');
    assert.ok(daily.length > 0);
    assert.is(
      daily.reduce((n, e) => n + (JSON.parse(e.data).skipped as number), 0),
      skipped.length,
      'the events count every skipped occurrence',
    );
    // the security log's category takes them
    assert.ok(events.every((e) => e.event.startsWith('security.')));
  } finally {
    await deps.close();
  }
});

test("one client's schedules stop at the client's limit a round; another client's still get theirs in that round", async () => {
  const deps = await serviceDeps({ env: LIMITS });
  try {
    const big = await plannedClient(deps, 5);
    const one = await hourly(deps, big.planner, big.templateId, big.assetClassId);
    const two = await hourly(deps, big.planner, big.templateId, big.assetClassId);
    const small = await plannedClient(deps, 0);
    const theirs = await hourly(deps, small.planner, small.templateId);
    const round = await materialiseSchedules(deps);
    const jobs = async (scheduleId: number) => (await occurrenceRows(deps, scheduleId)).filter((r) => r.status === 'CREATED').length;
    assert.is((await jobs(one.id)) + (await jobs(two.id)), 45, 'the client stops at 45 this round');
    assert.is(await jobs(theirs.id), 30, "the other client's hourly schedule: its own limit of the round");
    assert.is(round.created, 75);
    const limits = (await limitEvents(deps, big.clientId)).map((e) => JSON.parse(e.data).limit);
    assert.ok(limits.includes('scheduleMaxJobsPerClientRound'), limits.join());
  } finally {
    await deps.close();
  }
});

test('the worker yields between its transactions: timers (requests) wait one transaction at most, not the round', async () => {
  const deps = await serviceDeps({
    env: {
      ...LIMITS,
      WIP_SCHEDULE_MAX_JOBS_PER_ROUND: '400',
      WIP_SCHEDULE_MAX_JOBS_PER_CLIENT_ROUND: '400',
      WIP_SCHEDULE_MAX_JOBS_PER_DAY: '400',
    },
  });
  try {
    const { planner, templateId, assetClassId } = await plannedClient(deps, 8);
    await hourly(deps, planner, templateId, assetClassId);
    let last = performance.now();
    let longest = 0;
    let ticks = 0;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    };
    const timer = setInterval(() => (ticks++, tick()), 1);
    const started = performance.now();
    const round = await materialiseSchedules(deps);
    const took = performance.now() - started;
    tick();
    clearInterval(timer);
    assert.is(round.created, 384);
    // a transaction is 5 jobs, the round about 80 of them: a round that never yields keeps every timer waiting to its end
    assert.ok(
      ticks >= 20 && longest < took / 3,
      `${ticks} ticks, the longest wait ${Math.round(longest)} ms, in a round of ${Math.round(took)} ms`,
    );
  } finally {
    await deps.close();
  }
});

test.run();
