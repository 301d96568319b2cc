import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '#lib/clock';
import { EXPANSION_STEPS, REQUEST_EXPANSION_STEPS } from '#domain/recurrence';
import { tenantScope } from '#db/tenant';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { startTestServer, TEST_BACKEND, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { createAsset, DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// Recurring jobs (docs/recurring-and-follow-up-jobs.md), through real HTTP on both databases. The test
// moves each server's clock and runs the worker's round itself (deps.schedules.tick(), what the daemon's timer
// does): occurrences are then exactly those of the clock, whatever the machine's time. On PostgreSQL two nodes
// share the database; on SQLite the one node restarts.

const HORIZON = '3d';
// the clocks move by days and weeks: sessions outlive that (their expiry is no subject here)
const ENV = {
  ...DOMAIN_TEST_ENV,
  WIP_SCHEDULE_HORIZON: HORIZON,
  WIP_SCHEDULE_POLL_INTERVAL: '1h',
  WIP_ACCESS_TOKEN_TTL: '365d',
  WIP_SESSION_IDLE_TTL: '365d',
  WIP_REFRESH_TOKEN_TTL: '365d',
};
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const SIMPLE_CONTENT = {
  sections: [
    {
      id: 's',
      title: 'Inspect',
      steps: [{ id: 'look', title: 'Look at the pump', fields: [{ key: 'note', label: 'Note', type: 'TEXT' }] }],
    },
  ],
};

function ok<T = any>(result: { data: any; errors?: unknown; codes: string[] }, what: string): T {
  assert.equal(result.codes, [], `${what}: ${JSON.stringify(result.errors)}`);
  return result.data;
}

async function setTimeZone(server: TestServer, client: BuiltClient, timeZone: string): Promise<void> {
  const res = await server.request('PUT', `/api/admin/client/${client.id}`, { token: await adminToken(server), body: { timeZone } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.timeZone, timeZone);
}

const SCHEDULE_FIELDS = 'id databaseId title state revision recurrence startsAt timeZone missedOccurrences generatedUntil';
const CREATE = `mutation($i: CreateScheduleInput!) { createSchedule(input: $i) { revision schedule { ${SCHEDULE_FIELDS} } } }`;
const OCCURRENCES = `query { schedules(first: 10) { nodes { databaseId occurrences(first: 100) { totalCount nodes { occursAt status reason job { databaseId title state dueAt scheduledFor schedule { databaseId } } } } } } }`;

async function createSchedule(server: TestServer, token: string, input: Record<string, unknown>): Promise<any> {
  return ok(await gql(server, token, CREATE, { i: input }), 'createSchedule').createSchedule.schedule;
}

/** Every occurrence of the client's schedules, by schedule id. */
async function occurrences(server: TestServer, token: string): Promise<Map<number, any[]>> {
  const data = ok(await gql(server, token, OCCURRENCES), 'schedules');
  return new Map(data.schedules.nodes.map((s: any) => [s.databaseId, s.occurrences.nodes]));
}

async function jobsOfTemplate(server: TestServer, token: string, templateId: number): Promise<any[]> {
  const data = ok(
    await gql(
      server,
      token,
      `query($t: ID!) { jobs(first: 200, filter: { templateId: $t }) { nodes { databaseId title state scheduledFor cancelReason asset { databaseId } assignees { databaseId } } } }`,
      { t: gid('Template', templateId) },
    ),
    'jobs',
  );
  return data.jobs.nodes;
}

const iso = (text: string) => new Date(text).toISOString();

// ── a daylight-saving change, two nodes, a restart ─────────────────────────

const dst = suite(
  `schedules across a daylight-saving change: exactly once with ${TEST_BACKEND === 'postgres' ? 'two nodes and a restart' : 'a restart'}`,
);

dst('a daily 07:00 schedule in Europe/Berlin across the spring change makes one job per day at 06:00Z, then 05:00Z — once', async () => {
  const start = new Date('2026-03-25T12:00:00Z');
  let a = await startTestServer({ env: ENV, clock: new ManualClock(start) });
  let b: TestServer | undefined;
  try {
    const client = await buildClient(a, { seats: { full: 10, connect: 5 } });
    await setTimeZone(a, client, 'Europe/Berlin');
    const template = await publishedTemplate(a, client, SIMPLE_CONTENT);
    const operator = await buildUser(a, client, { roles: ['operator'] });
    const schedule = await createSchedule(a, client.owner.token, {
      title: 'Daily pump walk',
      templateId: gid('Template', template.templateId),
      recurrence: 'FREQ=DAILY',
      startsAt: '2026-03-26T07:00',
      assigneeIds: [gid('User', operator.id)],
      dueOffsetMinutes: 120,
    });
    assert.is(schedule.timeZone, 'Europe/Berlin');
    assert.is(schedule.state, 'ACTIVE');
    const next = ok(
      await gql(a, client.owner.token, `query($id: ID!) { node(id: $id) { ... on Schedule { nextOccurrences(first: 6) } } }`, {
        id: schedule.id,
      }),
      'nextOccurrences',
    );
    const expected = [
      '2026-03-26T06:00:00Z',
      '2026-03-27T06:00:00Z',
      '2026-03-28T06:00:00Z',
      '2026-03-29T05:00:00Z',
      '2026-03-30T05:00:00Z',
      '2026-03-31T05:00:00Z',
    ].map(iso);
    assert.equal(next.node.nextOccurrences, expected, 'the wall clock stays at 07:00: UTC moves an hour on 29 March');

    // round 1 (the horizon: 3 days ahead): 26, 27, 28 March; a second round changes nothing
    await a.deps.schedules.tick();
    await a.deps.schedules.tick();
    let seen = (await occurrences(a, client.owner.token)).get(schedule.databaseId)!;
    assert.equal(
      seen.map((o) => o.occursAt),
      expected.slice(0, 3),
    );

    // two days later, on two nodes at once (PostgreSQL) or after a restart (SQLite): 29 and 30 March, once
    const later = new Date(start.getTime() + 2 * DAY);
    if (TEST_BACKEND === 'postgres') {
      b = await startTestServer({
        env: { ...ENV, WIP_DATABASE_URL: a.deps.config.databaseUrl!, WIP_MASTER_KEY: TEST_MASTER_KEY },
        license: 'evaluation',
        clock: new ManualClock(later),
      });
      a.clock.set(later);
      await Promise.all([a.deps.schedules.tick(), b.deps.schedules.tick(), a.deps.schedules.tick(), b.deps.schedules.tick()]);
    } else {
      await a.stop({ keepData: true });
      a = await startTestServer({ env: ENV, dataDir: a.dataDir, clock: new ManualClock(later) });
      await a.deps.schedules.tick();
    }
    seen = (await occurrences(a, client.owner.token)).get(schedule.databaseId)!;
    assert.equal(
      seen.map((o) => o.occursAt),
      expected.slice(0, 5),
    );

    // a restart of node A (both databases) a day later: 31 March, once
    const dataDir = a.dataDir;
    await a.stop({ keepData: true });
    a = await startTestServer({ env: ENV, dataDir, clock: new ManualClock(new Date(later.getTime() + DAY)) });
    await a.deps.schedules.tick();
    if (b) {
      b.clock.set(new Date(later.getTime() + DAY));
      await b.deps.schedules.tick();
    }
    seen = (await occurrences(a, client.owner.token)).get(schedule.databaseId)!;
    assert.equal(
      seen.map((o) => o.occursAt),
      expected,
    );
    assert.ok(seen.every((o) => o.status === 'CREATED' && o.job));
    // each job is the schedule's, due two hours after its occurrence, assigned as the schedule says
    for (const o of seen) {
      assert.is(o.job.schedule.databaseId, schedule.databaseId);
      assert.is(o.job.scheduledFor, o.occursAt);
      assert.is(o.job.dueAt, new Date(Date.parse(o.occursAt) + 2 * HOUR).toISOString());
    }
    const jobs = await jobsOfTemplate(a, client.owner.token, template.templateId);
    assert.is(jobs.length, 6, 'one job per occurrence, none twice');
    assert.ok(jobs.every((j) => j.title === 'Daily pump walk' && j.assignees.length === 1 && j.assignees[0].databaseId === operator.id));
    // each job's creation is in the client's audit chain, by the schedule, and the chain holds
    const created = await listAuditEntries(a.deps.db.kysely, tenantScope(client.id), { entityType: 'job' }, { limit: 50 });
    assert.is(created.items.filter((e) => e.action === 'job.created' && e.actor === `schedule:${schedule.databaseId}`).length, 6);
    assert.is((await verifyAuditChain(a.deps.db.kysely, client.id)).broken, null);
  } finally {
    await a.stop();
    await b?.stop();
  }
});

dst.run();

// ── gaps, pause, edit, delete, assets and teams ─────────────────────────────

let server: TestServer;
const life = suite('schedules: missed occurrences, pause, edit, delete (audited), asset classes and teams, refusals');
life.before(async () => {
  server = await startTestServer({ env: ENV, clock: new ManualClock(new Date('2026-06-01T00:00:00Z')) });
});
life.after(async () => server.stop());

async function setup() {
  const client = await buildClient(server, { seats: { full: 10, connect: 5 } });
  const template = await publishedTemplate(server, client, SIMPLE_CONTENT);
  return { client, template };
}

life(
  'after a gap (the daemon down for days) missed occurrences are created or skipped, as each schedule says; the rest as usual',
  async () => {
    const { client, template } = await setup();
    const now = server.clock.now();
    const startsAt = new Date(now.getTime() + 12 * HOUR).toISOString().slice(0, 16);
    const make = (missedOccurrences: string) =>
      createSchedule(server, client.owner.token, {
        title: `Gap ${missedOccurrences}`,
        templateId: gid('Template', template.templateId),
        recurrence: 'FREQ=DAILY',
        startsAt,
        missedOccurrences,
      });
    const creating = await make('CREATE');
    const skipping = await make('SKIP');
    await server.deps.schedules.tick();
    const before = await occurrences(server, client.owner.token);
    assert.is(before.get(creating.databaseId)!.length, 3);
    assert.is(before.get(skipping.databaseId)!.length, 3);

    // 6 days without a round: the occurrences of days 4 to 6 have passed when the next round runs
    server.clock.set(new Date(now.getTime() + 6 * DAY));
    await server.deps.schedules.tick();
    const after = await occurrences(server, client.owner.token);
    const created = after.get(creating.databaseId)!;
    const skipped = after.get(skipping.databaseId)!;
    assert.is(created.length, 9, '3 before, 3 missed and created, 3 within the horizon');
    assert.ok(created.every((o) => o.status === 'CREATED' && o.job));
    assert.equal(
      skipped.map((o) => [o.status, o.reason]),
      [...Array(3).fill(['CREATED', null]), ...Array(3).fill(['SKIPPED', 'MISSED']), ...Array(3).fill(['CREATED', null])],
    );
    assert.ok(skipped.filter((o) => o.status === 'SKIPPED').every((o) => o.job === null));
  },
);

life(
  "an occurrence handled once is never made again, even when the schedule's mark goes back (a database restored from an older backup, a node with a stale view)",
  async () => {
    const { client, template } = await setup();
    const now = server.clock.now();
    const schedule = await createSchedule(server, client.owner.token, {
      title: 'Once only',
      templateId: gid('Template', template.templateId),
      recurrence: 'FREQ=HOURLY;INTERVAL=12',
      startsAt: new Date(now.getTime() + HOUR).toISOString().slice(0, 16),
      missedOccurrences: 'CREATE',
    });
    await server.deps.schedules.tick();
    const first = await jobsOfTemplate(server, client.owner.token, template.templateId);
    assert.is(first.length, 6);
    // the mark back to before the first occurrence: only the occurrences' unique key stands between them and a second job
    await server.deps.db.kysely
      .updateTable('schedules')
      .set({ generated_until: now.toISOString() })
      .where('id', '=', schedule.databaseId)
      .execute();
    await server.deps.schedules.tick();
    const again = await jobsOfTemplate(server, client.owner.token, template.templateId);
    assert.equal(
      again.map((j) => j.databaseId),
      first.map((j) => j.databaseId),
    );
    assert.is((await occurrences(server, client.owner.token)).get(schedule.databaseId)!.length, 6);
  },
);

life(
  'pause withdraws the untouched jobs ahead and makes none; resume goes on from now; edit changes only what is to come; delete ends it — each audited',
  async () => {
    const { client, template } = await setup();
    const token = client.owner.token;
    const operator = await buildUser(server, client, { roles: ['operator'] });
    const now = server.clock.now();
    const schedule = await createSchedule(server, token, {
      title: 'Weekly check',
      templateId: gid('Template', template.templateId),
      recurrence: 'FREQ=DAILY',
      startsAt: new Date(now.getTime() + HOUR).toISOString().slice(0, 16),
    });
    await server.deps.schedules.tick();
    let jobs = await jobsOfTemplate(server, token, template.templateId);
    assert.is(jobs.length, 3);
    // the operator starts the first job: touched, it stays whatever happens to the schedule
    const first = jobs[0];
    ok(
      await gql(server, operator.token, 'mutation($j: ID!) { startJob(input: { jobId: $j }) { job { state } } }', {
        j: gid('Job', first.databaseId),
      }),
      'startJob',
    );

    const paused = ok(
      await gql(server, token, 'mutation($s: ID!) { pauseSchedule(input: { scheduleId: $s }) { revision schedule { state } } }', {
        s: schedule.id,
      }),
      'pause',
    );
    assert.is(paused.pauseSchedule.schedule.state, 'PAUSED');
    jobs = await jobsOfTemplate(server, token, template.templateId);
    assert.equal(
      jobs.map((j) => j.state),
      ['IN_PROGRESS', 'CANCELLED', 'CANCELLED'],
    );
    assert.is(jobs[1].cancelReason, 'Schedule paused');
    const again = await gql(server, token, 'mutation($s: ID!) { pauseSchedule(input: { scheduleId: $s }) { schedule { state } } }', {
      s: schedule.id,
    });
    assert.equal(again.codes, ['INVALID_TRANSITION']);

    // paused for 4 days: nothing is made, and resuming does not make up for them
    server.clock.set(new Date(now.getTime() + 4 * DAY));
    await server.deps.schedules.tick();
    assert.is((await jobsOfTemplate(server, token, template.templateId)).length, 3);
    ok(
      await gql(server, token, 'mutation($s: ID!) { resumeSchedule(input: { scheduleId: $s }) { schedule { state } } }', {
        s: schedule.id,
      }),
      'resume',
    );
    await server.deps.schedules.tick();
    jobs = await jobsOfTemplate(server, token, template.templateId);
    const resumedFrom = server.clock.now().getTime();
    assert.is(jobs.length, 6);
    assert.ok(jobs.slice(3).every((j) => Date.parse(j.scheduledFor) > resumedFrom && j.state === 'OPEN'));

    // edit: a new title and time; the untouched jobs ahead are withdrawn and made anew from the edit
    const edited = await gql(
      server,
      token,
      `mutation($i: UpdateScheduleInput!) { updateSchedule(input: $i) { revision schedule { title startsAt revision } } }`,
      {
        i: { scheduleId: schedule.id, title: 'Daily check', startsAt: schedule.startsAt.slice(0, 11) + '18:30', expectedRevision: 3 },
      },
    );
    assert.equal(edited.codes, [], JSON.stringify(edited.errors));
    assert.is(edited.data.updateSchedule.schedule.title, 'Daily check');
    const stale = await gql(server, token, `mutation($i: UpdateScheduleInput!) { updateSchedule(input: $i) { revision } }`, {
      i: { scheduleId: schedule.id, title: 'Stale', expectedRevision: 3 },
    });
    assert.equal(stale.codes, ['CONFLICT']);
    await server.deps.schedules.tick();
    jobs = await jobsOfTemplate(server, token, template.templateId);
    const open = jobs.filter((j) => j.state === 'OPEN');
    assert.is(open.length, 3);
    assert.ok(
      open.every((j) => j.title === 'Daily check' && j.scheduledFor.endsWith('T18:30:00.000Z')),
      JSON.stringify(open),
    );
    assert.is(jobs.filter((j) => j.cancelReason === 'Schedule changed').length, 3);
    assert.is(jobs[0].state, 'IN_PROGRESS');

    // delete: gone from the list; its open jobs ahead withdrawn; the started one stays and still names it
    const deleted = ok(
      await gql(server, token, 'mutation($s: ID!) { deleteSchedule(input: { scheduleId: $s }) { deletedScheduleId } }', { s: schedule.id }),
      'delete',
    );
    assert.is(deleted.deleteSchedule.deletedScheduleId, schedule.id);
    const listed = ok(await gql(server, token, 'query { schedules { totalCount } }'), 'schedules');
    assert.is(listed.schedules.totalCount, 0);
    server.clock.set(new Date(server.clock.now().getTime() + 2 * DAY));
    await server.deps.schedules.tick();
    jobs = await jobsOfTemplate(server, token, template.templateId);
    assert.is(jobs.filter((j) => j.state === 'OPEN').length, 0);
    const firstNow = ok(
      await gql(server, token, 'query($j: ID!) { job(id: $j) { schedule { databaseId title } } }', { j: gid('Job', first.databaseId) }),
      'job',
    );
    assert.is(firstNow.job.schedule.databaseId, schedule.databaseId);

    const audit = await listAuditEntries(
      server.deps.db.kysely,
      tenantScope(client.id),
      { entityType: 'schedule', entityId: String(schedule.databaseId) },
      { limit: 50 },
    );
    assert.equal(
      audit.items.map((e) => e.action),
      ['schedule.created', 'schedule.paused', 'schedule.resumed', 'schedule.updated', 'schedule.deleted'],
    );
    assert.ok(audit.items.every((e) => e.actor === `user:${client.owner.id} ${client.owner.email}`));
    const updated = audit.items.find((e) => e.action === 'schedule.updated')!;
    assert.is(JSON.parse(updated.before!).title, 'Weekly check');
    assert.is(JSON.parse(updated.after!).title, 'Daily check');
    assert.is(JSON.parse(updated.after!).withdrawnJobIds.length, 3);
    assert.is((await verifyAuditChain(server.deps.db.kysely, client.id)).broken, null);
  },
);

life(
  "an asset-class schedule makes one job per asset of the class; a team schedule assigns the organization's members who run jobs",
  async () => {
    const { client, template } = await setup();
    const token = client.owner.token;
    const klass = ok(
      await gql(server, token, 'mutation { createAssetClass(input: { name: "Pumps" }) { assetClass { id databaseId } } }'),
      'class',
    ).createAssetClass.assetClass;
    const pumps = [];
    for (const name of ['P1', 'P2']) {
      pumps.push(
        ok(
          await gql(server, token, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { databaseId } } }', {
            i: { name, assetClassId: klass.id },
          }),
          'asset',
        ).createAsset.asset.databaseId,
      );
    }
    await createAsset(server, token, 'Not a pump');
    const team = ok(
      await gql(server, token, 'mutation { createOrganization(input: { name: "Night shift" }) { organization { id databaseId } } }'),
      'org',
    ).createOrganization.organization;
    const member = await buildUser(server, client, { roles: ['operator'] });
    const outsider = await buildUser(server, client, { roles: ['operator'] });
    const author = await buildUser(server, client, { roles: ['author'] });
    for (const user of [member, author]) {
      const res = await server.request('PUT', '/api/admin/user', { token, body: { id: user.id, availableToOrg: [team.databaseId] } });
      assert.is(res.status, 200, res.text);
    }
    const now = server.clock.now();
    await createSchedule(server, token, {
      title: 'Pump round',
      templateId: gid('Template', template.templateId),
      assetClassId: klass.id,
      teamId: team.id,
      recurrence: 'FREQ=WEEKLY',
      startsAt: new Date(now.getTime() + HOUR).toISOString().slice(0, 16),
      priority: 'HIGH',
    });
    await server.deps.schedules.tick();
    const jobs = await jobsOfTemplate(server, token, template.templateId);
    assert.equal(jobs.map((j) => j.asset.databaseId).sort(), [...pumps].sort());
    assert.ok(
      jobs.every((j) => j.assignees.length === 1 && j.assignees[0].databaseId === member.id),
      `${JSON.stringify(jobs)} (not ${outsider.id})`,
    );
  },
);

