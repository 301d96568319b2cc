import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { DB, JobMemberRow, JobRow, JobState, StepRecordRow } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import type { TenantScope } from '#db/tenant';
import { withTransaction, type AfterCommit } from '#db/transaction';
import { AppError, conflict, forbidden, notFound, validationFailed } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { deserializeContent, findStep, type Content } from '#domain/content';
import {
  missingRequiredFields,
  recordValues,
  recordedFileIds,
  requiredFieldsMissing,
  withCalculated,
  type RecordedValue,
} from '#domain/recording';
import { applicability } from '#domain/applicability';
import { invalidateStepSignatures, loadStepSignatures } from '#repos/step-signatures';
import { missingSignoffs, signoffMissing } from '#domain/signoffs';
import {
  assertMayBeMarkedNotApplicable,
  commentRequired,
  completedLate,
  deviationsOfRecording,
  stepsMissingComment,
} from '#domain/deviations';
import { recordDeviation } from '#repos/deviations';
import { assertFilesOfClient } from './files';
import { JOB_TRANSITIONS, transition, type JobAction, type Transition } from '#policies/transitions';
import { hasAnyRole } from '#policies/roles';
import { presentJob, presentJobMembers, presentStepRecord } from '#presenters/jobs';
import { appendAudit } from '#repos/audit';
import { loadUsersByIds } from '#repos/users';
import { listPendingHandOffsOfJob, updateHandOff } from '#repos/hand-offs';
import type { ColumnSet } from '#db/columns';
import {
  findStepRecord,
  getJobById,
  insertJob,
  insertJobMembers,
  listJobs as listJobRows,
  countJobs,
  loadJobMembers,
  loadStepRecords,
  updateJobAtRevision,
  upsertStepRecord,
  type JobColumn,
  type JobPageRelations,
  type JobPageRow,
  type JobFilter,
} from '#repos/jobs';
import { findVersionById, findVersionInState } from '#repos/template-versions';
import { findCatalogueRow } from '#repos/catalogue';
import { latestReading } from '#repos/sensors';
import { getVisibleTemplate } from './templates';
import type { UserActor } from './actor';
import { emitEvent } from '#events/emit';
import { notify } from './notifications';
import { assertQualified, jobRequirements, jobTarget } from './qualification-gate';
import { closeFaultsFollowedUpBy } from './fault-closing';
import { captureTime } from '#domain/capture-time';
import { requirePermission } from '#policies/permissions';

/**
 * Jobs: created from a template's PUBLISHED version and pinned to it forever,
 * moved through JOB_TRANSITIONS, recorded on step by step. Every write to a
 * job goes through `writeJob`, the compare-and-set on `revision`.
 *
 * Who may work on a job (record, transition, hand off): the roles of the
 * transition table (admin, operator); and, once a job has assignees, only its
 * assignees, co-workers who joined it and step owners (for their steps) —
 * admins always. A job without assignees is open to every operator.
 */

/** States no transition leaves: a job there takes no more recording (JOB_CLOSED). */
function terminalStates<S extends string, A extends string>(table: readonly Transition<S, A>[]): Set<S> {
  const leavable = new Set(table.flatMap((row) => row.from));
  return new Set(table.map((row) => row.to).filter((to) => !leavable.has(to)));
}
// reviewing a completed job is quality's e-signature on it, not work: COMPLETED stays closed to recording
export const CLOSED_JOB_STATES = terminalStates(JOB_TRANSITIONS.filter((row) => row.action !== 'review'));
for (const row of JOB_TRANSITIONS) if (row.action === 'review') CLOSED_JOB_STATES.add(row.to);

/** @throws AppError JOB_CLOSED when the job is completed or cancelled */
export function assertJobOpen(job: JobRow): void {
  if (CLOSED_JOB_STATES.has(job.state)) throw new AppError('JOB_CLOSED', `The job is ${job.state}`, { jobId: job.id, state: job.state });
}

export const auditActor = (actor: UserActor) => ({ userId: actor.userId, email: actor.email });

