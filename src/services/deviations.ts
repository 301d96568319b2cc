import { z } from 'zod';
import type { Deps } from '#deps';
import type { DeviationRow, JobReviewRow, JobRow, StepRecordRow, StepSignatureRow } from '#db/schema';
import type { CountedPage, PageInput } from '#db/pagination';
import { withTransaction } from '#db/transaction';
import { AppError, conflict } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { canonicalJson } from '#lib/canonical-json';
import { sha256Hex } from '#lib/sha256';
import { DEVIATION_KINDS } from '#domain/deviations';
import { JOB_TRANSITIONS, transition } from '#policies/transitions';
import { appendAudit } from '#repos/audit';
import {
  acknowledgeDeviationRow,
  getDeviationById,
  insertJobReview,
  listDeviations as listDeviationRows,
  loadDeviations,
  type DeviationFilter,
} from '#repos/deviations';
import { getJobById, loadStepRecords } from '#repos/jobs';
import { loadStepSignatures } from '#repos/step-signatures';
import { getUserById } from '#repos/users';
import { auditActor, recordStep, writeJob } from './jobs';
import { verifySignature } from './templates';
import type { RequestMeta, UserActor } from './actor';
import { requirePermission } from '#policies/permissions';
import type { ReviewPart } from '#domain/vocabulary';

/**
 * Deviations and review by exception (docs/execution-rules.md). The server
 * records a deviation with whatever caused it (services/jobs.ts: a value out
 * of limits, a FAILED step, a late completion; services/faults.ts: a fault;
 * here: a step marked not applicable; recordDeviation for others, e.g. an
 * override). Reviewers (PERMISSIONS.reviewDeviations) acknowledge each
 * with a comment; then one of them who took no part in the job's steps signs
 * the completed job REVIEWED, which moves it to the state REVIEWED.
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Comment = z.string().trim().min(1, 'a comment is required').max(5000);

export const DeviationFilterInput = z
  .object({
    jobId: Id.nullish(),
    kind: z.enum(DEVIATION_KINDS).nullish(),
    from: z.iso.datetime({ offset: true }).nullish(),
    to: z.iso.datetime({ offset: true }).nullish(),
    reviewed: z.boolean().nullish(),
  })
  .nullish();
export type DeviationFilterInput = z.input<typeof DeviationFilterInput>;

const iso = (value: string | null | undefined) => (value ? new Date(value).toISOString() : null);

/** The client's deviations across jobs, in id order: every user of the client reads them, as they read jobs. */
export function listDeviations(
  deps: Deps,
  actor: UserActor,
  raw: DeviationFilterInput,
  page: PageInput,
): Promise<CountedPage<DeviationRow>> {
  const input = parseOrFail(DeviationFilterInput, raw) ?? {};
  const filter: DeviationFilter = {
    jobId: input.jobId,
    kind: input.kind,
    from: iso(input.from),
    to: iso(input.to),
    reviewed: input.reviewed,
  };
  return listDeviationRows(deps.db.kysely, actor.scope, filter, page);
}

/** @throws AppError NOT_FOUND, also for another client's deviation */
export function getDeviation(deps: Deps, actor: UserActor, deviationId: number): Promise<DeviationRow> {
  return getDeviationById(deps.db.kysely, actor.scope, deviationId);
}

export const AcknowledgeDeviationInput = z.object({ deviationId: Id, comment: Comment });
export type AcknowledgeDeviationInput = z.input<typeof AcknowledgeDeviationInput>;

/**
 * A reviewer's comment on one deviation: it is then acknowledged (by whom and
 * when, the name copied like a signature's).
 * @throws AppError FORBIDDEN (not a reviewer), NOT_FOUND, VALIDATION_ERROR (no comment), CONFLICT (already acknowledged)
 */
export async function acknowledgeDeviation(deps: Deps, actor: UserActor, raw: AcknowledgeDeviationInput): Promise<DeviationRow> {
  requirePermission(actor.roles, 'reviewDeviations');
  const input = parseOrFail(AcknowledgeDeviationInput, raw);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const deviation = await getDeviationById(trx, scope, input.deviationId);
    const user = await getUserById(trx, scope, actor.userId);
    const name = `${user.first_name} ${user.last_name}`.trim() || user.email;
    const acknowledged = await acknowledgeDeviationRow(trx, scope, deviation.id, {
      comment: input.comment,
      userId: actor.userId,
      name,
      at: nowIso,
    });
    if (!acknowledged)
      throw conflict('The deviation is already acknowledged', { deviationId: deviation.id, acknowledgedAt: deviation.acknowledged_at });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'deviation.acknowledged',
      entityType: 'job',
      entityId: deviation.job_id,
      after: { deviationId: deviation.id, kind: deviation.kind, stepId: deviation.step_id, comment: input.comment },
      at: nowIso,
    });
    return acknowledged;
  });
}