life('bad schedules are refused with the field named; a pinned version must be published; other roles are refused', async () => {
  const { client, template } = await setup();
  const token = client.owner.token;
  const base = { title: 'X', templateId: gid('Template', template.templateId), recurrence: 'FREQ=DAILY', startsAt: '2026-07-01T08:00' };
  const refused = async (input: Record<string, unknown>, code: string, path?: string) => {
    const result = await gql(server, token, CREATE, { i: { ...base, ...input } });
    assert.equal(result.codes, [code], JSON.stringify(result.errors));
    if (path)
      assert.ok(JSON.stringify(result.errors![0].extensions?.details).includes(`"${path}"`), `${path}: ${JSON.stringify(result.errors)}`);
  };
  await refused({ recurrence: 'FREQ=MINUTELY' }, 'VALIDATION_ERROR', 'recurrence');
  await refused({ recurrence: 'FREQ=SOMETIMES' }, 'VALIDATION_ERROR', 'recurrence');
  await refused({ recurrence: 'DTSTART:20260101T000000Z\nRRULE:FREQ=DAILY' }, 'VALIDATION_ERROR', 'recurrence');
  await refused({ startsAt: '2026-02-30T08:00' }, 'VALIDATION_ERROR', 'startsAt');
  await refused({ startsAt: 'tomorrow' }, 'VALIDATION_ERROR', 'startsAt');
  await refused({ assetId: gid('Asset', 999999) }, 'NOT_FOUND');
  await refused({ templateId: gid('Template', 999999) }, 'NOT_FOUND');
  const pumps = ok(await gql(server, token, 'mutation { createAssetClass(input: { name: "Pumps" }) { assetClass { id } } }'), 'class')
    .createAssetClass.assetClass;
  const asset = await createAsset(server, token);
  await refused({ assetId: gid('Asset', asset), assetClassId: pumps.id }, 'VALIDATION_ERROR', 'assetClassId');
  const pinned = await gql(server, token, CREATE, { i: { ...base, versionId: gid('TemplateVersion', template.versionId) } });
  assert.equal(pinned.codes, []);
  const bad = await setTimeZoneRefused(client);
  assert.is(bad, 422);
  const viewer = await buildUser(server, client, { roles: ['viewer'] });
  const asViewer = await gql(server, viewer.token, CREATE, { i: base });
  assert.equal(asViewer.codes, ['FORBIDDEN']);
  // another client's schedule is not found
  const other = await buildClient(server);
  const theirs = await gql(
    server,
    other.owner.token,
    'mutation($s: ID!) { pauseSchedule(input: { scheduleId: $s }) { schedule { state } } }',
    { s: pinned.data.createSchedule.schedule.id },
  );
  assert.equal(theirs.codes, ['NOT_FOUND']);
});