/** The content of the version a job is pinned to. */
export async function jobContent(trx: Kysely<DB>, scope: TenantScope, job: JobRow): Promise<Content> {
  const version = await findVersionById(trx, scope, job.version_id);
  if (!version) throw notFound('Version');
  return deserializeContent(version.content);
}

/**
 * @returns the asset
 * @throws AppError NOT_FOUND unless the asset is the client's
 */
export async function assertAssetOfClient(trx: Kysely<DB>, scope: TenantScope, assetId: number) {
  const asset = await findCatalogueRow(trx, scope, 'assets', assetId);
  if (!asset) throw notFound('Asset');
  return asset;
}

/**
 * Whether the actor may work on the job (see the module comment).
 * @throws AppError FORBIDDEN
 */
export async function assertMayWork(trx: Kysely<DB>, actor: UserActor, job: JobRow, stepId?: string): Promise<JobMemberRow[]> {
  const members = await loadJobMembers(trx, actor.scope, [job.id]);
  if (hasAnyRole(actor.roles, ['admin'])) return members;
  if (!members.some((m) => m.kind === 'ASSIGNEE')) return members;
  const mine = members.filter((m) => m.user_id === actor.userId);
  if (mine.some((m) => m.kind !== 'STEP_OWNER' || (stepId !== undefined && m.step_id === stepId))) return members;
  throw forbidden('Only the assignees, co-workers and step owners of this job may work on it');
}

/**
 * Applies `changes` to the job at `expectedRevision` (or the revision just
 * read), incrementing the revision, atomically in SQL.
 * @throws AppError CONFLICT with the current job (presented) in `details.job`
 */
export async function writeJob(
  trx: Kysely<DB>,
  scope: TenantScope,
  job: JobRow,
  expectedRevision: number | null | undefined,
  changes: Parameters<typeof updateJobAtRevision>[4],
  nowIso: string,
): Promise<JobRow> {
  const revision = expectedRevision ?? job.revision;
  const row = await updateJobAtRevision(trx, scope, job, revision, { ...changes, updated_at: nowIso });
  if (row) return row;
  const current = await getJobById(trx, scope, job.id);
  throw conflict(`The job changed: expected revision ${revision}, it is at ${current.revision}`, { job: presentJob(current) });
}

const Priority = z.enum(['HIGH', 'MEDIUM', 'LOW']);
const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Revision = z.number().int().min(0).nullish();
/** when it happened on the device, in server time (docs/records.md); checked by captureTime */
const CapturedAt = z.iso.datetime({ offset: true }).nullish();

/** The capture time of a write on the job: `capturedAt` within the bounds of docs/records.md, else now. */
export const captureOnJob = (capturedAt: string | null | undefined, job: JobRow, now: Date) =>
  captureTime(capturedAt, { now, notBefore: { at: job.created_at, what: 'the job' } });

export const CreateJobInput = z.object({
  templateId: Id,
  title: z.string().trim().min(1).max(200),
  assetId: Id.nullish(),
  priority: Priority.nullish(),
  assigneeIds: z.array(Id).max(100).nullish(),
  stepOwners: z
    .array(z.object({ stepId: z.string().min(1).max(64), userId: Id }))
    .max(500)
    .nullish(),
  dueAt: z.iso.datetime({ offset: true }).nullish(),
});
export type CreateJobInput = z.input<typeof CreateJobInput>;

/**
 * Creates a job on the template's PUBLISHED version (pinned to it forever).
 * @throws AppError FORBIDDEN (role), NOT_FOUND (template, asset or a user not the
 *   client's), NO_PUBLISHED_VERSION, VALIDATION_ERROR
 */
