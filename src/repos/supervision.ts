import type { Kysely } from 'kysely';
import type { DB, FaultRow, JobState, StepStatus } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/**
 * The supervisor's reads: the board of open jobs by due date and
 * the deviations of the last days. Each list is bounded (`limit`, one more
 * row read to tell that more exist) and tenant-scoped like every repo.
 */

export const OPEN_JOB_STATES: readonly JobState[] = ['OPEN', 'IN_PROGRESS', 'PAUSED'];

export interface BoardJobRow {
  id: number;
  title: string;
  state: JobState;
  priority: 'HIGH' | 'MEDIUM' | 'LOW';
  revision: number;
  due_at: string | null;
  created_at: string;
  started_at: string | null;
  template_id: number;
  version_id: number;
  asset_id: number | null;
  asset_name: string | null;
}

/** Open jobs, the earliest due first (jobs without a due date last), then by priority and age. */
export async function openJobsByDue(db: Kysely<DB>, scope: TenantScope, limit: number): Promise<BoardJobRow[]> {
  return inTenant(db, scope)
    .selectFrom('jobs')
    .leftJoin('assets', (join) => join.onRef('assets.id', '=', 'jobs.asset_id').onRef('assets.client_id', '=', 'jobs.client_id'))
    .select([
      'jobs.id',
      'jobs.title',
      'jobs.state',
      'jobs.priority',
      'jobs.revision',
      'jobs.due_at',
      'jobs.created_at',
      'jobs.started_at',
      'jobs.template_id',
      'jobs.version_id',
      'jobs.asset_id',
      'assets.name as asset_name',
    ])
    .where('jobs.state', 'in', [...OPEN_JOB_STATES])
    .orderBy((eb) => eb.case().when('jobs.due_at', 'is', null).then(1).else(0).end())
    .orderBy('jobs.due_at')
    .orderBy((eb) => eb.case().when('jobs.priority', '=', 'HIGH').then(0).when('jobs.priority', '=', 'MEDIUM').then(1).else(2).end())
    .orderBy('jobs.id')
    .limit(limit + 1)
    .execute();
}

export interface MemberName {
  job_id: number;
  user_id: number;
  first_name: string;
  last_name: string;
  email: string;
}