life(
  "schedulePreview: a rule's next occurrences before saving, in the client's zone, with createSchedule's refusals; nothing saved",
  async () => {
    const { client } = await setup();
    await setTimeZone(server, client, 'Europe/Berlin');
    const token = client.owner.token;
    const PREVIEW =
      'query($r: String!, $s: String!, $n: Int) { schedulePreview(recurrence: $r, startsAt: $s, first: $n) { timeZone occurrences } }';
    // weekdays at 07:00 Berlin (winter: 06:00Z) from Monday 7 January 2030
    const weekdays = await gql(server, token, PREVIEW, { r: 'RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR', s: '2030-01-07T07:00', n: 4 });
    assert.equal(ok(weekdays, 'preview').schedulePreview, {
      timeZone: 'Europe/Berlin',
      occurrences: ['2030-01-07T06:00:00.000Z', '2030-01-09T06:00:00.000Z', '2030-01-11T06:00:00.000Z', '2030-01-14T06:00:00.000Z'],
    });
    // a start long past: the next ones from now on, at 07:00 on Berlin's wall clock
    const now = server.clock.now().getTime();
    const daily = ok(await gql(server, token, PREVIEW, { r: 'FREQ=DAILY', s: '2020-01-01T07:00', n: 2 }), 'daily');
    const [first, second] = (daily.schedulePreview.occurrences as string[]).map((at) => new Date(at));
    assert.ok(first.getTime() > now && first.getTime() <= now + DAY, `${first.toISOString()} is the next one`);
    assert.is(first.toLocaleTimeString('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit' }), '07:00');
    assert.is(second.getTime() - first.getTime(), DAY);
    const refusedAt = async (r: string, s: string, path: string) => {
      const result = await gql(server, token, PREVIEW, { r, s });
      assert.equal(result.codes, ['VALIDATION_ERROR'], `${r}: ${JSON.stringify(result.errors)}`);
      assert.equal(
        (result.errors![0].extensions!.details as { fields: { path: string }[] }).fields.map((f) => f.path),
        [path],
      );
    };
    await refusedAt('FREQ=MINUTELY', '2026-07-01T08:00', 'recurrence');
    await refusedAt('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30', '2026-07-01T08:00', 'recurrence');
    await refusedAt('FREQ=DAILY', '2026-02-30T08:00', 'startsAt');
    const viewer = await buildUser(server, client, { roles: ['viewer'] });
    assert.equal((await gql(server, viewer.token, PREVIEW, { r: 'FREQ=DAILY', s: '2026-07-01T08:00' })).codes, ['FORBIDDEN']);
    const none = ok(await gql(server, token, '{ schedules { totalCount } }'), 'schedules');
    assert.is(none.schedules.totalCount, 0, 'a preview saves nothing');
  },
);