export async function createJob(
  deps: Deps,
  actor: UserActor,
  raw: CreateJobInput,
  /** more writes that belong to the job's creation, in its transaction (e.g. the ERP work-order link) */
  alsoInTransaction?: (trx: Kysely<DB>, job: JobRow, afterCommit: AfterCommit) => Promise<void>,
): Promise<JobRow> {
  requirePermission(actor.roles, 'createJob');
  const input = parseOrFail(CreateJobInput, raw);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    await getVisibleTemplate(trx, actor, input.templateId);
    const version = await findVersionInState(trx, scope, input.templateId, 'PUBLISHED');
    if (!version) throw new AppError('NO_PUBLISHED_VERSION', 'The template has no published version', { templateId: input.templateId });
    if (input.assetId != null) await assertAssetOfClient(trx, scope, input.assetId);
    const assigneeIds = [...new Set(input.assigneeIds ?? [])];
    const stepOwners = input.stepOwners ?? [];
    const content = deserializeContent(version.content);
    const badSteps = stepOwners.flatMap((o, i) =>
      findStep(content, o.stepId) ? [] : [{ path: `stepOwners.${i}.stepId`, message: `the version has no step "${o.stepId}"` }],
    );
    if (badSteps.length > 0) throw validationFailed({ fields: badSteps });
    const userIds = [...new Set([...assigneeIds, ...stepOwners.map((o) => o.userId)])];
    const users = await loadUsersByIds(trx, scope, userIds);
    if (users.length !== userIds.length) throw notFound('User');
    // docs/qualifications.md: whoever the job is assigned to holds the skills the version requires
    await assertQualified(
      trx,
      scope,
      userIds,
      jobRequirements(content),
      { templateId: input.templateId, versionId: version.id, jobId: null },
      { action: 'assign' },
      deps.clock.now(),
    );

    const job = await insertJob(trx, scope, {
      template_id: input.templateId,
      version_id: version.id,
      title: input.title,
      asset_id: input.assetId ?? null,
      priority: input.priority ?? 'MEDIUM',
      state: 'OPEN',
      due_at: input.dueAt ? new Date(input.dueAt).toISOString() : null,
      cancel_reason: null,
      created_by: actor.userId,
      created_at: nowIso,
      updated_at: nowIso,
      started_at: null,
      completed_at: null,
    });
    await insertJobMembers(
      trx,
      scope,
      [
        ...assigneeIds.map((userId) => ({ jobId: job.id, userId, kind: 'ASSIGNEE' as const })),
        ...stepOwners.map((o) => ({ jobId: job.id, userId: o.userId, kind: 'STEP_OWNER' as const, stepId: o.stepId })),
      ],
      nowIso,
    );
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'job.created',
      entityType: 'job',
      entityId: job.id,
      after: { ...presentJob(job), assigneeIds, stepOwners },
      at: nowIso,
    });
    await emitEvent({ deps, trx, afterCommit }, scope, 'job.created', { ...presentJob(job), assigneeIds, coworkerIds: [], stepOwners });
    if (userIds.length > 0) {
      await emitEvent({ deps, trx, afterCommit }, scope, 'job.assigned', { job: presentJob(job), assigneeIds, stepOwners });
      await notify({ deps, trx, afterCommit }, actor, { kind: 'job_assigned', job, userIds });
    }
    if (alsoInTransaction) await alsoInTransaction(trx, job, afterCommit);
    return job;
  });
}

/** The `job.assigned` event's data: the job and whom it is assigned to now. */
export async function assignedEvent(trx: Kysely<DB>, scope: TenantScope, job: JobRow) {
  const { assigneeIds, stepOwners } = presentJobMembers(await loadJobMembers(trx, scope, [job.id]));
  return { job: presentJob(job), assigneeIds, stepOwners };
}

/** @throws AppError NOT_FOUND, also for another client's job */
export async function getJob(deps: Deps, actor: UserActor, jobId: number): Promise<JobRow> {
  return getJobById(deps.db.kysely, actor.scope, jobId);
}

/** Every user of the client reads the client's jobs (only `columns` of them when given: GraphQL reads what a query selects). */
export async function listJobs(
  deps: Deps,
  actor: UserActor,
  filter: JobFilter,
  page: PageInput,
  columns?: ColumnSet<JobColumn>,
  relations?: JobPageRelations,
): Promise<CountedPage<JobPageRow>> {
  const db = deps.db.kysely;
  return { ...(await listJobRows(db, actor.scope, filter, page, columns, relations)), count: () => countJobs(db, actor.scope, filter) };
}