export const MarkStepNotApplicableInput = z.object({
  jobId: Id,
  stepId: z.string().min(1).max(64),
  reason: z.string().trim().min(1, 'a reason is required').max(2000),
});
export type MarkStepNotApplicableInput = z.input<typeof MarkStepNotApplicableInput>;

/**
 * The operator marks a step not applicable, with a reason — only a step whose
 * template allows it (`allowNotApplicable: true`). The step is recorded
 * SKIPPED with the reason by recordStep (same rights, same checks), which
 * writes the NOT_APPLICABLE deviation with the record.
 * @throws AppError what recordStep throws (FORBIDDEN, JOB_CLOSED, STEP_NOT_APPLICABLE, CONFLICT, …),
 *   VALIDATION_ERROR (`reason` empty; `stepId` unknown or not allowed to be marked not applicable)
 */
export async function markStepNotApplicable(deps: Deps, actor: UserActor, raw: MarkStepNotApplicableInput): Promise<JobRow> {
  requirePermission(actor.roles, 'runJob');
  const input = parseOrFail(MarkStepNotApplicableInput, raw);
  const { job } = await recordStep(
    deps,
    actor,
    { jobId: input.jobId, stepId: input.stepId, status: 'SKIPPED', reason: input.reason, values: [] },
    { notApplicable: true },
  );
  return job;
}

export const ReviewJobInput = z.object({
  jobId: Id,
  password: z.string().max(1024).nullish(),
  code: z.string().max(64).nullish(),
  comment: z.string().trim().max(5000).nullish(),
});
export type ReviewJobInput = z.input<typeof ReviewJobInput>;

/** What a review signs: the job's deviations as acknowledged (SHA-256 of their canonical JSON). */
export function deviationsHash(deviations: readonly DeviationRow[]): Promise<string> {
  return sha256Hex(
    canonicalJson(
      deviations.map((d) => ({
        id: d.id,
        kind: d.kind,
        stepId: d.step_id,
        fieldKey: d.field_key,
        value: d.value,
        detail: d.detail,
        comment: d.ack_comment,
        acknowledgedBy: d.acknowledged_by,
        acknowledgedAt: d.acknowledged_at,
      })),
    ),
  );
}

/**
 * The separation of duties of a job's review (docs/execution-rules.md): the first step `userId` recorded, performed
 * or verified (a signature that no longer counts included: it is part of the record), or null — only then may they
 * sign the job REVIEWED. reviewJob refuses with it; Job.viewerReviewBlock says it before anyone signs.
 */
export function partTaken(
  records: readonly Pick<StepRecordRow, 'step_id' | 'recorded_by'>[],
  signatures: readonly Pick<StepSignatureRow, 'step_id' | 'signer_id' | 'meaning'>[],
  userId: number,
): { stepId: string; part: ReviewPart } | null {
  const recorded = records.find((r) => r.recorded_by === userId);
  if (recorded) return { stepId: recorded.step_id, part: 'RECORDED' };
  const signed = signatures.find((s) => s.signer_id === userId);
  return signed ? { stepId: signed.step_id, part: signed.meaning } : null;
}

export type ReviewBlock = { reason: 'NOT_A_REVIEWER' | 'NOT_COMPLETED' } | { reason: 'TOOK_PART'; stepId: string; part: ReviewPart };

/**
 * Why `actor` may not sign `job` REVIEWED, by reviewJob's own rules — the review transition (role, state) and the
 * separation of duties — or null: they may, once every deviation is acknowledged (a signature is still asked).
 */
export function reviewBlock(
  actor: UserActor,
  job: Pick<JobRow, 'state'>,
  records: Parameters<typeof partTaken>[0],
  signatures: Parameters<typeof partTaken>[1],
): ReviewBlock | null {
  try {
    transition(JOB_TRANSITIONS, job.state, 'review', actor.roles);
  } catch (error) {
    if (error instanceof AppError && error.code === 'FORBIDDEN') return { reason: 'NOT_A_REVIEWER' };
    if (error instanceof AppError && error.code === 'INVALID_TRANSITION') return { reason: 'NOT_COMPLETED' };
    throw error;
  }
  const took = partTaken(records, signatures, actor.userId);
  return took && { reason: 'TOOK_PART', ...took };
}

