import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { DB, JobRow, ScheduleRow } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import { tenantScope, type TenantScope } from '#db/tenant';
import { withTransaction, type AfterCommit } from '#db/transaction';
import { AppError, conflict, notFound, validationFailed } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import {
  floatingOf,
  instantOf,
  LOCAL_DATE_TIME,
  occurrencesBetween,
  parseRecurrence,
  type ExpansionBudget,
  type Recurrence,
} from '#domain/recurrence';
import { JOB_TRANSITIONS, SCHEDULE_TRANSITIONS, transition, type ScheduleAction } from '#policies/transitions';
import { presentJob } from '#presenters/jobs';
import { presentSchedule } from '#presenters/schedules';
import { appendAudit, type AuditEntry } from '#repos/audit';
import { findCatalogueRow } from '#repos/catalogue';
import { getClientById } from '#repos/clients';
import { insertJob, insertJobMembers } from '#repos/jobs';
import {
  claimOccurrence,
  countJobsOfOccurrences,
  deleteOccurrences,
  getSchedule,
  insertSchedule,
  listActiveUserIds,
  listAssetIdsOfClass,
  listOccurrences as listOccurrenceRows,
  listSchedules as listScheduleRows,
  listSchedulesDueAcrossClients,
  listTeamMemberIds,
  listUntouchedFutureOccurrences,
  findSchedule,
  setGeneratedUntil,
  setOccurrenceJob,
  updateScheduleAtRevision,
  type ScheduleChanges,
  type ScheduleFilter,
} from '#repos/schedules';
import { findVersionById, findVersionInState } from '#repos/template-versions';
import { loadUsersByIds } from '#repos/users';
import { emitEvent } from '#events/emit';
import { recordLogEntry } from './security-log';
import type { UserActor } from './actor';
import { auditActor, writeJob } from './jobs';
import { PERMISSIONS, requirePermission } from '#policies/permissions';

/**
 * The template service is a route group of its own, required on first use: the maintenance round and the schedule
 * worker load this module soon after the start, and must not bring it along (test/cli/first-answers).
 */
const templates = () => require('./templates') as typeof import('./templates');

/**
 * Schedules of recurring jobs (docs/recurring-and-follow-up-jobs.md).
 *
 * A schedule names a published template (pinned to one version, or following
 * whichever is published at each occurrence), an asset or an asset class
 * (one job per asset), assignees or a team, a priority, a due offset and an
 * RRULE whose start is a wall-clock time in the client's time zone. The
 * runtime worker (src/workers/schedule-worker.ts) calls `materialiseSchedules`:
 * each occurrence up to `scheduleHorizon` ahead becomes a job, exactly once —
 * one transaction per schedule, queued per client, moves the schedule's
 * `generated_until` mark, and the occurrence's unique key
 * (schedule, instant, asset) refuses a second job whatever node or restart
 * gets there again. An occurrence already past when reached (the daemon was
 * down, a gap) is created or skipped as the schedule says.
 *
 * Pausing, editing and deleting act on the future only: what was created stays,
 * except jobs created ahead for occurrences still to come that nobody has
 * touched (OPEN, first revision), which are withdrawn (cancelled) so the
 * occurrences follow the schedule as it now is. Every change is audited.
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Priority = z.enum(['HIGH', 'MEDIUM', 'LOW']);
/** how many schedules one round of the worker looks at (the next round takes the rest) */
const SCHEDULES_PER_ROUND = 200;

const definitionFields = {
  title: z.string().trim().min(1).max(200),
  templateId: Id,
  /** pin this version; null: each occurrence runs the version published then */
  versionId: Id.nullish(),
  assetId: Id.nullish(),
  assetClassId: Id.nullish(),
  assigneeIds: z.array(Id).max(100).nullish(),
  teamId: Id.nullish(),
  priority: Priority.nullish(),
  dueOffsetMinutes: z
    .number()
    .int()
    .min(0)
    .max(366 * 24 * 60)
    .nullish(),
  recurrence: z.string().trim().min(1).max(500),
  startsAt: z.string().regex(LOCAL_DATE_TIME, 'a local date and time YYYY-MM-DDTHH:mm'),
  missedOccurrences: z.enum(['CREATE', 'SKIP']).nullish(),
};