const PAST: Record<JobAction, string> = {
  start: 'started',
  pause: 'paused',
  resume: 'resumed',
  complete: 'completed',
  cancel: 'cancelled',
  review: 'reviewed',
};
/** The transitions the event catalogue names (pause and resume are not events). */
const JOB_EVENTS: Partial<Record<JobAction, 'job.started' | 'job.completed' | 'job.cancelled'>> = {
  start: 'job.started',
  complete: 'job.completed',
  cancel: 'job.cancelled',
};

export interface TransitionJobInput {
  jobId: number;
  action: JobAction;
  /** required by cancel */
  reason?: string | null;
  expectedRevision?: number | null;
  /** when the device did it, in server time: start and complete set the job's startedAt/completedAt to it */
  capturedAt?: string | null;
}

/**
 * Moves a job through JOB_TRANSITIONS. Completing checks the required fields
 * of every step not skipped; completing or cancelling cancels a pending hand-off.
 * @throws AppError NOT_FOUND, FORBIDDEN, INVALID_TRANSITION, REQUIRED_FIELDS_MISSING
 *   (`details.missing: [{stepId, key}]`), SIGNOFF_MISSING (`details.missing: [{stepId, meaning}]`, `details.steps`), VALIDATION_ERROR (cancel without a reason), CONFLICT
 */
export async function transitionJob(deps: Deps, actor: UserActor, input: TransitionJobInput): Promise<JobRow> {
  const scope = actor.scope;
  const expectedRevision = parseOrFail(Revision, input.expectedRevision);
  parseOrFail(z.object({ capturedAt: CapturedAt }), { capturedAt: input.capturedAt });
  const reason = input.action === 'cancel' ? parseOrFail(z.string().trim().min(1).max(2000), input.reason ?? '') : null;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const job = await getJobById(trx, scope, input.jobId);
    const to = transition(JOB_TRANSITIONS, job.state, input.action, actor.roles);
    await assertMayWork(trx, actor, job);
    if (input.action === 'start')
      await assertQualified(
        trx,
        scope,
        [actor.userId],
        jobRequirements(await jobContent(trx, scope, job)),
        jobTarget(job),
        { action: 'start' },
        deps.clock.now(),
      );
    const capturedAt = captureOnJob(input.capturedAt, job, deps.clock.now());
    if (input.action === 'complete') {
      const [refusal] = await completionChecks(trx, actor, job, deps.clock.now());
      if (refusal) throw refusal.error;
      if (completedLate(job.due_at, capturedAt))
        await recordDeviation(trx, scope, {
          jobId: job.id,
          kind: 'LATE_COMPLETION',
          detail: `due ${job.due_at}`,
          raisedBy: actor.userId,
          at: nowIso,
        });
    }
    // the job's times are the capture times: what reports measure (docs/records.md)
    const changes = {
      state: to,
      ...(input.action === 'start' && { started_at: capturedAt }),
      ...(input.action === 'complete' && { completed_at: capturedAt }),
      ...(input.action === 'cancel' && { cancel_reason: reason }),
    };
    const updated = await writeJob(trx, scope, job, expectedRevision, changes, nowIso);
    if (CLOSED_JOB_STATES.has(to)) await cancelPendingHandOffs(trx, actor, job.id, nowIso);
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: `job.${PAST[input.action]}`,
      entityType: 'job',
      entityId: job.id,
      before: { state: job.state, revision: job.revision },
      after: {
        state: updated.state,
        revision: updated.revision,
        ...(reason && { cancelReason: reason }),
        ...(input.capturedAt != null && { capturedAt }),
      },
      at: nowIso,
    });
    const type = JOB_EVENTS[input.action];
    if (type) await emitEvent({ deps, trx, afterCommit }, scope, type, presentJob(updated));
    // a follow-up job created to close its fault does so when completed (docs/recurring-and-follow-up-jobs.md)
    if (input.action === 'complete') await closeFaultsFollowedUpBy({ deps, trx, afterCommit }, actor, updated, nowIso);
    return updated;
  });
}