/**
 * Reviews a completed job: an e-signature with the meaning REVIEWED (password
 * or TOTP; a wrong one counts toward the lockout) by a reviewer (the review
 * transition's roles) who neither recorded, performed nor verified a step of
 * the job, once every deviation of the job is acknowledged. COMPLETED → REVIEWED.
 * @throws AppError NOT_FOUND, FORBIDDEN, INVALID_TRANSITION (not COMPLETED), SEPARATION_OF_DUTIES,
 *   COMMENT_REQUIRED (`details.deviationIds`: deviations not acknowledged yet), INVALID_CREDENTIALS,
 *   TOO_MANY_ATTEMPTS, VALIDATION_ERROR
 */
export async function reviewJob(
  deps: Deps,
  actor: UserActor,
  raw: ReviewJobInput,
  meta: RequestMeta,
): Promise<{ job: JobRow; review: JobReviewRow }> {
  // who may review at all, before the signature: a wrong password of someone who may not is no attempt at signing
  requirePermission(actor.roles, 'reviewJob');
  const input = parseOrFail(ReviewJobInput, raw);
  const scope = actor.scope;
  // before the transaction: a failed attempt is recorded toward the lockout whatever happens next
  const signer = await verifySignature(deps, actor, { password: input.password, code: input.code }, meta);
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const job = await getJobById(trx, scope, input.jobId);
    const to = transition(JOB_TRANSITIONS, job.state, 'review', actor.roles);
    const [records, signatures] = await Promise.all([loadStepRecords(trx, scope, [job.id]), loadStepSignatures(trx, scope, [job.id])]);
    const took = partTaken(records, signatures, actor.userId);
    if (took) {
      throw new AppError('SEPARATION_OF_DUTIES', 'The reviewer of a job must not have recorded, performed or verified a step of it', {
        jobId: job.id,
        stepId: took.stepId,
        part: took.part,
      });
    }
    const deviations = await loadDeviations(trx, scope, [job.id]);
    const open = deviations.filter((d) => d.acknowledged_at === null);
    if (open.length > 0) {
      throw new AppError('COMMENT_REQUIRED', `${open.length} deviation(s) of the job are not acknowledged with a comment yet`, {
        deviationIds: open.map((d) => d.id),
      });
    }
    const updated = await writeJob(trx, scope, job, null, { state: to }, nowIso);
    const review = await insertJobReview(trx, scope, {
      job_id: job.id,
      signer_id: actor.userId,
      signer_name: signer.name,
      signer_email: signer.email,
      method: signer.method,
      comment: input.comment ?? '',
      deviations_hash: await deviationsHash(deviations),
      signed_at: nowIso,
    });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'job.reviewed',
      entityType: 'job',
      entityId: job.id,
      before: { state: job.state, revision: job.revision },
      after: {
        state: updated.state,
        revision: updated.revision,
        signerName: signer.name,
        method: signer.method,
        deviations: deviations.length,
        deviationsHash: review.deviations_hash,
      },
      at: nowIso,
    });
    return { job: updated, review };
  });
}

export function presentDeviation(d: DeviationRow) {
  return {
    id: d.id,
    jobId: d.job_id,
    kind: d.kind,
    stepId: d.step_id,
    fieldKey: d.field_key,
    value: d.value === null ? null : (JSON.parse(d.value) as unknown),
    detail: d.detail,
    faultId: d.fault_id,
    raisedById: d.raised_by,
    raisedAt: d.raised_at,
    acknowledged: d.acknowledged_at !== null,
    comment: d.ack_comment,
    acknowledgedById: d.acknowledged_by,
    acknowledgedByName: d.acknowledged_by_name,
    acknowledgedAt: d.acknowledged_at,
  };
}
export type PresentedDeviation = ReturnType<typeof presentDeviation>;

export function presentJobReview(r: JobReviewRow) {
  return {
    signerId: r.signer_id,
    signerName: r.signer_name,
    meaning: 'REVIEWED' as const,
    signedAt: r.signed_at,
    comment: r.comment || null,
    deviationsHash: r.deviations_hash,
  };
}
export type PresentedJobReview = ReturnType<typeof presentJobReview>;