/** One of each pair at most: a schedule is for an asset or an asset class, for assignees or a team. */
function exclusive(
  input: { assetId?: number | null; assetClassId?: number | null; assigneeIds?: number[] | null; teamId?: number | null },
  ctx: z.RefinementCtx,
): void {
  if (input.assetId != null && input.assetClassId != null)
    ctx.addIssue({ code: 'custom', path: ['assetClassId'], message: 'an asset or an asset class, not both' });
  if (input.teamId != null && (input.assigneeIds?.length ?? 0) > 0)
    ctx.addIssue({ code: 'custom', path: ['teamId'], message: 'assignees or a team, not both' });
}

export const CreateScheduleInput = z.object(definitionFields).superRefine(exclusive);
export type CreateScheduleInput = z.input<typeof CreateScheduleInput>;

export const UpdateScheduleInput = z
  .object({
    scheduleId: Id,
    expectedRevision: z.number().int().min(0).nullish(),
    ...definitionFields,
    title: definitionFields.title.optional(),
    templateId: definitionFields.templateId.optional(),
    recurrence: definitionFields.recurrence.optional(),
    startsAt: definitionFields.startsAt.optional(),
  })
  .superRefine(exclusive);
export type UpdateScheduleInput = z.input<typeof UpdateScheduleInput>;

/** A schedule's definition as stored (the row's columns a create or an edit sets). */
type Definition = Pick<
  ScheduleRow,
  | 'title'
  | 'template_id'
  | 'version_id'
  | 'asset_id'
  | 'asset_class_id'
  | 'assignee_ids'
  | 'team_id'
  | 'priority'
  | 'due_offset_minutes'
  | 'rrule'
  | 'starts_at'
  | 'missed'
>;

/** The recurrence of a definition in the client's zone. @throws AppError VALIDATION_ERROR naming `recurrence`, `startsAt` */
function recurrenceOf(definition: Pick<Definition, 'rrule' | 'starts_at'>, timeZone: string): Recurrence {
  const parsed = parseRecurrence(definition.rrule, definition.starts_at, timeZone);
  if ('problems' in parsed) throw validationFailed({ fields: parsed.problems.map((p) => ({ path: p.path, message: p.message })) });
  return parsed.recurrence;
}

/**
 * Checks a definition against the client's data: the template visible to the caller with a published version
 * (the pinned one published), the asset, class, team and assignees the client's.
 * @throws AppError NOT_FOUND, NO_PUBLISHED_VERSION, VALIDATION_ERROR
 */
async function checkDefinition(trx: Kysely<DB>, actor: UserActor, definition: Definition, timeZone: string, newPin = true): Promise<void> {
  const scope = actor.scope;
  recurrenceOf(definition, timeZone);
  await templates().getVisibleTemplate(trx, actor, definition.template_id);
  if (definition.version_id !== null) {
    const version = await findVersionById(trx, scope, definition.version_id);
    if (!version || version.template_id !== definition.template_id) throw notFound('Version');
    // pinned when PUBLISHED; an edit of something else keeps a pin a newer version has since retired
    if (version.state !== 'PUBLISHED' && (newPin || version.state !== 'RETIRED'))
      throw validationFailed({
        fields: [{ path: 'versionId', message: `only a PUBLISHED version can be pinned; version ${version.number} is ${version.state}` }],
      });
  } else if (!(await findVersionInState(trx, scope, definition.template_id, 'PUBLISHED'))) {
    throw new AppError('NO_PUBLISHED_VERSION', 'The template has no published version', { templateId: definition.template_id });
  }
  if (definition.asset_id !== null && !(await findCatalogueRow(trx, scope, 'assets', definition.asset_id))) throw notFound('Asset');
  if (definition.asset_class_id !== null && !(await findCatalogueRow(trx, scope, 'asset_classes', definition.asset_class_id)))
    throw notFound('Asset class');
  if (definition.team_id !== null && !(await findCatalogueRow(trx, scope, 'organizations', definition.team_id)))
    throw notFound('Team (organization)');
  const assigneeIds = JSON.parse(definition.assignee_ids) as number[];
  if ((await loadUsersByIds(trx, scope, assigneeIds)).length !== assigneeIds.length) throw notFound('User');
}

function definitionOf(input: z.output<typeof CreateScheduleInput>): Definition {
  return {
    title: input.title,
    template_id: input.templateId,
    version_id: input.versionId ?? null,
    asset_id: input.assetId ?? null,
    asset_class_id: input.assetClassId ?? null,
    assignee_ids: JSON.stringify([...new Set(input.assigneeIds ?? [])]),
    team_id: input.teamId ?? null,
    priority: input.priority ?? 'MEDIUM',
    due_offset_minutes: input.dueOffsetMinutes ?? null,
    rrule: input.recurrence.replace(/^RRULE:/i, ''),
    starts_at: input.startsAt,
    missed: input.missedOccurrences ?? 'CREATE',
  };
}