/** A closed job hands nothing off any more. */
async function cancelPendingHandOffs(trx: Kysely<DB>, actor: UserActor, jobId: number, nowIso: string): Promise<void> {
  for (const pending of await listPendingHandOffsOfJob(trx, actor.scope, jobId)) {
    await updateHandOff(trx, actor.scope, pending.id, { status: 'CANCELLED', decided_at: nowIso });
    await appendAudit(trx, actor.scope, {
      actor: auditActor(actor),
      action: 'hand_off.cancelled',
      entityType: 'hand_off',
      entityId: pending.id,
      before: { status: pending.status },
      after: { status: 'CANCELLED', jobClosed: true },
      at: nowIso,
    });
  }
}

/** One thing the server refuses completion for (Job.completionBlockers, docs/execution-rules.md). */
export interface CompletionBlocker {
  code: string;
  /** the step it is about; null: the job as a whole */
  stepId: string | null;
  message: string;
}

/** A rule completion enforces that the job fails: the error completeJob throws, and the blockers it lists. */
interface CompletionRefusal {
  error: AppError;
  blockers: CompletionBlocker[];
}

/**
 * The rules completing a job enforces beyond its transition, in the order completeJob refuses by them: the
 * completer's qualification, required fields, comments on deviating steps, sign-offs. completeJob throws the
 * first one's error; Job.completionBlockers lists them all, so the two cannot disagree.
 */
async function completionChecks(trx: Kysely<DB>, actor: UserActor, job: JobRow, now: Date): Promise<CompletionRefusal[]> {
  const scope = actor.scope;
  const content = await jobContent(trx, scope, job);
  const refusals: CompletionRefusal[] = [];
  try {
    await assertQualified(trx, scope, [actor.userId], jobRequirements(content), jobTarget(job), { action: 'complete' }, now);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'NOT_QUALIFIED') throw error;
    refusals.push({ error, blockers: [{ code: error.code, stepId: null, message: error.message }] });
  }
  const records = recordsByStep(await loadStepRecords(trx, scope, [job.id]));
  const missing = missingRequiredFields(content, records);
  if (missing.length > 0)
    refusals.push({
      error: requiredFieldsMissing(missing),
      blockers: missing.map((m) => ({ code: 'REQUIRED_FIELDS_MISSING', stepId: m.stepId, message: `the field "${m.key}" is required` })),
    });
  const applies = applicability(content, records);
  // a value out of limits or a FAILED step is explained before the job completes (docs/execution-rules.md)
  const uncommented = stepsMissingComment(applies, records);
  if (uncommented.length > 0)
    refusals.push({
      error: commentRequired(uncommented),
      blockers: uncommented.map((stepId) => ({
        code: 'COMMENT_REQUIRED',
        stepId,
        message: 'a value out of limits or a FAILED step needs a comment',
      })),
    });
  const unsigned = missingSignoffs(content, applies, await loadStepSignatures(trx, scope, [job.id]));
  if (unsigned.length > 0)
    refusals.push({
      error: signoffMissing(unsigned),
      blockers: unsigned.map((m) => ({ code: 'SIGNOFF_MISSING', stepId: m.stepId, message: `the ${m.meaning} sign-off is missing` })),
    });
  return refusals;
}

/**
 * What completing the job would be refused for, were the actor to complete it now: the transition (INVALID_TRANSITION,
 * FORBIDDEN) and then completionChecks (the same functions completeJob runs). Empty: completeJob would succeed (but
 * for a stale expectedRevision).
 * @throws AppError NOT_FOUND
 */
export async function listCompletionBlockers(deps: Deps, actor: UserActor, job: JobRow): Promise<CompletionBlocker[]> {
  const trx = deps.db.kysely;
  const blockers: CompletionBlocker[] = [];
  try {
    transition(JOB_TRANSITIONS, job.state, 'complete', actor.roles);
    await assertMayWork(trx, actor, job);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    blockers.push({ code: error.code, stepId: null, message: error.message });
  }
  const refusals = await completionChecks(trx, actor, job, deps.clock.now());
  return [...blockers, ...refusals.flatMap((r) => r.blockers)];
}

