import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '#lib/clock';
import { EXPANSION_STEPS, REQUEST_EXPANSION_STEPS } from '#domain/recurrence';
import { tenantScope } from '#db/tenant';
import { listAuditEntries, verifyAuditChain } from '#repos/audit';
import { startTestServer, TEST_BACKEND, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gid, gql } from '../helpers/graphql';
import { DOMAIN_TEST_ENV, publishedTemplate } from '../helpers/domain';

// Recurring jobs (docs/recurring-and-follow-up-jobs.md), through real HTTP on both databases. The test
// moves each server's clock and runs the worker's round itself (deps.schedules.tick(), what the daemon's timer
// does): occurrences are then exactly those of the clock, whatever the machine's time. On PostgreSQL two nodes
// share the database; on SQLite the one node restarts. The rules of occurrences, gaps, pausing, editing, assets and
// teams, definitions and limits: test/services/schedules.test.ts and schedule-limits.test.ts.

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
const life = suite('schedules: pause, resume, edit, delete, refusals and the preview (each operation once)');
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
  'pauseSchedule, resumeSchedule, updateSchedule and deleteSchedule: their answers, INVALID_TRANSITION, a stale revision is CONFLICT',
  async () => {
    // what each does to the jobs ahead, the occurrences and the audit chain: test/services/schedules.test.ts
    const { client, template } = await setup();
    const token = client.owner.token;
    const schedule = await createSchedule(server, token, {
      title: 'Weekly check',
      templateId: gid('Template', template.templateId),
      recurrence: 'FREQ=DAILY',
      startsAt: new Date(server.clock.now().getTime() + HOUR).toISOString().slice(0, 16),
    });
    assert.equal([schedule.state, schedule.revision, schedule.missedOccurrences], ['ACTIVE', 1, 'CREATE']);
    const paused = ok(
      await gql(server, token, 'mutation($s: ID!) { pauseSchedule(input: { scheduleId: $s }) { revision schedule { state } } }', {
        s: schedule.id,
      }),
      'pause',
    );
    assert.equal(paused.pauseSchedule, { revision: 2, schedule: { state: 'PAUSED' } });
    const again = await gql(server, token, 'mutation($s: ID!) { pauseSchedule(input: { scheduleId: $s }) { schedule { state } } }', {
      s: schedule.id,
    });
    assert.equal(again.codes, ['INVALID_TRANSITION']);
    const resumed = ok(
      await gql(server, token, 'mutation($s: ID!) { resumeSchedule(input: { scheduleId: $s }) { schedule { state } } }', {
        s: schedule.id,
      }),
      'resume',
    );
    assert.is(resumed.resumeSchedule.schedule.state, 'ACTIVE');

    const UPDATE = `mutation($i: UpdateScheduleInput!) { updateSchedule(input: $i) { revision schedule { title startsAt revision } } }`;
    const startsAt = schedule.startsAt.slice(0, 11) + '18:30';
    const edited = await gql(server, token, UPDATE, {
      i: { scheduleId: schedule.id, title: 'Daily check', startsAt, expectedRevision: 3 },
    });
    assert.equal(edited.codes, [], JSON.stringify(edited.errors));
    assert.equal(edited.data.updateSchedule, { revision: 4, schedule: { title: 'Daily check', startsAt, revision: 4 } });
    const stale = await gql(server, token, UPDATE, { i: { scheduleId: schedule.id, title: 'Stale', expectedRevision: 3 } });
    assert.equal(stale.codes, ['CONFLICT']);

    const deleted = ok(
      await gql(server, token, 'mutation($s: ID!) { deleteSchedule(input: { scheduleId: $s }) { deletedScheduleId } }', { s: schedule.id }),
      'delete',
    );
    assert.is(deleted.deleteSchedule.deletedScheduleId, schedule.id);
    const listed = ok(await gql(server, token, 'query { schedules { totalCount } }'), 'schedules');
    assert.is(listed.schedules.totalCount, 0);
  },
);

life(
  'createSchedule refused with the field named, a pinned version accepted; a bad time zone; other roles and clients refused',
  async () => {
    const { client, template } = await setup();
    const token = client.owner.token;
    const base = { title: 'X', templateId: gid('Template', template.templateId), recurrence: 'FREQ=DAILY', startsAt: '2026-07-01T08:00' };
    const refused = async (input: Record<string, unknown>, code: string, path?: string) => {
      const result = await gql(server, token, CREATE, { i: { ...base, ...input } });
      assert.equal(result.codes, [code], JSON.stringify(result.errors));
      if (path)
        assert.ok(JSON.stringify(result.errors![0].extensions?.details).includes(`"${path}"`), `${path}: ${JSON.stringify(result.errors)}`);
    };
    // every rule a definition must meet: test/services/schedules.test.ts
    await refused({ recurrence: 'FREQ=MINUTELY' }, 'VALIDATION_ERROR', 'recurrence');
    await refused({ templateId: gid('Template', 999999) }, 'NOT_FOUND');
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
  },
);

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
    // a start long past, and every refusal createSchedule shares: test/services/schedules.test.ts
    const refusedAt = await gql(server, token, PREVIEW, { r: 'FREQ=MINUTELY', s: '2026-07-01T08:00' });
    assert.equal(refusedAt.codes, ['VALIDATION_ERROR'], JSON.stringify(refusedAt.errors));
    assert.equal(
      (refusedAt.errors![0].extensions!.details as { fields: { path: string }[] }).fields.map((f) => f.path),
      ['recurrence'],
    );
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
// rules at most hourly and the jobs of a round and a day: test/services/schedules.test.ts and schedule-limits.test.ts
const limits = suite('schedules: the expansion budget of a request; the rate of rule changes');
limits.before(async () => {
  limited = await startTestServer({
    env: {
      ...ENV,
      WIP_SCHEDULE_RULE_RATE_LIMIT_MAX: '20',
    },
    clock: new ManualClock(new Date('2026-06-01T00:00:00Z')),
  });
});
limits.after(async () => limited.stop());

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