/**
 * Creates an ACTIVE schedule; its first occurrences are those after now.
 * @throws AppError FORBIDDEN, NOT_FOUND, NO_PUBLISHED_VERSION, VALIDATION_ERROR
 */
export async function createSchedule(deps: Deps, actor: UserActor, raw: CreateScheduleInput): Promise<ScheduleRow> {
  requirePermission(actor.roles, 'manageSchedules');
  const input = parseOrFail(CreateScheduleInput, raw);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const definition = definitionOf(input);
    const { time_zone: timeZone } = await getClientById(trx, scope.clientId);
    await checkDefinition(trx, actor, definition, timeZone);
    const schedule = await insertSchedule(trx, scope, {
      ...definition,
      state: 'ACTIVE',
      generated_until: nowIso,
      created_by: actor.userId,
      created_at: nowIso,
      updated_at: nowIso,
      deleted_at: null,
    });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'schedule.created',
      entityType: 'schedule',
      entityId: schedule.id,
      after: presentSchedule(schedule, timeZone),
      at: nowIso,
    });
    afterCommit(() => deps.signals.schedulesChanged());
    return schedule;
  });
}

/** The schedule at the revision the caller saw. @throws AppError CONFLICT */
async function writeSchedule(
  trx: Kysely<DB>,
  scope: TenantScope,
  schedule: ScheduleRow,
  expectedRevision: number | null | undefined,
  changes: ScheduleChanges,
): Promise<ScheduleRow> {
  const revision = expectedRevision ?? schedule.revision;
  const row = await updateScheduleAtRevision(trx, scope, schedule.id, revision, changes);
  if (row) return row;
  throw conflict(`The schedule changed: expected revision ${revision}, it is at ${schedule.revision}`, { revision: schedule.revision });
}

/**
 * Withdraws the jobs created ahead for occurrences after now that nobody has touched: each is cancelled (audited,
 * `job.cancelled`) and its occurrence forgotten, so the schedule as it is after this change makes it again (or
 * not). The mark goes back to now at the latest. Returns the withdrawn jobs' ids.
 */
async function withdrawFuture(
  deps: Deps,
  trx: Kysely<DB>,
  afterCommit: AfterCommit,
  actor: UserActor,
  schedule: ScheduleRow,
  why: string,
  nowIso: string,
): Promise<number[]> {
  const scope = actor.scope;
  const future = await listUntouchedFutureOccurrences(trx, scope, schedule.id, nowIso);
  for (const occurrence of future) {
    // the schedule withdraws its own job: the job's table gives the state; the right to change the schedule was checked
    const state = transition(JOB_TRANSITIONS, occurrence.job.state, 'cancel', ['admin']);
    const reason = `Schedule ${why}`;
    const cancelled = await writeJob(trx, scope, occurrence.job, occurrence.job.revision, { state, cancel_reason: reason }, nowIso);
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'job.cancelled',
      entityType: 'job',
      entityId: cancelled.id,
      before: { state: occurrence.job.state, revision: occurrence.job.revision },
      after: { state: cancelled.state, revision: cancelled.revision, cancelReason: reason, scheduleId: schedule.id },
      at: nowIso,
    });
    await emitEvent({ deps, trx, afterCommit }, scope, 'job.cancelled', presentJob(cancelled));
  }
  await deleteOccurrences(
    trx,
    scope,
    future.map((o) => o.id),
  );
  return future.map((o) => o.job.id);
}

const earlier = (a: string, b: string) => (a < b ? a : b);
const later = (a: string, b: string) => (a > b ? a : b);

/**
 * Edits a schedule; only occurrences still to come follow the edit (see the module comment).
 * @throws AppError FORBIDDEN, NOT_FOUND, NO_PUBLISHED_VERSION, VALIDATION_ERROR, CONFLICT (stale expectedRevision)
 */