function recordsByStep(
  records: StepRecordRow[],
): Map<string, { status: StepRecordRow['status']; values: RecordedValue[]; comment: string | null }> {
  return new Map(
    records.map((r) => [r.step_id, { status: r.status, values: JSON.parse(r.values) as RecordedValue[], comment: r.comment }]),
  );
}

export const RecordStepInput = z.object({
  jobId: Id,
  stepId: z.string().min(1).max(64),
  status: z.enum(['DONE', 'SKIPPED', 'FAILED']),
  values: z
    .array(z.object({ key: z.string().min(1).max(64), value: z.unknown().optional() }))
    .max(100)
    .nullish(),
  comment: z.string().trim().max(5000).nullish(),
  reason: z.string().trim().max(2000).nullish(),
  expectedRevision: Revision,
  /** the step's record revision the device saw (0 or null: none); absent: not checked (docs/records.md) */
  expectedStepRevision: Revision,
  capturedAt: CapturedAt,
});
export type RecordStepInput = z.input<typeof RecordStepInput>;

/**
 * Records (or re-records) one step of a job. Recording starts an OPEN job and
 * resumes a PAUSED one (through the transition table). A SKIPPED step needs a
 * reason; values are checked against the step's fields (src/domain/recording.ts).
 * `capturedAt` (docs/records.md) is when the values were entered; the job's
 * startedAt when this recording starts it. `expectedStepRevision`, when sent
 * (null included), is the step record's revision the device saw. The deviations
 * the recording raises (src/domain/deviations.ts) are written with it. Returns the
 * job and the step's record as the recording left them.
 * @throws AppError NOT_FOUND, FORBIDDEN, JOB_CLOSED, VALIDATION_ERROR (naming the
 *   field: `values.<key>`, `stepId`, `reason`, `capturedAt`), CONFLICT (stale expectedRevision: `details.job`;
 *   stale expectedStepRevision: `details.stepId` and `details.record`, the record now on the server or null)
 */
