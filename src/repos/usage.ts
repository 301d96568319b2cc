import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB, JobRow, StepRecordRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { bucketOf, type Period } from '#db/time-buckets';
import { dialectOf } from '#db/dialect';

/**
 * Usage aggregates of one client, counted in SQL: every query is a range scan
 * of an index that starts with (client_id, <timestamp>) (migration
 * 0010_reports) grouped by time bucket, so the cost follows the rows in the
 * range and the answer is one row per bucket, whatever the history's size.
 * Steps and the users recording them are read from usage_step_days (one row
 * per client, day and recorder, migration 0020, kept by moveStepCount in the
 * transaction of every recording) rather than from every step record.
 */

export interface UsageFilter {
  /** inclusive ISO-8601 */
  from: string;
  /** exclusive ISO-8601 */
  to: string;
  userId?: number;
  licenseType?: string;
  templateId?: number;
  organizationId?: number;
}

/** `null`: one bucket, 'total', for the whole range. */
export type Grouping = Period | null;

type Counts = Map<string, number>;

function bucket(db: Kysely<DB>, grouping: Grouping, column: string): RawBuilder<string> {
  return grouping === null ? sql<string>`'total'` : bucketOf(grouping, column, dialectOf(db));
}

/** Ids of the users the filter names (by id and/or license type); undefined: everyone. */
function filteredUsers(db: Kysely<DB>, scope: TenantScope, f: UsageFilter) {
  if (f.userId === undefined && f.licenseType === undefined) return undefined;
  let users = inTenant(db, scope).selectFrom('users').select('users.id');
  if (f.userId !== undefined) users = users.where('users.id', '=', f.userId);
  if (f.licenseType !== undefined) users = users.where('users.license_type', '=', f.licenseType);
  return users;
}

/** Ids of the templates the filter names (by id and/or organization); undefined: all. */
function filteredTemplates(db: Kysely<DB>, scope: TenantScope, f: UsageFilter) {
  if (f.templateId === undefined && f.organizationId === undefined) return undefined;
  let templates = inTenant(db, scope).selectFrom('templates').select('templates.id');
  if (f.templateId !== undefined) templates = templates.where('templates.id', '=', f.templateId);
  if (f.organizationId !== undefined) {
    const ofOrganization = inTenant(db, scope)
      .selectFrom('template_organizations')
      .select('template_organizations.template_id')
      .where('template_organizations.organization_id', '=', f.organizationId);
    templates = templates.where('templates.id', 'in', ofOrganization);
  }
  return templates;
}

function toCounts(rows: { bucket: string; n: number | string | bigint }[]): Counts {
  // PostgreSQL returns count(*) as a bigint string
  return new Map(rows.map((r) => [r.bucket, Number(r.n)]));
}

/** The usage_step_days key of a step record: its client, UTC day and recorder. */
function stepDay(scope: TenantScope, record: Pick<StepRecordRow, 'recorded_at' | 'recorded_by'>) {
  return { client_id: scope.clientId, day: record.recorded_at.slice(0, 10), user_id: record.recorded_by };
}

/**
 * Keeps usage_step_days exact when a step record is written (in its
 * transaction): the step counts once, at its latest recording, so a
 * re-recording on another day or by another user moves it there.
 */
export async function moveStepCount(
  db: Kysely<DB>,
  scope: TenantScope,
  previous: StepRecordRow | undefined,
  saved: StepRecordRow,
): Promise<void> {
  const to = stepDay(scope, saved);
  if (previous) {
    const from = stepDay(scope, previous);
    if (from.day === to.day && from.user_id === to.user_id) return;
    await inTenant(db, scope)
      .updateTable('usage_step_days')
      .set((eb) => ({ steps: eb('steps', '-', 1) }))
      .where('day', '=', from.day)
      .where('user_id', '=', from.user_id)
      .execute();
    await inTenant(db, scope)
      .deleteFrom('usage_step_days')
      .where('day', '=', from.day)
      .where('user_id', '=', from.user_id)
      .where('steps', '<=', 0)
      .execute();
  }
  await db
    .insertInto('usage_step_days')
    .values({ ...to, steps: 1 })
    .onConflict((oc) => oc.columns(['client_id', 'day', 'user_id']).doUpdateSet((eb) => ({ steps: eb('usage_step_days.steps', '+', 1) })))
    .execute();
}