export async function updateSchedule(deps: Deps, actor: UserActor, raw: UpdateScheduleInput): Promise<ScheduleRow> {
  requirePermission(actor.roles, 'manageSchedules');
  const input = parseOrFail(UpdateScheduleInput, raw);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const schedule = await getSchedule(trx, scope, input.scheduleId, { forUpdate: true });
    const { time_zone: timeZone } = await getClientById(trx, scope.clientId);
    // what is not given stays; null clears an optional setting
    const has = (key: keyof typeof input) => input[key] !== undefined;
    const merged: Definition = {
      title: input.title ?? schedule.title,
      template_id: input.templateId ?? schedule.template_id,
      version_id: has('versionId')
        ? (input.versionId ?? null)
        : has('templateId') && input.templateId !== schedule.template_id
          ? null
          : schedule.version_id,
      asset_id: has('assetId') ? (input.assetId ?? null) : has('assetClassId') && input.assetClassId != null ? null : schedule.asset_id,
      asset_class_id: has('assetClassId')
        ? (input.assetClassId ?? null)
        : has('assetId') && input.assetId != null
          ? null
          : schedule.asset_class_id,
      assignee_ids: has('assigneeIds')
        ? JSON.stringify([...new Set(input.assigneeIds ?? [])])
        : has('teamId') && input.teamId != null
          ? '[]'
          : schedule.assignee_ids,
      team_id: has('teamId') ? (input.teamId ?? null) : (input.assigneeIds?.length ?? 0) > 0 ? null : schedule.team_id,
      priority: input.priority ?? schedule.priority,
      due_offset_minutes: has('dueOffsetMinutes') ? (input.dueOffsetMinutes ?? null) : schedule.due_offset_minutes,
      rrule: input.recurrence?.replace(/^RRULE:/i, '') ?? schedule.rrule,
      starts_at: input.startsAt ?? schedule.starts_at,
      missed: input.missedOccurrences ?? schedule.missed,
    };
    await checkDefinition(trx, actor, merged, timeZone, merged.version_id !== schedule.version_id);
    const withdrawn = await withdrawFuture(deps, trx, afterCommit, actor, schedule, 'changed', nowIso);
    const updated = await writeSchedule(trx, scope, schedule, input.expectedRevision, {
      ...merged,
      generated_until: earlier(schedule.generated_until, nowIso),
      updated_at: nowIso,
    });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'schedule.updated',
      entityType: 'schedule',
      entityId: schedule.id,
      before: presentSchedule(schedule, timeZone),
      after: { ...presentSchedule(updated, timeZone), withdrawnJobIds: withdrawn },
      at: nowIso,
    });
    afterCommit(() => deps.signals.schedulesChanged());
    return updated;
  });
}

const PAST: Record<ScheduleAction, string> = { pause: 'paused', resume: 'resumed' };

/**
 * Pauses (no occurrence is made while paused; those created ahead and untouched are withdrawn) or resumes (the
 * occurrences that passed while paused are never made: the schedule goes on from now).
 * @throws AppError FORBIDDEN, NOT_FOUND, INVALID_TRANSITION, CONFLICT
 */
export async function transitionSchedule(
  deps: Deps,
  actor: UserActor,
  input: { scheduleId: number; action: ScheduleAction; expectedRevision?: number | null },
): Promise<ScheduleRow> {
  requirePermission(actor.roles, `${input.action}Schedule`);
  const expectedRevision = parseOrFail(z.number().int().min(0).nullish(), input.expectedRevision);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const schedule = await getSchedule(trx, scope, input.scheduleId, { forUpdate: true });
    const state = transition(SCHEDULE_TRANSITIONS, schedule.state, input.action, actor.roles);
    const withdrawn = input.action === 'pause' ? await withdrawFuture(deps, trx, afterCommit, actor, schedule, 'paused', nowIso) : [];
    const generatedUntil = input.action === 'pause' ? earlier(schedule.generated_until, nowIso) : later(schedule.generated_until, nowIso);
    const updated = await writeSchedule(trx, scope, schedule, expectedRevision, {
      state,
      generated_until: generatedUntil,
      updated_at: nowIso,
    });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: `schedule.${PAST[input.action]}`,
      entityType: 'schedule',
      entityId: schedule.id,
      before: { state: schedule.state, revision: schedule.revision },
      after: { state: updated.state, revision: updated.revision, ...(input.action === 'pause' && { withdrawnJobIds: withdrawn }) },
      at: nowIso,
    });
    afterCommit(() => deps.signals.schedulesChanged());
    return updated;
  });
}

/**
 * Deletes a schedule: no more occurrences; its untouched future jobs are withdrawn, the jobs it made before stay
 * (and keep naming it). @throws AppError FORBIDDEN, NOT_FOUND, CONFLICT
 */