export async function recordStep(
  deps: Deps,
  actor: UserActor,
  raw: RecordStepInput,
  /**
   * `notApplicable`: the operator marks the step not applicable (markStepNotApplicable, services/deviations.ts) — a
   * SKIPPED record with its reason, refused unless the template allows it, and a NOT_APPLICABLE deviation with it
   */
  how: { notApplicable?: boolean } = {},
): Promise<{ job: JobRow; record: StepRecordRow }> {
  requirePermission(actor.roles, 'runJob');
  const input = parseOrFail(RecordStepInput, raw);
  if (input.status === 'SKIPPED' && !input.reason)
    throw validationFailed({ fields: [{ path: 'reason', message: 'a SKIPPED step needs a reason' }] });
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const job = await getJobById(trx, scope, input.jobId);
    assertJobOpen(job);
    await assertMayWork(trx, actor, job, input.stepId);
    const content = await jobContent(trx, scope, job);
    const step = findStep(content, input.stepId);
    if (!step) throw validationFailed({ fields: [{ path: 'stepId', message: `the job's version has no step "${input.stepId}"` }] });
    await assertQualified(
      trx,
      scope,
      [actor.userId],
      jobRequirements(content),
      jobTarget(job),
      { action: 'record', stepId: step.id },
      deps.clock.now(),
    );
    // the execution rules (docs/execution-rules.md): a step whose condition is not met takes no record
    const records = recordsByStep(await loadStepRecords(trx, scope, [job.id]));
    const applies = applicability(content, records).find((a) => a.stepId === step.id);
    if (applies && !applies.applies)
      throw new AppError('STEP_NOT_APPLICABLE', `The step does not apply: ${applies.reason}`, { stepId: step.id, reason: applies.reason });
    const entered = await recordValues(step, input.values ?? [], async (sensorId) => {
      const reading = await latestReading(trx, scope, sensorId);
      return reading && { readingId: reading.reading_id, value: reading.value };
    });
    const values = withCalculated(
      step,
      entered,
      (id) => findStep(content, id) !== undefined,
      (stepId, key) => records.get(stepId)?.values.find((v) => v.key === key)?.value,
    );
    await assertFilesOfClient(trx, scope, recordedFileIds(step, values), 'values');

    const capturedAt = captureOnJob(input.capturedAt, job, deps.clock.now());
    const before = await findStepRecord(trx, scope, job.id, step.id);
    if (input.expectedStepRevision !== undefined) assertStepUnchanged(step.id, before, input.expectedStepRevision);
    if (how.notApplicable) assertMayBeMarkedNotApplicable(step);

    const wakes: Partial<Record<JobState, JobAction>> = { OPEN: 'start', PAUSED: 'resume' };
    const wake = wakes[job.state];
    const state = wake ? transition(JOB_TRANSITIONS, job.state, wake, actor.roles) : job.state;
    const updated = await writeJob(
      trx,
      scope,
      job,
      input.expectedRevision,
      // the job started with the first work captured on it: a record entered offline before the start another device
      // sent moves the start back to it (capture times are UTC ISO strings: they compare as text)
      { state, ...((job.started_at === null || capturedAt < job.started_at) && { started_at: capturedAt }) },
      nowIso,
    );

    // what was signed is no longer what is recorded: the step needs signing again (the old signatures stay, invalidated)
    if (before) await invalidateStepSignatures(trx, scope, job.id, step.id, nowIso);
    const record = await upsertStepRecord(
      trx,
      scope,
      {
        job_id: job.id,
        step_id: step.id,
        status: input.status,
        values: JSON.stringify(values),
        comment: input.comment || null,
        reason: input.status === 'SKIPPED' ? (input.reason ?? null) : null,
        recorded_by: actor.userId,
        recorded_at: nowIso,
        captured_at: capturedAt,
        revision: (before?.revision ?? 0) + 1,
      },
      before,
    );
    // what deviates is on record with the recording that caused it (docs/execution-rules.md)
    const previous = before && {
      status: before.status,
      values: JSON.parse(before.values) as RecordedValue[],
      comment: before.comment,
      reason: before.reason,
    };
    const recording = { status: input.status, values, comment: input.comment, reason: record.reason, notApplicable: how.notApplicable };
    for (const d of deviationsOfRecording(step.fields, previous, recording)) {
      await recordDeviation(trx, scope, {
        jobId: job.id,
        kind: d.kind,
        stepId: step.id,
        fieldKey: d.fieldKey,
        value: d.value,
        detail: d.detail,
        raisedBy: actor.userId,
        at: nowIso,
      });
    }
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'job.step_recorded',
      entityType: 'job',
      entityId: job.id,
      before: { state: job.state, revision: job.revision, record: before ? presentStepRecord(before) : null },
      after: { state: updated.state, revision: updated.revision, record: presentStepRecord(record) },
      at: nowIso,
    });
    const tx = { deps, trx, afterCommit };
    if (wake === 'start') await emitEvent(tx, scope, 'job.started', presentJob(updated));
    await emitEvent(tx, scope, 'job.step.recorded', {
      job: presentJob(updated),
      record: presentStepRecord(record),
      // the keys of the fields recorded outside their limits, for integrations that alert on them
      outOfLimits: values.filter((v) => v.outOfLimits).map((v) => v.key),
    });
    return { job: updated, record };
  });
}

/**
 * No silent overwrite (docs/records.md): the step's record is still the one the device saw — `expected` its revision,
 * 0 or null for none — whoever changed it meanwhile, the same user on another device included.
 * @throws AppError CONFLICT with `details.stepId` and `details.record` (the record now on the server, or null)
 */
function assertStepUnchanged(stepId: string, current: StepRecordRow | undefined, expected: number | null): void {
  const now = current?.revision ?? 0;
  if ((expected ?? 0) === now) return;
  throw conflict(`The step's record changed: expected revision ${expected ?? 0}, it is at ${now}`, {
    stepId,
    record: current ? presentStepRecord(current) : null,
  });
}

/** A job with its members, for REST answers. */
export async function jobWithMembers(deps: Deps, actor: UserActor, job: JobRow) {
  return { ...presentJob(job), ...presentJobMembers(await loadJobMembers(deps.db.kysely, actor.scope, [job.id])) };
}