type JobTimes = Pick<JobRow, 'started_at' | 'completed_at'>;

/**
 * Keeps usage_job_days exact when a job is written (in its transaction): a
 * job counts as started (completed) on the day of its started_at
 * (completed_at), so a change of either moves it. Rows are left at zero (the
 * meter only sums them).
 */
export async function moveJobCounts(db: Kysely<DB>, scope: TenantScope, before: JobTimes | undefined, after: JobTimes): Promise<void> {
  const columns = [
    ['started', before?.started_at ?? null, after.started_at],
    ['completed', before?.completed_at ?? null, after.completed_at],
  ] as const;
  for (const [column, was, now] of columns) {
    const from = was?.slice(0, 10) ?? null;
    const to = now?.slice(0, 10) ?? null;
    if (from === to) continue;
    if (from !== null) {
      await inTenant(db, scope)
        .updateTable('usage_job_days')
        .set((eb) => ({ [column]: eb(column, '-', 1) }))
        .where('day', '=', from)
        .execute();
    }
    if (to !== null) {
      await db
        .insertInto('usage_job_days')
        .values({ client_id: scope.clientId, day: to, started: 0, completed: 0, [column]: 1 })
        .onConflict((oc) => oc.columns(['client_id', 'day']).doUpdateSet((eb) => ({ [column]: eb(`usage_job_days.${column}`, '+', 1) })))
        .execute();
    }
  }
}

/**
 * Jobs whose `column` (started_at or completed_at) falls in the range, per
 * bucket. The user filters keep jobs a matching user created or is a member
 * of (assignee, co-worker, step owner).
 */
export async function countJobs(
  db: Kysely<DB>,
  scope: TenantScope,
  column: 'started_at' | 'completed_at',
  grouping: Grouping,
  f: UsageFilter,
): Promise<Counts> {
  const days = jobDaysInRange(db, scope, f);
  if (days) {
    const counted = column === 'started_at' ? 'usage_job_days.started' : 'usage_job_days.completed';
    const query = days.select((eb) => [
      bucket(db, grouping, 'usage_job_days.day').as('bucket'),
      eb.fn.sum<number | string>(counted).as('n'),
    ]);
    return toCounts(await query.groupBy(sql.ref('bucket') as never).execute());
  }
  const at = `jobs.${column}` as const;
  let query = inTenant(db, scope)
    .selectFrom('jobs')
    .select((eb) => [bucket(db, grouping, at).as('bucket'), eb.fn.countAll<number>().as('n')])
    .where(at, '>=', f.from)
    .where(at, '<', f.to);
  const templates = filteredTemplates(db, scope, f);
  if (templates) query = query.where('jobs.template_id', 'in', templates);
  const users = filteredUsers(db, scope, f);
  if (users) {
    // correlated to the (tenant-filtered) job: one seek in its members per job in the range
    query = query.where((eb) =>
      eb.or([
        eb('jobs.created_by', 'in', users),
        eb.exists(
          eb
            .selectFrom('job_members')
            .select('job_members.job_id')
            .whereRef('job_members.client_id', '=', 'jobs.client_id')
            .whereRef('job_members.job_id', '=', 'jobs.id')
            .where('job_members.user_id', 'in', users),
        ),
      ]),
    );
  }
  return toCounts(await query.groupBy(sql.ref('bucket') as never).execute());
}

/**
 * Step records whose recording falls in the range, per bucket (a step recorded
 * again counts once, at its latest recording). The user filters apply to who
 * recorded; the template filters to the job's template.
 */
export async function countStepsRecorded(db: Kysely<DB>, scope: TenantScope, grouping: Grouping, f: UsageFilter): Promise<Counts> {
  const users = filteredUsers(db, scope, f);
  const days = stepDaysInRange(db, scope, f);
  if (days) {
    let query = days.select((eb) => [
      bucket(db, grouping, 'usage_step_days.day').as('bucket'),
      eb.fn.sum<number | string>('usage_step_days.steps').as('n'),
    ]);
    if (users) query = query.where('usage_step_days.user_id', 'in', users);
    return toCounts(await query.groupBy(sql.ref('bucket') as never).execute());
  }
  let query = stepRecordsInRange(db, scope, f).select((eb) => [
    bucket(db, grouping, 'step_records.recorded_at').as('bucket'),
    eb.fn.countAll<number>().as('n'),
  ]);
  if (users) query = query.where('step_records.recorded_by', 'in', users);
  return toCounts(await query.groupBy(sql.ref('bucket') as never).execute());
}

