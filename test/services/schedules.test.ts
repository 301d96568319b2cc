import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAsset, createAssetClass, createOrganization } from '#services/catalogue';
import { transitionJob } from '#services/jobs';
import {
  createSchedule,
  deleteSchedule,
  materialiseSchedules,
  previewSchedule,
  transitionSchedule,
  updateSchedule,
  type CreateScheduleInput,
} from '#services/schedules';
import { updateClient } from '#services/clients';
import { updateUser } from '#services/users';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { play } from '../helpers/scenarios';
import { BY_TEST, publishedTemplate, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// Recurring jobs (docs/recurring-and-follow-up-jobs.md) where they live, with a clock the test moves and the worker's
// round called by hand (materialiseSchedules, what the daemon's timer runs): missed occurrences created or skipped,
// an occurrence never made twice, pause / resume / edit / delete acting on the future only (audited), asset classes
// and teams, the rules a definition must meet, the preview in the client's zone. The limits of a round and a day:
// schedule-limits.test.ts. What the GraphQL operations answer, and daylight saving across nodes and restarts:
// test/graphql/schedules.test.ts.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = new Date('2026-06-01T00:00:00Z');
const CONTENT = { sections: [{ id: 's', title: 'Inspect', steps: [{ id: 'look', title: 'Look at the pump', fields: [] }] }] };

/** A client with a published template; its owner plans (an admin may), `at(h)` a start `h` hours from the clock's now. */
async function planned(deps: ServiceDeps) {
  deps.clock.set(START);
  const { client, owner, user } = await seedClient(deps);
  const author = await user(['author']);
  const template = await publishedTemplate(
    deps,
    { author, approver: await user(['approver']), publisher: await user(['publisher']) },
    CONTENT,
  );
  const at = (hours: number) => new Date(deps.clock.now().getTime() + hours * HOUR).toISOString().slice(0, 16);
  const schedule = (input: Partial<CreateScheduleInput>) =>
    createSchedule(deps, owner, { title: 'Check', templateId: template.templateId, recurrence: 'FREQ=DAILY', startsAt: at(1), ...input });
  return { client, owner, user, author, template, at, schedule };
}

const occurrences = (deps: ServiceDeps, scheduleId: number) =>
  deps.db.kysely
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .orderBy('occurs_at')
    .orderBy('asset_key')
    .execute();

/** the jobs of the template, with the occurrence each was made for */
const jobsOf = (deps: ServiceDeps, templateId: number) =>
  deps.db.kysely
    .selectFrom('jobs')
    .leftJoin('schedule_occurrences as o', 'o.job_id', 'jobs.id')
    .select(['jobs.id', 'jobs.title', 'jobs.state', 'jobs.cancel_reason', 'jobs.asset_id', 'jobs.priority', 'o.occurs_at'])
    .where('jobs.template_id', '=', templateId)
    .orderBy('jobs.id')
    .execute();

const test = suite<{ deps: ServiceDeps }>('schedules: occurrences, gaps, pause, edit, delete, assets and teams (services)');
test.before.each(async (ctx) => {
  ctx.deps = await serviceDeps({ env: { WIP_SCHEDULE_HORIZON: '3d' } });
});
test.after.each(async ({ deps }) => {
  await deps.close();
});

test('after a gap (the daemon down for days) missed occurrences are created or skipped as each schedule says; the rest as usual', async ({
  deps,
}) => {
  const { schedule, at } = await planned(deps);
  const creating = await schedule({ title: 'Gap CREATE', startsAt: at(12), missedOccurrences: 'CREATE' });
  const skipping = await schedule({ title: 'Gap SKIP', startsAt: at(12), missedOccurrences: 'SKIP' });
  await materialiseSchedules(deps);
  assert.is((await occurrences(deps, creating.id)).length, 3);
  assert.is((await occurrences(deps, skipping.id)).length, 3);

  // 6 days without a round: the occurrences of days 4 to 6 have passed when the next round runs
  deps.clock.set(new Date(START.getTime() + 6 * DAY));
  await materialiseSchedules(deps);
  const created = await occurrences(deps, creating.id);
  assert.is(created.length, 9, '3 before, 3 missed and created, 3 within the horizon');
  assert.ok(created.every((o) => o.status === 'CREATED' && o.job_id !== null));
  const skipped = await occurrences(deps, skipping.id);
  assert.equal(
    skipped.map((o) => [o.status, o.reason, o.job_id === null]),
    [...Array(3).fill(['CREATED', null, false]), ...Array(3).fill(['SKIPPED', 'MISSED', true]), ...Array(3).fill(['CREATED', null, false])],
  );
});

test("an occurrence handled once is never made again, even when the schedule's mark goes back (an older backup, a stale node)", async ({
  deps,
}) => {
  const { schedule, template } = await planned(deps);
  const made = await schedule({ title: 'Once only', recurrence: 'FREQ=HOURLY;INTERVAL=12', missedOccurrences: 'CREATE' });
  await materialiseSchedules(deps);
  const first = await jobsOf(deps, template.templateId);
  assert.is(first.length, 6);
  // the mark back to before the first occurrence: only the occurrences' unique key stands between them and a second job
  await deps.db.kysely.updateTable('schedules').set({ generated_until: START.toISOString() }).where('id', '=', made.id).execute();
  await materialiseSchedules(deps);
  assert.equal(await jobsOf(deps, template.templateId), first);
  assert.is((await occurrences(deps, made.id)).length, 6);
});

test('pause withdraws the untouched jobs ahead and makes none; resume goes on from now; edit changes only what is to come; delete ends it — each audited', async ({
  deps,
}) => {
  const { client, owner, user, schedule, template } = await planned(deps);
  const operator = await user(['operator']);
  const made = await schedule({ title: 'Weekly check' });
  await materialiseSchedules(deps);
  let jobs = await jobsOf(deps, template.templateId);
  assert.is(jobs.length, 3);
  // the operator starts the first job: touched, it stays whatever happens to the schedule
  await transitionJob(deps, operator, { jobId: jobs[0].id, action: 'start' });

  const paused = await transitionSchedule(deps, owner, { scheduleId: made.id, action: 'pause' });
  assert.is(paused.state, 'PAUSED');
  jobs = await jobsOf(deps, template.templateId);
  assert.equal(
    jobs.map((j) => [j.state, j.cancel_reason]),
    [
      ['IN_PROGRESS', null],
      ['CANCELLED', 'Schedule paused'],
      ['CANCELLED', 'Schedule paused'],
    ],
  );
  assert.is((await refusal(transitionSchedule(deps, owner, { scheduleId: made.id, action: 'pause' }))).code, 'INVALID_TRANSITION');

  // paused for 4 days: nothing is made, and resuming does not make up for them
  deps.clock.set(new Date(START.getTime() + 4 * DAY));
  await materialiseSchedules(deps);
  assert.is((await jobsOf(deps, template.templateId)).length, 3);
  await transitionSchedule(deps, owner, { scheduleId: made.id, action: 'resume' });
  await materialiseSchedules(deps);
  jobs = await jobsOf(deps, template.templateId);
  const resumedAt = deps.clock.now().getTime();
  assert.is(jobs.length, 6);
  assert.ok(jobs.slice(3).every((j) => Date.parse(j.occurs_at!) > resumedAt && j.state === 'OPEN'));

  // edit: a new title and time; the untouched jobs ahead are withdrawn and made anew from the edit
  const edited = await updateSchedule(deps, owner, {
    scheduleId: made.id,
    title: 'Daily check',
    startsAt: made.starts_at.slice(0, 11) + '18:30',
    expectedRevision: 3,
  });
  assert.is(edited.title, 'Daily check');
  assert.is((await refusal(updateSchedule(deps, owner, { scheduleId: made.id, title: 'Stale', expectedRevision: 3 }))).code, 'CONFLICT');
  await materialiseSchedules(deps);
  jobs = await jobsOf(deps, template.templateId);
  const open = jobs.filter((j) => j.state === 'OPEN');
  assert.is(open.length, 3);
  assert.ok(
    open.every((j) => j.title === 'Daily check' && j.occurs_at!.endsWith('T18:30:00.000Z')),
    JSON.stringify(open),
  );
  assert.is(jobs.filter((j) => j.cancel_reason === 'Schedule changed').length, 3);
  assert.is(jobs[0].state, 'IN_PROGRESS');

  // delete: its open jobs ahead withdrawn, nothing more made; the started one stays
  await deleteSchedule(deps, owner, { scheduleId: made.id });
  deps.clock.advance(2 * DAY);
  await materialiseSchedules(deps);
  jobs = await jobsOf(deps, template.templateId);
  assert.is(jobs.filter((j) => j.state === 'OPEN').length, 0);
  assert.is(jobs[0].state, 'IN_PROGRESS');

  const audit = await listAuditEntries(deps.db.kysely, owner.scope, { entityType: 'schedule', entityId: String(made.id) }, { limit: 50 });
  assert.equal(
    audit.items.map((e) => e.action),
    ['schedule.created', 'schedule.paused', 'schedule.resumed', 'schedule.updated', 'schedule.deleted'],
  );
  assert.ok(audit.items.every((e) => e.actor === `user:${owner.userId} ${owner.email}`));
  const updated = audit.items.find((e) => e.action === 'schedule.updated')!;
  assert.equal([JSON.parse(updated.before!).title, JSON.parse(updated.after!).title], ['Weekly check', 'Daily check']);
  assert.is(JSON.parse(updated.after!).withdrawnJobIds.length, 3);
  assert.is((await verifyAuditChain(deps.db.kysely, client.id)).broken, null);
});

test("an asset-class schedule makes one job per asset of the class; a team schedule assigns the team's members who run jobs", async ({
  deps,
}) => {
  const { owner, user, schedule, template } = await planned(deps);
  const pumps = await createAssetClass(deps, owner, { name: 'Pumps' });
  const inClass = [];
  for (const name of ['P1', 'P2']) inClass.push((await createAsset(deps, owner, { name, assetClassId: pumps.id })).id);
  await createAsset(deps, owner, { name: 'Not a pump' });
  const team = await createOrganization(deps, owner, { name: 'Night shift' });
  const member = await user(['operator']);
  const outsider = await user(['operator']);
  const author = await user(['author']);
  for (const who of [member, author]) await updateUser(deps, owner.scope, { id: who.userId, availableToOrg: [team.id] }, BY_TEST);
  await schedule({ title: 'Pump round', assetClassId: pumps.id, teamId: team.id, recurrence: 'FREQ=WEEKLY', priority: 'HIGH' });
  await materialiseSchedules(deps);
  const jobs = await jobsOf(deps, template.templateId);
  assert.equal(jobs.map((j) => j.asset_id).sort(), [...inClass].sort());
  assert.ok(jobs.every((j) => j.priority === 'HIGH'));
  const members = await deps.db.kysely
    .selectFrom('job_members')
    .select(['job_id', 'user_id', 'kind'])
    .where(
      'job_id',
      'in',
      jobs.map((j) => j.id),
    )
    .execute();
  assert.equal(
    members.map((m) => [m.user_id, m.kind]),
    jobs.map(() => [member.userId, 'ASSIGNEE']),
    `the operator of the team only (not ${outsider.userId}, nor the team's author)`,
  );
});

test('a definition is refused naming its field: the rule, the start, an asset and a class at once, a rule more often than hourly (on edit too)', async ({
  deps,
}) => {
  const { owner, schedule } = await planned(deps);
  const pumps = await createAssetClass(deps, owner, { name: 'Pumps' });
  const asset = await createAsset(deps, owner, { name: 'P1' });
  const every = Array.from({ length: 60 }, (_, i) => i).join(',');
  const cases: [Partial<CreateScheduleInput>, string, string?][] = [
    [{ recurrence: 'FREQ=MINUTELY' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'FREQ=SOMETIMES' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: `FREQ=HOURLY;BYMINUTE=${every};BYSECOND=${every}` }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'FREQ=DAILY;BYMINUTE=0,30' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'FREQ=HOURLY;INTERVAL=24;BYHOUR=1' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ recurrence: 'FREQ=HOURLY;COUNT=5000' }, 'VALIDATION_ERROR', 'recurrence'],
    [{ startsAt: '2026-02-30T08:00' }, 'VALIDATION_ERROR', 'startsAt'],
    [{ startsAt: 'tomorrow' }, 'VALIDATION_ERROR', 'startsAt'],
    [{ assetId: asset.id, assetClassId: pumps.id }, 'VALIDATION_ERROR', 'assetClassId'],
    [{ assetId: 999_999 }, 'NOT_FOUND'],
    [{ templateId: 999_999 }, 'NOT_FOUND'],
  ];
  // each refused naming its field, with nothing saved and no signal to the worker
  for (const [input, code, path] of cases) {
    const started = performance.now();
    await play(deps, null, {
      when: () => schedule({ startsAt: '2026-07-01T08:00', ...input }),
      then: { error: { code, ...(path && { details: { fields: [{ path }] } }) } },
    }).catch((error: Error) => {
      throw new Error(`${JSON.stringify(input)}: ${error.message}`);
    });
    // bounded work: a rule the library would walk for long is refused before
    assert.ok(performance.now() - started < 5000, `${JSON.stringify(input)}: ${Math.round(performance.now() - started)} ms`);
  }

  const made = await schedule({ recurrence: 'FREQ=HOURLY;BYMINUTE=15' });
  const edit = await refusal(updateSchedule(deps, owner, { scheduleId: made.id, recurrence: 'FREQ=HOURLY;BYMINUTE=15,45' }));
  assert.is(edit.code, 'VALIDATION_ERROR');
  const row = await deps.db.kysely.selectFrom('schedules').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
  assert.equal([row.rrule, row.revision], ['FREQ=HOURLY;BYMINUTE=15', 1]);
});

