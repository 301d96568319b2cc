import { z } from 'zod';
import type { Deps } from '#deps';
import type { FaultRow, JobRow } from '#db/schema';
import { AppError, validationFailed } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { findStep } from '#domain/content';
import { presentFault } from '#presenters/jobs';
import { presentFollowUp } from '#presenters/schedules';
import { appendAudit } from '#repos/audit';
import { getFaultById, insertFault, listOpenFaultsOfStep } from '#repos/faults';
import { findStepRecord, getJobById } from '#repos/jobs';
import { insertFollowUp } from '#repos/schedules';
import { emitEvent } from '#events/emit';
import type { UserActor } from './actor';
import { auditActor, createJob, jobContent } from './jobs';
import { requirePermission } from '#policies/permissions';

/**
 * Follow-up jobs (docs/recurring-and-follow-up-jobs.md): from a
 * fault — or from a FAILED step, whose open fault is taken (one is raised for
 * it when there is none) — a user who may plan work creates a job from a
 * published template. The job and the fault name each other (follow_up_jobs),
 * and with `closesFault` completing the job closes the fault
 * (services/fault-closing.ts). The job is createJob's, in one transaction
 * with the link: no job without its fault, no link without its job.
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const CreateFollowUpJobInput = z
  .object({
    faultId: Id.nullish(),
    /** a FAILED step of a job, instead of a fault */
    failedStep: z.object({ jobId: Id, stepId: z.string().min(1).max(64) }).nullish(),
    templateId: Id,
    /** default: "Follow-up: " and the fault's description */
    title: z.string().trim().min(1).max(200).nullish(),
    /** default: the fault's asset */
    assetId: Id.nullish(),
    priority: z.enum(['HIGH', 'MEDIUM', 'LOW']).nullish(),
    assigneeIds: z.array(Id).max(100).nullish(),
    dueAt: z.iso.datetime({ offset: true }).nullish(),
    /** completing the job closes the fault */
    closesFault: z.boolean().nullish(),
  })
  .superRefine((input, ctx) => {
    if ((input.faultId == null) === (input.failedStep == null))
      ctx.addIssue({ code: 'custom', path: ['faultId'], message: 'name a fault or a failed step (failedStep), one of them' });
  });
export type CreateFollowUpJobInput = z.input<typeof CreateFollowUpJobInput>;

const titleOf = (fault: Pick<FaultRow, 'description'>) => `Follow-up: ${fault.description.replace(/\s+/g, ' ').trim()}`.slice(0, 200);

/**
 * @returns the job and the fault it follows up
 * @throws AppError FORBIDDEN, NOT_FOUND (fault, job, template, asset, user), NO_PUBLISHED_VERSION,
 *   VALIDATION_ERROR (neither or both of faultId and failedStep; a step that is not FAILED), INVALID_TRANSITION (a closed fault)
 */
export async function createFollowUpJob(
  deps: Deps,
  actor: UserActor,
  raw: CreateFollowUpJobInput,
): Promise<{ job: JobRow; fault: FaultRow }> {
  requirePermission(actor.roles, 'createFollowUpJob');
  const input = parseOrFail(CreateFollowUpJobInput, raw);
  const scope = actor.scope;
  const db = deps.db.kysely;
  // read first for the job's defaults (title, asset); checked again in the job's transaction
  const source =
    input.faultId != null ? await getFaultById(db, scope, input.faultId) : await failedStepSource(deps, actor, input.failedStep!);
  assertOpen(source);
  let fault: FaultRow | undefined;
  const job = await createJob(
    deps,
    actor,
    {
      templateId: input.templateId,
      title: input.title ?? titleOf(source),
      assetId: input.assetId !== undefined ? input.assetId : source.asset_id,
      priority: input.priority,
      assigneeIds: input.assigneeIds,
      dueAt: input.dueAt,
    },
    async (trx, job, afterCommit) => {
      const nowIso = job.created_at;
      let target: FaultRow | undefined;
      if (input.faultId != null) target = await getFaultById(trx, scope, input.faultId);
      else {
        const { jobId, stepId } = input.failedStep!;
        const record = await findStepRecord(trx, scope, jobId, stepId);
        if (record?.status !== 'FAILED') throw notFailed(stepId);
        target = (await listOpenFaultsOfStep(trx, scope, jobId, stepId)).at(-1);
        if (!target) {
          const failedJob = await getJobById(trx, scope, jobId);
          target = await insertFault(trx, scope, {
            job_id: jobId,
            step_id: stepId,
            asset_id: failedJob.asset_id,
            description: source.description,
            severity: 'MEDIUM',
            photos: '[]',
            state: 'OPEN',
            raised_by: actor.userId,
            raised_at: nowIso,
            captured_at: nowIso,
            closed_by: null,
            closed_at: null,
            close_note: null,
          });
          await appendAudit(trx, scope, {
            actor: auditActor(actor),
            action: 'fault.raised',
            entityType: 'fault',
            entityId: target.id,
            after: presentFault(target),
            at: nowIso,
          });
          await emitEvent({ deps, trx, afterCommit }, scope, 'fault.raised', presentFault(target));
        }
      }
      assertOpen(target);
      fault = target;
      const link = await insertFollowUp(trx, scope, {
        fault_id: target.id,
        job_id: job.id,
        closes_fault: input.closesFault ? 1 : 0,
        created_by: actor.userId,
        created_at: nowIso,
      });
      await appendAudit(trx, scope, {
        actor: auditActor(actor),
        action: 'fault.follow_up_created',
        entityType: 'fault',
        entityId: target.id,
        after: presentFollowUp(link),
        at: nowIso,
      });
    },
  );
  return { job, fault: fault! };
}

const notFailed = (stepId: string) =>
  validationFailed({ fields: [{ path: 'failedStep.stepId', message: `step "${stepId}" is not recorded as FAILED` }] });

/** @throws AppError INVALID_TRANSITION for a closed fault: it needs no follow-up */
function assertOpen(fault: Pick<FaultRow, 'id' | 'state'>): void {
  if (fault.state !== 'OPEN')
    throw new AppError('INVALID_TRANSITION', 'The fault is closed: raise a new one for new work', {
      faultId: fault.id,
      state: fault.state,
    });
}

/** What a FAILED step's follow-up starts from: its newest open fault, or what a fault raised for it would say. */
async function failedStepSource(
  deps: Deps,
  actor: UserActor,
  failed: { jobId: number; stepId: string },
): Promise<Pick<FaultRow, 'id' | 'state' | 'description' | 'asset_id'>> {
  const db = deps.db.kysely;
  const job = await getJobById(db, actor.scope, failed.jobId);
  const step = findStep(await jobContent(db, actor.scope, job), failed.stepId);
  if (!step)
    throw validationFailed({ fields: [{ path: 'failedStep.stepId', message: `the job's version has no step "${failed.stepId}"` }] });
  const record = await findStepRecord(db, actor.scope, job.id, failed.stepId);
  if (record?.status !== 'FAILED') throw notFailed(failed.stepId);
  const open = (await listOpenFaultsOfStep(db, actor.scope, job.id, failed.stepId)).at(-1);
  if (open) return open;
  return {
    id: 0,
    state: 'OPEN',
    description: `Step "${step.title}" of job ${job.id} (${job.title}) failed`.slice(0, 5000),
    asset_id: job.asset_id,
  };
}