async function setTimeZoneRefused(client: BuiltClient): Promise<number> {
  const res = await server.request('PUT', `/api/admin/client/${client.id}`, {
    token: await adminToken(server),
    body: { timeZone: 'Mars/Olympus_Mons' },
  });
  return res.status;
}

life.run();

// ── limits ───────────────────────────────────────────────────────

let limited: TestServer;
const limits = suite('schedules: rules at most hourly; jobs per round and per day limited, on the security log');
limits.before(async () => {
  limited = await startTestServer({
    env: {
      ...ENV,
      WIP_SCHEDULE_MAX_JOBS_PER_ROUND: '30',
      WIP_SCHEDULE_MAX_JOBS_PER_CLIENT_ROUND: '45',
      WIP_SCHEDULE_MAX_JOBS_PER_DAY: '40',
      WIP_SCHEDULE_RULE_RATE_LIMIT_MAX: '20',
    },
    clock: new ManualClock(new Date('2026-06-01T00:00:00Z')),
  });
});
limits.after(async () => limited.stop());

limits('a rule that recurs more often than hourly is VALIDATION_ERROR on recurrence, on create and edit; nothing is saved', async () => {
  const client = await buildClient(limited, { seats: { full: 10, connect: 5 } });
  const template = await publishedTemplate(limited, client, SIMPLE_CONTENT);
  const token = client.owner.token;
  const every = Array.from({ length: 60 }, (_, i) => i).join(',');
  const base = { title: 'X', templateId: gid('Template', template.templateId), startsAt: '2026-07-01T08:00' };
  for (const recurrence of [
    `FREQ=HOURLY;BYMINUTE=${every};BYSECOND=${every}`,
    'FREQ=DAILY;BYMINUTE=0,30',
    'FREQ=HOURLY;INTERVAL=24;BYHOUR=1',
    'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
    'FREQ=HOURLY;COUNT=5000',
  ]) {
    const started = Date.now();
    const result = await gql(limited, token, CREATE, { i: { ...base, recurrence } });
    assert.equal(result.codes, ['VALIDATION_ERROR'], recurrence);
    assert.equal(
      result.errors![0].extensions!.details.fields.map((f: { path: string }) => f.path),
      ['recurrence'],
      recurrence,
    );
    assert.ok(Date.now() - started < 5000, `${recurrence}: ${Date.now() - started} ms`);
  }
  const schedules = () => limited.deps.db.kysely.selectFrom('schedules').select('id').where('client_id', '=', client.id).execute();
  assert.is((await schedules()).length, 0);
  const made = await createSchedule(limited, token, { ...base, recurrence: 'FREQ=HOURLY;BYMINUTE=15' });
  const edit = await gql(
    limited,
    token,
    'mutation($i: UpdateScheduleInput!) { updateSchedule(input: $i) { schedule { recurrence revision } } }',
    { i: { scheduleId: made.id, recurrence: 'FREQ=HOURLY;BYMINUTE=15,45' } },
  );
  assert.equal(edit.codes, ['VALIDATION_ERROR']);
  const row = await limited.deps.db.kysely.selectFrom('schedules').selectAll().where('id', '=', made.databaseId).executeTakeFirstOrThrow();
  assert.equal([row.rrule, row.revision], ['FREQ=HOURLY;BYMINUTE=15', 1]);
});