export async function deleteSchedule(
  deps: Deps,
  actor: UserActor,
  input: { scheduleId: number; expectedRevision?: number | null },
): Promise<ScheduleRow> {
  requirePermission(actor.roles, 'manageSchedules');
  const expectedRevision = parseOrFail(z.number().int().min(0).nullish(), input.expectedRevision);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const schedule = await getSchedule(trx, scope, input.scheduleId, { forUpdate: true });
    const { time_zone: timeZone } = await getClientById(trx, scope.clientId);
    const withdrawn = await withdrawFuture(deps, trx, afterCommit, actor, schedule, 'deleted', nowIso);
    const deleted = await writeSchedule(trx, scope, schedule, expectedRevision, { deleted_at: nowIso, updated_at: nowIso });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'schedule.deleted',
      entityType: 'schedule',
      entityId: schedule.id,
      before: presentSchedule(schedule, timeZone),
      after: { deletedAt: nowIso, withdrawnJobIds: withdrawn },
      at: nowIso,
    });
    return deleted;
  });
}

/** @throws AppError NOT_FOUND, also for another client's or a deleted schedule */
export async function getScheduleOfClient(deps: Deps, actor: UserActor, id: number): Promise<ScheduleRow> {
  return getSchedule(deps.db.kysely, actor.scope, id);
}

/** Every user of the client reads its schedules (like its jobs). */
export function listSchedules(deps: Deps, actor: UserActor, filter: ScheduleFilter, page: PageInput): Promise<CountedPage<ScheduleRow>> {
  return listScheduleRows(deps.db.kysely, actor.scope, filter, page);
}

/** A page of what a schedule did, occurrence by occurrence. @throws AppError NOT_FOUND */
export async function listScheduleOccurrences(deps: Deps, actor: UserActor, scheduleId: number, page: PageInput) {
  return listOccurrenceRows(deps.db.kysely, actor.scope, scheduleId, page);
}

/**
 * The next `count` occurrences of a schedule after now (none while paused). With a `budget` (one request's,
 * shared by every schedule it expands) the walk takes its steps from it; `budgetSpent`: the budget ran out before
 * this schedule's walk was done, so `instants` (right as far as they go) may lack some that exist.
 */
export function nextOccurrences(
  deps: Deps,
  schedule: Pick<ScheduleRow, 'rrule' | 'starts_at' | 'state' | 'deleted_at'>,
  timeZone: string,
  count: number,
  budget?: ExpansionBudget,
): { instants: Date[]; budgetSpent: boolean } {
  if (schedule.state !== 'ACTIVE' || schedule.deleted_at !== null) return { instants: [], budgetSpent: false };
  const parsed = parseRecurrence(schedule.rrule, schedule.starts_at, timeZone);
  if ('problems' in parsed) return { instants: [], budgetSpent: false };
  // from now, or from just before the first occurrence when it is later; two years at most: a rule that never matches is not searched for long
  const start = instantOf(floatingOf(schedule.starts_at)!, timeZone).getTime() - 1;
  const from = new Date(Math.max(deps.clock.now().getTime(), start));
  return occurrencesBetween(parsed.recurrence, from, new Date(from.getTime() + 2 * 366 * 86_400_000), count, budget);
}

export const PreviewScheduleInput = z.object({ recurrence: definitionFields.recurrence, startsAt: definitionFields.startsAt });
export type PreviewScheduleInput = z.input<typeof PreviewScheduleInput>;

/**
 * The next `count` occurrences of a rule not saved yet, from now, in the client's zone: the app's preview before
 * saving. The same checks as createSchedule's (a refused rule is VALIDATION_ERROR on `recurrence` or `startsAt`), and
 * the walk takes its steps from the request's `budget` like Schedule.nextOccurrences.
 * @throws AppError FORBIDDEN (not a role that plans work), VALIDATION_ERROR
 */
export async function previewSchedule(
  deps: Deps,
  actor: UserActor,
  raw: PreviewScheduleInput,
  count: number,
  budget?: ExpansionBudget,
): Promise<{ timeZone: string; instants: Date[]; budgetSpent: boolean }> {
  requirePermission(actor.roles, 'manageSchedules');
  const input = parseOrFail(PreviewScheduleInput, raw);
  const definition = { rrule: input.recurrence.replace(/^RRULE:/i, ''), starts_at: input.startsAt };
  const { time_zone: timeZone } = await getClientById(deps.db.kysely, actor.scope.clientId);
  recurrenceOf(definition, timeZone);
  return { timeZone, ...nextOccurrences(deps, { ...definition, state: 'ACTIVE', deleted_at: null }, timeZone, count, budget) };
}

// ── the worker's side ───────────────────────────────────────────────────────

export interface MaterialiseResult {
  schedules: number;
  created: number;
  skipped: number;
  /** schedules left for the next round at a per-round limit */
  deferred: number;
}