/** The assignees of these jobs, with their names. */
export async function assigneesOfJobs(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<MemberName[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('job_members')
    .innerJoin('users', (join) => join.onRef('users.id', '=', 'job_members.user_id').onRef('users.client_id', '=', 'job_members.client_id'))
    .select(['job_members.job_id', 'job_members.user_id', 'users.first_name', 'users.last_name', 'users.email'])
    .where('job_members.kind', '=', 'ASSIGNEE')
    .where('job_members.job_id', 'in', [...jobIds])
    .orderBy('job_members.id')
    .execute();
}

export interface DeviationRecordRow {
  job_id: number;
  job_title: string;
  version_id: number;
  asset_id: number | null;
  asset_name: string | null;
  step_id: string;
  status: StepStatus;
  values: string;
  comment: string | null;
  reason: string | null;
  recorded_at: string;
  captured_at: string;
  recorded_by: number;
  first_name: string;
  last_name: string;
  email: string;
}

/**
 * Step records since `since` that deviate: a value outside its limits (the
 * recording flags it in the stored values), or a step FAILED or SKIPPED. The
 * newest first.
 */
export async function deviatingRecordsSince(
  db: Kysely<DB>,
  scope: TenantScope,
  since: string,
  limit: number,
): Promise<DeviationRecordRow[]> {
  return (
    inTenant(db, scope)
      .selectFrom('step_records')
      .innerJoin('jobs', (join) => join.onRef('jobs.id', '=', 'step_records.job_id').onRef('jobs.client_id', '=', 'step_records.client_id'))
      .leftJoin('assets', (join) => join.onRef('assets.id', '=', 'jobs.asset_id').onRef('assets.client_id', '=', 'jobs.client_id'))
      .innerJoin('users', (join) =>
        join.onRef('users.id', '=', 'step_records.recorded_by').onRef('users.client_id', '=', 'step_records.client_id'),
      )
      .select([
        'step_records.job_id',
        'jobs.title as job_title',
        'jobs.version_id',
        'jobs.asset_id',
        'assets.name as asset_name',
        'step_records.step_id',
        'step_records.status',
        'step_records.values',
        'step_records.comment',
        'step_records.reason',
        'step_records.recorded_at',
        'step_records.captured_at',
        'step_records.recorded_by',
        'users.first_name',
        'users.last_name',
        'users.email',
      ])
      .where('step_records.recorded_at', '>=', since)
      // values are stored as JSON.stringify writes them (src/domain/recording.ts): the flag reads exactly so
      .where((eb) =>
        eb.or([eb('step_records.status', 'in', ['FAILED', 'SKIPPED']), eb('step_records.values', 'like', '%"outOfLimits":true%')]),
      )
      .orderBy('step_records.recorded_at', 'desc')
      .orderBy('step_records.id', 'desc')
      .limit(limit + 1)
      .execute()
  );
}

export interface OpenFaultRow extends FaultRow {
  job_title: string | null;
  asset_name: string | null;
  first_name: string;
  last_name: string;
  email: string;
}

/** Every open fault, the most severe first, then the newest. */
export async function openFaults(db: Kysely<DB>, scope: TenantScope, limit: number): Promise<OpenFaultRow[]> {
  return inTenant(db, scope)
    .selectFrom('faults')
    .leftJoin('jobs', (join) => join.onRef('jobs.id', '=', 'faults.job_id').onRef('jobs.client_id', '=', 'faults.client_id'))
    .leftJoin('assets', (join) => join.onRef('assets.id', '=', 'faults.asset_id').onRef('assets.client_id', '=', 'faults.client_id'))
    .innerJoin('users', (join) => join.onRef('users.id', '=', 'faults.raised_by').onRef('users.client_id', '=', 'faults.client_id'))
    .selectAll('faults')
    .select(['jobs.title as job_title', 'assets.name as asset_name', 'users.first_name', 'users.last_name', 'users.email'])
    .where('faults.state', '=', 'OPEN')
    .orderBy((eb) =>
      eb
        .case()
        .when('faults.severity', '=', 'CRITICAL')
        .then(0)
        .when('faults.severity', '=', 'HIGH')
        .then(1)
        .when('faults.severity', '=', 'MEDIUM')
        .then(2)
        .else(3)
        .end(),
    )
    .orderBy('faults.raised_at', 'desc')
    .orderBy('faults.id', 'desc')
    .limit(limit + 1)
    .execute();
}

export interface UnappliedChangeRow {
  id: number;
  job_id: number;
  job_title: string;
  asset_id: number | null;
  asset_name: string | null;
  step_id: string | null;
  detail: string;
  raised_by: number;
  raised_at: string;
  acknowledged_at: string | null;
  first_name: string;
  last_name: string;
  email: string;
}

/**
 * Deviations UNAPPLIED_CHANGE raised since `since`: writes the
 * server had acknowledged and lost with a restore, which a device reported
 * as no longer applicable. The newest first.
 */
export async function unappliedChangesSince(
  db: Kysely<DB>,
  scope: TenantScope,
  since: string,
  limit: number,
): Promise<UnappliedChangeRow[]> {
  return (
    inTenant(db, scope)
      .selectFrom('deviations')
      .innerJoin('jobs', (join) => join.onRef('jobs.id', '=', 'deviations.job_id').onRef('jobs.client_id', '=', 'deviations.client_id'))
      .leftJoin('assets', (join) => join.onRef('assets.id', '=', 'jobs.asset_id').onRef('assets.client_id', '=', 'jobs.client_id'))
      // a device's report always names its sender (services/sync.ts)
      .innerJoin('users', (join) =>
        join.onRef('users.id', '=', 'deviations.raised_by').onRef('users.client_id', '=', 'deviations.client_id'),
      )
      .select([
        'deviations.id',
        'deviations.job_id',
        'jobs.title as job_title',
        'jobs.asset_id',
        'assets.name as asset_name',
        'deviations.step_id',
        'deviations.detail',
        'users.id as raised_by',
        'deviations.raised_at',
        'deviations.acknowledged_at',
        'users.first_name',
        'users.last_name',
        'users.email',
      ])
      .where('deviations.kind', '=', 'UNAPPLIED_CHANGE')
      .where('deviations.raised_at', '>=', since)
      .orderBy('deviations.raised_at', 'desc')
      .orderBy('deviations.id', 'desc')
      .limit(limit + 1)
      .execute()
  );
}

/** Open jobs whose due date has passed, the longest overdue first. */
export async function overdueJobs(db: Kysely<DB>, scope: TenantScope, now: string, limit: number): Promise<BoardJobRow[]> {
  return inTenant(db, scope)
    .selectFrom('jobs')
    .leftJoin('assets', (join) => join.onRef('assets.id', '=', 'jobs.asset_id').onRef('assets.client_id', '=', 'jobs.client_id'))
    .select([
      'jobs.id',
      'jobs.title',
      'jobs.state',
      'jobs.priority',
      'jobs.revision',
      'jobs.due_at',
      'jobs.created_at',
      'jobs.started_at',
      'jobs.template_id',
      'jobs.version_id',
      'jobs.asset_id',
      'assets.name as asset_name',
    ])
    .where('jobs.state', 'in', [...OPEN_JOB_STATES])
    .where('jobs.due_at', 'is not', null)
    .where('jobs.due_at', '<', now)
    .orderBy('jobs.due_at')
    .orderBy('jobs.id')
    .limit(limit + 1)
    .execute();
}

/** The content documents of these versions (to name steps and fields). */
export async function versionContents(db: Kysely<DB>, scope: TenantScope, versionIds: readonly number[]): Promise<Map<number, string>> {
  if (versionIds.length === 0) return new Map();
  const rows = await inTenant(db, scope)
    .selectFrom('template_versions')
    .select(['id', 'content'])
    .where('id', 'in', [...new Set(versionIds)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.content]));
}

export interface AssignableUserRow {
  id: number;
  first_name: string;
  last_name: string;
  email: string;
  title: string;
}

/** Active users of the client holding one of `roles` (who may be assigned a job), by name. */
export async function usersWithRoles(
  db: Kysely<DB>,
  scope: TenantScope,
  roles: readonly string[],
  limit: number,
): Promise<AssignableUserRow[]> {
  return inTenant(db, scope)
    .selectFrom('users')
    .select(['users.id', 'users.first_name', 'users.last_name', 'users.email', 'users.title'])
    .where('users.status', '=', 'active')
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_roles')
          .select('user_roles.user_id')
          .whereRef('user_roles.user_id', '=', 'users.id')
          .whereRef('user_roles.client_id', '=', 'users.client_id')
          .where('user_roles.role', 'in', [...roles]),
      ),
    )
    .orderBy('users.last_name')
    .orderBy('users.first_name')
    .orderBy('users.id')
    .limit(limit + 1)
    .execute();
}