limits('an hourly schedule of five pumps: 30 jobs a round, 40 for any 24 hours; the rest SKIPPED (DAILY_LIMIT); both logged', async () => {
  const client = await buildClient(limited, { seats: { full: 10, connect: 5 } });
  const template = await publishedTemplate(limited, client, SIMPLE_CONTENT);
  const token = client.owner.token;
  const pumps = ok(await gql(limited, token, 'mutation { createAssetClass(input: { name: "Pumps" }) { assetClass { id } } }'), 'class')
    .createAssetClass.assetClass.id;
  for (let i = 1; i <= 5; i++)
    ok(
      await gql(limited, token, 'mutation($i: CreateAssetInput!) { createAsset(input: $i) { asset { id } } }', {
        i: { name: `Pump ${i}`, serialNumber: `P-${i}`, assetClassId: pumps },
      }),
      'createAsset',
    );
  const startsAt = new Date(limited.clock.now().getTime() + HOUR).toISOString().slice(0, 16);
  const schedule = await createSchedule(limited, token, {
    title: 'Hourly pumps',
    templateId: gid('Template', template.templateId),
    assetClassId: pumps,
    recurrence: 'FREQ=HOURLY',
    startsAt,
  });
  const jobCount = async () => (await jobsOfTemplate(limited, token, template.templateId)).length;
  // 30 jobs a round (the creation kicks one too: the security events below count them)
  for (let round = 0; round < 6; round++) await limited.deps.schedules.tick();
  // three days of hourly occurrences (the horizon): 72, each its five jobs or its skip
  const OCCURRENCES_PAGE = `query($id: ID!, $after: String) { node(id: $id) { ... on Schedule { occurrences(first: 100, after: $after) {
    totalCount pageInfo { hasNextPage endCursor } nodes { occursAt status reason job { databaseId } } } } } }`;
  const rows: any[] = [];
  for (let after: string | null = null; ;) {
    const page: any = ok(await gql(limited, token, OCCURRENCES_PAGE, { id: schedule.id, after }), 'occurrences').node.occurrences;
    rows.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const created = rows.filter((o) => o.status === 'CREATED');
  const skipped = rows.filter((o) => o.status === 'SKIPPED');
  assert.is(new Set(rows.map((o) => o.occursAt)).size, 72);
  assert.is(created.length, 120, 'three days of 40');
  assert.ok(created.every((o) => o.job));
  assert.ok(skipped.length > 0 && skipped.every((o) => o.reason === 'DAILY_LIMIT' && o.job === null));
  assert.is(await jobCount(), 120);
  // the security log: the limits reached, the schedule as actor
  const admin = await adminToken(limited);
  const res = await limited.request(
    'GET',
    `/api/admin/logs?category=security&event=security.schedule_limit&clientId=${client.id}&limit=100`,
    {
      token: admin,
    },
  );
  assert.is(res.status, 200, res.text);
  const events = res.body.data.items as { level: string; data: { limit: string; scheduleId: number; skipped?: number } }[];
  const byLimit = (limit: string) => events.filter((e) => e.data.limit === limit);
  assert.ok(byLimit('scheduleMaxJobsPerRound').length > 0);
  assert.is(
    byLimit('scheduleMaxJobsPerDay').reduce((n, e) => n + e.data.skipped!, 0),
    skipped.length,
  );
  assert.ok(events.every((e) => e.level === 'warn' && e.data.scheduleId === schedule.databaseId));
});

limits(
  'a page of rarely occurring schedules shares one expansion budget: past it nextOccurrences is [] (or what was found) with EXPANSION_BUDGET_EXCEEDED on its path',
  async () => {
    const client = await buildClient(limited, { seats: { full: 10, connect: 5 } });
    const template = await publishedTemplate(limited, client, SIMPLE_CONTENT);
    const token = client.owner.token;
    // a leap day, walked day by day: after 2028-02-29 the next is in 2032, and the walk learns of its window's end
    // only at an occurrence, so each schedule's walk takes its whole EXPANSION_STEPS: five fill the request's budget
    const base = {
      templateId: gid('Template', template.templateId),
      startsAt: '2026-07-01T08:00',
      recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29',
    };
    const ids: string[] = [];
    for (let i = 0; i < 16; i++) ids.push((await createSchedule(limited, token, { ...base, title: `Leap ${i}` })).id);
    const answered = REQUEST_EXPANSION_STEPS / EXPANSION_STEPS;
    const PAGE = 'query { schedules(first: 20) { nodes { id nextOccurrences(first: 5) } } }';
    // the same answer interpreted and compiled (graphql-jit from the second run)
    for (let run = 1; run <= 3; run++) {
      const result = await gql(limited, token, PAGE);
      const nodes: { id: string; nextOccurrences: string[] }[] = result.data.schedules.nodes;
      assert.equal(
        nodes.map((node) => node.nextOccurrences),
        nodes.map((_, i) => (i < answered ? ['2028-02-29T08:00:00.000Z'] : [])),
        `run ${run}`,
      );
      assert.equal(
        result.errors!.map((e) => [e.extensions?.code, ...e.path!]),
        nodes.slice(answered).map((_, i) => ['EXPANSION_BUDGET_EXCEEDED', 'schedules', 'nodes', answered + i, 'nextOccurrences']),
        `run ${run}`,
      );
    }
    // the budget is the request's: one schedule alone answers in full
    const alone = await gql(limited, token, 'query($id: ID!) { node(id: $id) { ... on Schedule { nextOccurrences(first: 5) } } }', {
      id: ids[15],
    });
    assert.equal(alone.codes, []);
    assert.equal(alone.data.node.nextOccurrences, ['2028-02-29T08:00:00.000Z']);
  },
);

limits(
  'createSchedule and updateSchedule: at most scheduleRuleRateLimitMax per user and window, refused rules included; then RATE_LIMITED',
  async () => {
    const client = await buildClient(limited, { seats: { full: 10, connect: 5 } });
    const template = await publishedTemplate(limited, client, SIMPLE_CONTENT);
    const other = await buildUser(limited, client, { roles: ['admin'] });
    const base = { title: 'X', templateId: gid('Template', template.templateId), startsAt: '2026-07-01T08:00' };
    const never = { ...base, recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30' };
    for (let i = 0; i < 19; i++)
      assert.equal((await gql(limited, client.owner.token, CREATE, { i: never })).codes, ['VALIDATION_ERROR'], `${i}`);
    const made = await createSchedule(limited, client.owner.token, { ...base, recurrence: 'FREQ=WEEKLY' });
    const past = await gql(limited, client.owner.token, CREATE, { i: never });
    assert.equal(past.codes, ['RATE_LIMITED']);
    assert.ok(past.errors![0].extensions!.details.retryAfter >= 1, JSON.stringify(past.errors));
    const edit = await gql(limited, client.owner.token, 'mutation($i: UpdateScheduleInput!) { updateSchedule(input: $i) { revision } }', {
      i: { scheduleId: made.id, title: 'Y' },
    });
    assert.equal(edit.codes, ['RATE_LIMITED']);
    // the budget is the user's: another user of the client saves schedules
    const theirs = await gql(limited, other.token, CREATE, { i: { ...base, recurrence: 'FREQ=WEEKLY' } });
    assert.equal(theirs.codes, []);
  },
);

limits.run();