/** Occurrences one transaction looks at, at most (skipped ones cost little). */
const OCCURRENCES_PER_TRANSACTION = 50;
/**
 * Jobs one transaction makes, at most. On SQLite the database answers inside the event loop, so a transaction
 * holds every request of every client while it runs: a few jobs (~6 ms each), then the worker pauses.
 */
const JOBS_PER_TRANSACTION = 5;
const DAY_MS = 86_400_000;
/** The longest pause after a transaction. */
const MAX_PAUSE_MS = 100;

/**
 * Lets waiting requests run before the worker goes on: as long as the transaction took (at most MAX_PAUSE_MS). A
 * request takes several turns of the event loop (reading, authenticating, answering), and a mere setImmediate would
 * put a transaction before each; half the time to the worker, half to the rest, bounds what a request waits.
 */
const pauseAfter = (startedAt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, Math.min(MAX_PAUSE_MS, performance.now() - startedAt)));

type Limit = 'scheduleMaxJobsPerRound' | 'scheduleMaxJobsPerClientRound' | 'scheduleMaxJobsPerDay';

/** A limit reached, on the security log (`security.schedule_limit`): who made so many jobs, and what became of the rest. */
function limitReached(
  deps: Deps,
  clientId: number,
  scheduleId: number | null,
  limit: Limit,
  message: string,
  data: Record<string, unknown>,
) {
  return recordLogEntry(deps, {
    level: 'warn',
    event: 'security.schedule_limit',
    message,
    clientId,
    actor: { kind: 'system', id: null, name: scheduleId === null ? 'schedule worker' : `schedule:${scheduleId}` },
    data: { scheduleId, limit, max: deps.config[limit], ...data },
  });
}

/**
 * One round of the worker: every active schedule whose occurrences up to now + scheduleHorizon are not all
 * handled gets them handled. Safe to run on several nodes at once and again after any stop (see the module
 * comment). A schedule that fails is logged and left for the next round; the others go on.
 *
 * Bounded whatever the rules (docs/recurring-and-follow-up-jobs.md#limits): the clients take turns, one short
 * transaction each, and after each the worker pauses as long as it took, for waiting requests; a schedule makes at most
 * `scheduleMaxJobsPerRound` jobs a round and a client's schedules `scheduleMaxJobsPerClientRound` (the rest follow
 * in the next rounds: nothing is lost); past `scheduleMaxJobsPerDay` an occurrence is skipped (`DAILY_LIMIT`).
 * Each limit reached is a security event.
 */
export async function materialiseSchedules(deps: Deps): Promise<MaterialiseResult> {
  const now = deps.clock.now();
  const horizonEnd = new Date(now.getTime() + deps.config.scheduleHorizon);
  const due = await listSchedulesDueAcrossClients(deps.db.kysely, horizonEnd.toISOString(), SCHEDULES_PER_ROUND);
  const result: MaterialiseResult = { schedules: due.length, created: 0, skipped: 0, deferred: 0 };
  const queues = new Map<number, number[]>();
  for (const row of due) queues.set(row.client_id, [...(queues.get(row.client_id) ?? []), row.id]);
  const clientLeft = new Map<number, number>();
  const scheduleLeft = new Map<number, number>();
  while (queues.size > 0) {
    for (const [clientId, ids] of queues) {
      const scheduleId = ids[0];
      const left = {
        client: clientLeft.get(clientId) ?? deps.config.scheduleMaxJobsPerClientRound,
        schedule: scheduleLeft.get(scheduleId) ?? deps.config.scheduleMaxJobsPerRound,
      };
      let batch = { created: 0, skipped: 0, done: true };
      const startedAt = performance.now();
      try {
        batch = await materialiseBatch(deps, tenantScope(clientId), scheduleId, now, horizonEnd, Math.min(left.client, left.schedule));
      } catch (error) {
        deps.logger.error({ err: error, scheduleId, clientId }, 'schedule: occurrences not created; retried next round');
      }
      result.created += batch.created;
      result.skipped += batch.skipped;
      clientLeft.set(clientId, left.client - batch.created);
      scheduleLeft.set(scheduleId, left.schedule - batch.created);
      if (batch.done) ids.shift();
      else if (left.schedule - batch.created <= 0) {
        ids.shift();
        result.deferred++;
        await limitReached(
          deps,
          clientId,
          scheduleId,
          'scheduleMaxJobsPerRound',
          `Schedule ${scheduleId} made ${deps.config.scheduleMaxJobsPerRound} jobs this round; the rest follow in the next rounds`,
          { deferred: true },
        );
      }
      if (ids.length > 0 && left.client - batch.created <= 0) {
        result.deferred += ids.length;
        await limitReached(
          deps,
          clientId,
          null,
          'scheduleMaxJobsPerClientRound',
          `The client's schedules made ${deps.config.scheduleMaxJobsPerClientRound} jobs this round; ${ids.length} schedule(s) follow in the next rounds`,
          { deferred: true, scheduleIds: ids },
        );
        ids.length = 0;
      }
      if (ids.length === 0) queues.delete(clientId);
      await pauseAfter(startedAt);
    }
  }
  return result;
}

