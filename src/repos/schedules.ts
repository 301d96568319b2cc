import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB, FollowUpJobRow, JobRow, ScheduleOccurrenceRow, ScheduleRow, SchedulesTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import { dialectOf } from '#db/dialect';
import { notFound } from '#errors';

/**
 * Schedules of recurring jobs, the occurrences they produced (one row per
 * schedule, occurrence and asset: the exactly-once key) and follow-up jobs
 * of faults (docs/recurring-and-follow-up-jobs.md).
 */

export type NewSchedule = Omit<Insertable<SchedulesTable>, 'client_id' | 'id' | 'revision'>;
export type ScheduleChanges = Omit<Updateable<SchedulesTable>, 'id' | 'client_id' | 'revision' | 'created_by' | 'created_at'>;

export async function insertSchedule(db: Kysely<DB>, scope: TenantScope, schedule: NewSchedule): Promise<ScheduleRow> {
  return db
    .insertInto('schedules')
    .values({ ...schedule, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A schedule not deleted; with `forUpdate`, its row locked for the rest of the transaction (PostgreSQL). */
export async function findSchedule(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<ScheduleRow | undefined> {
  let query = inTenant(db, scope).selectFrom('schedules').selectAll().where('id', '=', id).where('deleted_at', 'is', null);
  if (options.forUpdate && dialectOf(db) === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

/** @throws AppError NOT_FOUND, also for another client's or a deleted schedule */
export async function getSchedule(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<ScheduleRow> {
  const row = await findSchedule(db, scope, id, options);
  if (!row) throw notFound('Schedule');
  return row;
}

/** Schedules among `ids`, deleted ones too (a job keeps naming the schedule it came from). */
export async function loadSchedulesByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<ScheduleRow[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('schedules')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

export interface ScheduleFilter {
  templateId?: number | null;
  assetId?: number | null;
  state?: ScheduleRow['state'] | null;
}

/** A page of the client's schedules (not deleted), in id order. */
export function listSchedules(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: ScheduleFilter,
  page: PageInput,
): Promise<CountedPage<ScheduleRow>> {
  let query = inTenant(db, scope).selectFrom('schedules').selectAll().where('deleted_at', 'is', null);
  if (filter.templateId != null) query = query.where('template_id', '=', filter.templateId);
  if (filter.assetId != null) query = query.where('asset_id', '=', filter.assetId);
  if (filter.state != null) query = query.where('state', '=', filter.state);
  return paginateCounted(query, page);
}

/**
 * Writes `changes` to the schedule at `revision` and increments it: undefined when the revision moved (or the
 * schedule is gone).
 */
export async function updateScheduleAtRevision(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  revision: number,
  changes: ScheduleChanges,
): Promise<ScheduleRow | undefined> {
  return inTenant(db, scope)
    .updateTable('schedules')
    .set((eb) => ({ ...changes, revision: eb('revision', '+', 1) }))
    .where('id', '=', id)
    .where('revision', '=', revision)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Moves the worker's mark (no revision: it is the worker's, not an edit). */
export async function setGeneratedUntil(db: Kysely<DB>, scope: TenantScope, id: number, generatedUntil: string): Promise<void> {
  await inTenant(db, scope).updateTable('schedules').set({ generated_until: generatedUntil }).where('id', '=', id).execute();
}

/**
 * Active schedules of every client whose occurrences are handled only up to before `horizonEnd`: what the
 * worker has to do, oldest mark first.
 */
export async function listSchedulesDueAcrossClients(
  db: Kysely<DB>,
  horizonEnd: string,
  limit: number,
): Promise<Pick<ScheduleRow, 'id' | 'client_id'>[]> {
  return db
    .selectFrom('schedules')
    .select(['id', 'client_id'])
    .where('state', '=', 'ACTIVE')
    .where('deleted_at', 'is', null)
    .where('generated_until', '<', horizonEnd)
    .orderBy('generated_until')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Claims one occurrence (schedule, instant, asset): the row when this call inserted it, undefined when it was
 * handled before — by this node or another — which is what makes an occurrence happen once.
 */
export async function claimOccurrence(
  db: Kysely<DB>,
  scope: TenantScope,
  occurrence: {
    scheduleId: number;
    occursAt: string;
    assetKey: number;
    status: ScheduleOccurrenceRow['status'];
    reason: string | null;
    createdAt: string;
  },
): Promise<ScheduleOccurrenceRow | undefined> {
  return db
    .insertInto('schedule_occurrences')
    .values({
      client_id: scope.clientId,
      schedule_id: occurrence.scheduleId,
      occurs_at: occurrence.occursAt,
      asset_key: occurrence.assetKey,
      status: occurrence.status,
      reason: occurrence.reason,
      job_id: null,
      created_at: occurrence.createdAt,
    })
    .onConflict((oc) => oc.columns(['client_id', 'schedule_id', 'occurs_at', 'asset_key']).doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** How many jobs a schedule made for its occurrences after `after` up to and including `until` (its daily limit). */
export async function countJobsOfOccurrences(
  db: Kysely<DB>,
  scope: TenantScope,
  scheduleId: number,
  after: string,
  until: string,
): Promise<number> {
  const row = await inTenant(db, scope)
    .selectFrom('schedule_occurrences')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('schedule_id', '=', scheduleId)
    .where('status', '=', 'CREATED')
    .where('occurs_at', '>', after)
    .where('occurs_at', '<=', until)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function setOccurrenceJob(db: Kysely<DB>, scope: TenantScope, occurrenceId: number, jobId: number): Promise<void> {
  await inTenant(db, scope).updateTable('schedule_occurrences').set({ job_id: jobId }).where('id', '=', occurrenceId).execute();
}

/** A page of a schedule's occurrences, in id (handling) order. */
export function listOccurrences(
  db: Kysely<DB>,
  scope: TenantScope,
  scheduleId: number,
  page: PageInput,
): Promise<CountedPage<ScheduleOccurrenceRow>> {
  return paginateCounted(inTenant(db, scope).selectFrom('schedule_occurrences').selectAll().where('schedule_id', '=', scheduleId), page);
}

/**
 * The occurrences after `after` whose jobs nobody has started (OPEN, at their first revision): what pausing,
 * editing or deleting a schedule withdraws, with their jobs.
 */
export async function listUntouchedFutureOccurrences(
  db: Kysely<DB>,
  scope: TenantScope,
  scheduleId: number,
  after: string,
): Promise<(ScheduleOccurrenceRow & { job: JobRow })[]> {
  const rows = await inTenant(db, scope)
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('schedule_id', '=', scheduleId)
    .where('occurs_at', '>', after)
    .where('job_id', 'is not', null)
    .execute();
  if (rows.length === 0) return [];
  const jobs = await inTenant(db, scope)
    .selectFrom('jobs')
    .selectAll()
    .where(
      'id',
      'in',
      rows.map((r) => r.job_id!),
    )
    .where('state', '=', 'OPEN')
    .where('revision', '=', 1)
    .execute();
  const byId = new Map(jobs.map((j) => [j.id, j]));
  return rows.flatMap((r) => (byId.has(r.job_id!) ? [{ ...r, job: byId.get(r.job_id!)! }] : []));
}

export async function deleteOccurrences(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<void> {
  if (ids.length === 0) return;
  await inTenant(db, scope)
    .deleteFrom('schedule_occurrences')
    .where('id', 'in', [...ids])
    .execute();
}

/** The occurrence rows of jobs (a job names the schedule and occurrence it came from; DataLoader batch). */
export async function loadOccurrencesOfJobs(
  db: Kysely<DB>,
  scope: TenantScope,
  jobIds: readonly number[],
): Promise<ScheduleOccurrenceRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('schedule_occurrences')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .execute();
}

/** Ids of the client's assets of a class, in id order (an asset-class schedule makes a job for each). */
export async function listAssetIdsOfClass(db: Kysely<DB>, scope: TenantScope, assetClassId: number): Promise<number[]> {
  const rows = await inTenant(db, scope)
    .selectFrom('assets')
    .select('id')
    .where('asset_class_id', '=', assetClassId)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The active users of an organization (the team of a schedule) who hold one of `roles`, in id order. A user
 * belongs to organizations through `available_to_org` (a JSON list of ids, numbers or strings): read and matched
 * here, as template visibility does.
 */
export async function listTeamMemberIds(
  db: Kysely<DB>,
  scope: TenantScope,
  organizationId: number,
  roles: readonly string[],
): Promise<number[]> {
  const rows = await inTenant(db, scope)
    .selectFrom('users')
    .innerJoin('user_roles', (join) =>
      join.onRef('user_roles.client_id', '=', 'users.client_id').onRef('user_roles.user_id', '=', 'users.id'),
    )
    .select(['users.id', 'users.available_to_org'])
    .where('users.status', '=', 'active')
    .where('user_roles.role', 'in', [...roles])
    .where('users.available_to_org', '<>', '[]')
    .orderBy('users.id')
    .execute();
  const members = rows
    .filter((r) => (JSON.parse(r.available_to_org) as unknown[]).some((v) => Number(v) === organizationId))
    .map((r) => r.id);
  return [...new Set(members)];
}

/** Active users of the client among `ids` (an assignee disabled since the schedule was made gets no more jobs). */
export async function listActiveUserIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await inTenant(db, scope)
    .selectFrom('users')
    .select('id')
    .where('id', 'in', [...ids])
    .where('status', '=', 'active')
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

// ── follow-up jobs ──────────────────────────────────────────────────────────

export async function insertFollowUp(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<FollowUpJobRow, 'id' | 'client_id'>,
): Promise<FollowUpJobRow> {
  return db
    .insertInto('follow_up_jobs')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The follow-up rows of faults (Fault.followUpJobs; DataLoader batch), oldest first. */
export async function loadFollowUpsOfFaults(db: Kysely<DB>, scope: TenantScope, faultIds: readonly number[]): Promise<FollowUpJobRow[]> {
  if (faultIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('follow_up_jobs')
    .selectAll()
    .where('fault_id', 'in', [...faultIds])
    .orderBy('id')
    .execute();
}

/** The follow-up rows of jobs (Job.followUpOf, and closing on completion). */
export async function loadFollowUpsOfJobs(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<FollowUpJobRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('follow_up_jobs')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}