const MIDNIGHT = 'T00:00:00.000Z';

/** The range is whole UTC days, as the reports ask: the per-day counts answer it exactly. */
function wholeDays(f: UsageFilter): boolean {
  return f.from.endsWith(MIDNIGHT) && f.to.endsWith(MIDNIGHT);
}

/** The client's per-day job counts (usage_job_days) in the range, when no filter applies (the counts know neither users nor templates). */
function jobDaysInRange(db: Kysely<DB>, scope: TenantScope, f: UsageFilter) {
  const filtered = f.userId !== undefined || f.licenseType !== undefined || f.templateId !== undefined || f.organizationId !== undefined;
  if (filtered || !wholeDays(f)) return undefined;
  return inTenant(db, scope)
    .selectFrom('usage_job_days')
    .where('usage_job_days.day', '>=', f.from.slice(0, 10))
    .where('usage_job_days.day', '<', f.to.slice(0, 10));
}

/**
 * The client's per-day step counts (usage_step_days, one row per day and
 * recorder) in the range, when they can answer the filter: the range is whole
 * UTC days (what the reports ask) and no template filter applies (the counts
 * do not know templates). Undefined: count the step records themselves.
 */
function stepDaysInRange(db: Kysely<DB>, scope: TenantScope, f: UsageFilter) {
  if (f.templateId !== undefined || f.organizationId !== undefined || !wholeDays(f)) return undefined;
  return inTenant(db, scope)
    .selectFrom('usage_step_days')
    .where('usage_step_days.day', '>=', f.from.slice(0, 10))
    .where('usage_step_days.day', '<', f.to.slice(0, 10));
}

function stepRecordsInRange(db: Kysely<DB>, scope: TenantScope, f: UsageFilter) {
  let query = inTenant(db, scope)
    .selectFrom('step_records')
    .where('step_records.recorded_at', '>=', f.from)
    .where('step_records.recorded_at', '<', f.to);
  const templates = filteredTemplates(db, scope, f);
  if (templates) {
    query = query.where(
      'step_records.job_id',
      'in',
      inTenant(db, scope).selectFrom('jobs').select('jobs.id').where('jobs.template_id', 'in', templates),
    );
  }
  return query;
}

/**
 * Active users per bucket and license type: distinct users who signed in or
 * recorded a step in the bucket. With a template or organization filter only
 * recording counts (a sign-in belongs to no template). The license type is
 * the user's current one.
 * @returns bucket → license type → distinct users
 */
export async function countActiveUsers(
  db: Kysely<DB>,
  scope: TenantScope,
  grouping: Grouping,
  f: UsageFilter,
): Promise<Map<string, Map<string, number>>> {
  // a usage_step_days row exists only while its user has a step recorded that day
  const days = stepDaysInRange(db, scope, f);
  const recorders = days
    ? days.select([bucket(db, grouping, 'usage_step_days.day').as('bucket'), 'usage_step_days.user_id as user_id'])
    : stepRecordsInRange(db, scope, f).select([
        bucket(db, grouping, 'step_records.recorded_at').as('bucket'),
        'step_records.recorded_by as user_id',
      ]);
  const signedIn = inTenant(db, scope)
    .selectFrom('sessions')
    .select([bucket(db, grouping, 'sessions.created_at').as('bucket'), 'sessions.user_id as user_id'])
    .where('sessions.created_at', '>=', f.from)
    .where('sessions.created_at', '<', f.to);
  // union (not union all): one row per bucket and user
  const activity = filteredTemplates(db, scope, f) ? recorders.distinct() : recorders.union(signedIn);
  let query = inTenant(db, scope)
    .selectFrom('users')
    .innerJoin(activity.as('a'), 'a.user_id', 'users.id')
    .select((eb) => ['a.bucket', 'users.license_type', eb.fn.countAll<number>().as('n')]);
  if (f.userId !== undefined) query = query.where('users.id', '=', f.userId);
  if (f.licenseType !== undefined) query = query.where('users.license_type', '=', f.licenseType);
  const rows = await query.groupBy(['a.bucket', 'users.license_type']).execute();
  const result = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const byType = result.get(row.bucket) ?? new Map<string, number>();
    byType.set(row.license_type, Number(row.n));
    result.set(row.bucket, byType);
  }
  return result;
}