/**
 * The next occurrences of one schedule, in one transaction queued behind the client's other writers: up to
 * OCCURRENCES_PER_TRANSACTION occurrences and `allowance` (at most JOBS_PER_TRANSACTION) jobs. `done`: its
 * occurrences up to the horizon are all handled.
 */
async function materialiseBatch(
  deps: Deps,
  scope: TenantScope,
  scheduleId: number,
  now: Date,
  horizonEnd: Date,
  allowance: number,
): Promise<{ created: number; skipped: number; done: boolean }> {
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    // read again under the lock: another node may have got here first, or the schedule changed
    const schedule = await findSchedule(trx, scope, scheduleId, { forUpdate: true });
    if (!schedule || schedule.state !== 'ACTIVE' || schedule.generated_until >= horizonEnd.toISOString())
      return { created: 0, skipped: 0, done: true };
    const { time_zone: timeZone } = await getClientById(trx, scope.clientId);
    const parsed = parseRecurrence(schedule.rrule, schedule.starts_at, timeZone);
    if ('problems' in parsed) {
      // checked when saved; a zone the runtime no longer knows (or a rule saved before today's checks) is the way here
      deps.logger.error({ scheduleId, problems: parsed.problems }, 'schedule: its recurrence cannot be read; skipped');
      await setGeneratedUntil(trx, scope, scheduleId, horizonEnd.toISOString());
      return { created: 0, skipped: 0, done: true };
    }
    const { instants, cutShort } = occurrencesBetween(
      parsed.recurrence,
      new Date(schedule.generated_until),
      horizonEnd,
      OCCURRENCES_PER_TRANSACTION,
    );
    const tx = { deps, trx, afterCommit };
    let room = Math.min(allowance, JOBS_PER_TRANSACTION);
    let created = 0;
    let skipped = 0;
    let overDaily = 0;
    let mark: string | undefined;
    let stopped = false;
    for (const instant of instants) {
      const outcome = await handleOccurrence(tx, scope, schedule, instant, now, room);
      created += outcome.created;
      skipped += outcome.skipped;
      overDaily += outcome.overDaily;
      room -= outcome.created;
      // an occurrence with more jobs than room left: handled again from its start (its jobs made are claimed)
      mark = outcome.complete ? instant.toISOString() : new Date(instant.getTime() - 1).toISOString();
      if (!outcome.complete || room <= 0) {
        stopped = true;
        break;
      }
    }
    // a walk cut short with nothing found: the rule occurs too rarely to look further (parseRecurrence's steps)
    const done = !stopped && instants.length < OCCURRENCES_PER_TRANSACTION && (!cutShort || instants.length === 0);
    if (done && cutShort)
      deps.logger.warn({ scheduleId }, 'schedule: no occurrence found within the expansion steps; none up to the horizon');
    await setGeneratedUntil(trx, scope, scheduleId, done ? horizonEnd.toISOString() : (mark ?? schedule.generated_until));
    if (overDaily > 0)
      afterCommit(() =>
        limitReached(
          deps,
          scope.clientId,
          scheduleId,
          'scheduleMaxJobsPerDay',
          `Schedule ${scheduleId} reached ${deps.config.scheduleMaxJobsPerDay} jobs in 24 hours: ${overDaily} occurrence(s) skipped (DAILY_LIMIT)`,
          { skipped: overDaily, upTo: mark ?? null },
        ),
      );
    return { created, skipped, done };
  });
}

interface Tx {
  deps: Deps;
  trx: Kysely<DB>;
  afterCommit: AfterCommit;
}

interface OccurrenceOutcome {
  created: number;
  skipped: number;
  /** skipped at the daily limit */
  overDaily: number;
  /** false: `room` ran out before every asset had its job */
  complete: boolean;
}