test("the preview: a rule's next occurrences in the client's zone (from now for a start long past), createSchedule's refusals, nothing saved", async ({
  deps,
}) => {
  const { client, owner } = await planned(deps);
  await updateClient(deps, client.id, { timeZone: 'Europe/Berlin' }, BY_TEST);
  const preview = (recurrence: string, startsAt: string, count = 4) => previewSchedule(deps, owner, { recurrence, startsAt }, count);
  // weekdays at 07:00 Berlin (winter: 06:00Z) from Monday 7 January 2030
  const weekdays = await preview('RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR', '2030-01-07T07:00');
  assert.is(weekdays.timeZone, 'Europe/Berlin');
  assert.equal(
    weekdays.instants.map((d) => d.toISOString()),
    ['2030-01-07T06:00:00.000Z', '2030-01-09T06:00:00.000Z', '2030-01-11T06:00:00.000Z', '2030-01-14T06:00:00.000Z'],
  );
  // a start long past: the next ones from now on, at 07:00 on Berlin's wall clock (summer: 05:00Z)
  const daily = await preview('FREQ=DAILY', '2020-01-01T07:00', 2);
  assert.equal(
    daily.instants.map((d) => d.toISOString()),
    ['2026-06-01T05:00:00.000Z', '2026-06-02T05:00:00.000Z'],
  );
  const cases: [string, string, string][] = [
    ['FREQ=MINUTELY', '2026-07-01T08:00', 'recurrence'],
    ['FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', '2026-07-01T08:00', 'recurrence'],
    ['FREQ=DAILY', '2026-02-30T08:00', 'startsAt'],
  ];
  for (const [recurrence, startsAt, path] of cases) {
    const refused = await refusal(preview(recurrence, startsAt));
    assert.equal(
      [refused.code, (refused.details?.fields as { path: string }[]).map((f) => f.path)],
      ['VALIDATION_ERROR', [path]],
      recurrence,
    );
  }
  assert.is((await deps.db.kysely.selectFrom('schedules').select('id').execute()).length, 0, 'a preview saves nothing');
});

test.run();