/**
 * The client's stored content (distinct bytes, what its quota counts) by when
 * it was first stored: the bytes held from before `from`, and the bytes added
 * per bucket of the range. Content deleted since no longer counts, so a past
 * bucket shows how much of what is held today had been stored by then.
 */
export async function sumStorageAdded(
  db: Kysely<DB>,
  scope: TenantScope,
  grouping: Grouping,
  f: Pick<UsageFilter, 'from' | 'to'>,
): Promise<{ before: number; added: Counts }> {
  const [before, added] = await Promise.all([
    inTenant(db, scope)
      .selectFrom('file_blobs')
      .select((eb) => eb.fn.sum<number | string | null>('file_blobs.size').as('n'))
      .where('file_blobs.created_at', '<', f.from)
      .executeTakeFirst(),
    inTenant(db, scope)
      .selectFrom('file_blobs')
      .select((eb) => [bucket(db, grouping, 'file_blobs.created_at').as('bucket'), eb.fn.sum<number | string>('file_blobs.size').as('n')])
      .where('file_blobs.created_at', '>=', f.from)
      .where('file_blobs.created_at', '<', f.to)
      .groupBy(sql.ref('bucket') as never)
      .execute(),
  ]);
  return { before: Number(before?.n ?? 0), added: toCounts(added) };
}

/** Events counted per client by one timestamp column (activity report). */
const EVENT_TIMESTAMPS = {
  signIns: ['sessions', 'created_at'],
  templatesCreated: ['templates', 'created_at'],
  versionsPublished: ['template_versions', 'published_at'],
} as const;

/** How many sign-ins (sessions started), templates created or versions published fall in the range. */
export async function countEvents(
  db: Kysely<DB>,
  scope: TenantScope,
  event: keyof typeof EVENT_TIMESTAMPS,
  f: Pick<UsageFilter, 'from' | 'to'>,
): Promise<number> {
  const [table, column] = EVENT_TIMESTAMPS[event];
  const at = sql.ref(`${table}.${column}`);
  const row = await inTenant(db, scope)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where(sql<boolean>`${at} >= ${f.from} and ${at} < ${f.to}`)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** How many values the filters route lists per kind at most (a choice list, not an export). */
export const FILTER_VALUES_LIMIT = 1000;

/** The client's organizations, templates and users a report may be filtered by (each list capped, by name). */
export async function listFilterValues(db: Kysely<DB>, scope: TenantScope) {
  const limit = FILTER_VALUES_LIMIT + 1;
  const [organizations, templates, users] = await Promise.all([
    inTenant(db, scope).selectFrom('organizations').select(['id', 'name']).orderBy('name').orderBy('id').limit(limit).execute(),
    inTenant(db, scope).selectFrom('templates').select(['id', 'title']).orderBy('title').orderBy('id').limit(limit).execute(),
    inTenant(db, scope)
      .selectFrom('users')
      .select(['id', 'email', 'first_name', 'last_name', 'license_type'])
      .orderBy('email_normalized')
      .orderBy('id')
      .limit(limit)
      .execute(),
  ]);
  return { organizations, templates, users };
}

/** Whether each named filter id belongs to the client (another client's id is simply not found). */
export async function filterIdsExist(
  db: Kysely<DB>,
  scope: TenantScope,
  ids: { userId?: number; templateId?: number; organizationId?: number },
): Promise<{ user: boolean; template: boolean; organization: boolean }> {
  const has = async (table: 'users' | 'templates' | 'organizations', id: number | undefined) =>
    id === undefined || (await inTenant(db, scope).selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
  return {
    user: await has('users', ids.userId),
    template: await has('templates', ids.templateId),
    organization: await has('organizations', ids.organizationId),
  };
}