/** One occurrence: its jobs (one per asset, `room` at most), or a skipped row saying why. */
async function handleOccurrence(
  tx: Tx,
  scope: TenantScope,
  schedule: ScheduleRow,
  instant: Date,
  now: Date,
  room: number,
): Promise<OccurrenceOutcome> {
  const { trx } = tx;
  const occursAt = instant.toISOString();
  const nowIso = now.toISOString();
  const skip = async (reason: string): Promise<OccurrenceOutcome> => {
    const claimed = await claimOccurrence(trx, scope, {
      scheduleId: schedule.id,
      occursAt,
      assetKey: 0,
      status: 'SKIPPED',
      reason,
      createdAt: nowIso,
    });
    const skipped = claimed ? 1 : 0;
    return { created: 0, skipped, overDaily: reason === 'DAILY_LIMIT' ? skipped : 0, complete: true };
  };
  if (instant.getTime() <= now.getTime() && schedule.missed === 'SKIP') return skip('MISSED');
  const version =
    schedule.version_id !== null
      ? await findVersionById(trx, scope, schedule.version_id)
      : await findVersionInState(trx, scope, schedule.template_id, 'PUBLISHED');
  // a pinned version runs while it was published (also once a newer one retired it); a withdrawn draft never
  if (!version || (version.state !== 'PUBLISHED' && version.state !== 'RETIRED')) return skip('NO_PUBLISHED_VERSION');
  let assets: (number | null)[] = [schedule.asset_id];
  if (schedule.asset_class_id !== null) {
    assets = await listAssetIdsOfClass(trx, scope, schedule.asset_class_id);
    if (assets.length === 0) return skip('NO_ASSETS');
  }
  // the daily limit: jobs of this schedule's occurrences in the 24 hours up to this one
  const dailyMax = tx.deps.config.scheduleMaxJobsPerDay;
  let today = await countJobsOfOccurrences(trx, scope, schedule.id, new Date(instant.getTime() - DAY_MS).toISOString(), occursAt);
  const assigneeIds =
    schedule.team_id !== null
      ? await listTeamMemberIds(trx, scope, schedule.team_id, PERMISSIONS.runJob)
      : await listActiveUserIds(trx, scope, JSON.parse(schedule.assignee_ids) as number[]);
  const dueAt =
    schedule.due_offset_minutes === null ? null : new Date(instant.getTime() + schedule.due_offset_minutes * 60_000).toISOString();
  let created = 0;
  for (const assetId of assets) {
    if (today >= dailyMax) return { ...(await skip('DAILY_LIMIT')), created };
    if (created >= room) return { created, skipped: 0, overDaily: 0, complete: false };
    const occurrence = await claimOccurrence(trx, scope, {
      scheduleId: schedule.id,
      occursAt,
      assetKey: assetId ?? 0,
      status: 'CREATED',
      reason: null,
      createdAt: nowIso,
    });
    // handled before (another node, an earlier round): never a second job
    if (!occurrence) continue;
    const job = await insertJob(trx, scope, {
      template_id: schedule.template_id,
      version_id: version.id,
      title: schedule.title,
      asset_id: assetId,
      priority: schedule.priority,
      state: 'OPEN',
      due_at: dueAt,
      cancel_reason: null,
      created_by: schedule.created_by,
      created_at: nowIso,
      updated_at: nowIso,
      started_at: null,
      completed_at: null,
    });
    await insertJobMembers(
      trx,
      scope,
      assigneeIds.map((userId) => ({ jobId: job.id, userId, kind: 'ASSIGNEE' as const })),
      nowIso,
    );
    await setOccurrenceJob(trx, scope, occurrence.id, job.id);
    await jobCreatedBySchedule(tx, scope, schedule, job, assigneeIds, occursAt, nowIso);
    created++;
    today++;
  }
  return { created, skipped: 0, overDaily: 0, complete: true };
}

/** The audit entry and events of a job a schedule made (as createJob's, with the schedule as the actor). */
async function jobCreatedBySchedule(
  tx: Tx,
  scope: TenantScope,
  schedule: ScheduleRow,
  job: JobRow,
  assigneeIds: number[],
  occursAt: string,
  nowIso: string,
): Promise<void> {
  const actor: AuditEntry['actor'] = { label: `schedule:${schedule.id}` };
  await appendAudit(tx.trx, scope, {
    actor,
    action: 'job.created',
    entityType: 'job',
    entityId: job.id,
    after: { ...presentJob(job), assigneeIds, stepOwners: [], scheduleId: schedule.id, occursAt },
    at: nowIso,
  });
  await emitEvent(tx, scope, 'job.created', { ...presentJob(job), assigneeIds, coworkerIds: [], stepOwners: [] });
  if (assigneeIds.length > 0) await emitEvent(tx, scope, 'job.assigned', { job: presentJob(job), assigneeIds, stepOwners: [] });
}
