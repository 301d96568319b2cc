import type { CountedPage, PageInput } from '#db/pagination';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { FaultRow, JobRow } from '#db/schema';
import { withTransaction } from '#db/transaction';
import { validationFailed } from '#errors';
import { findStep } from '#domain/content';
import { FAULT_TRANSITIONS, transition } from '#policies/transitions';
import { presentFault } from '#presenters/jobs';
import { appendAudit } from '#repos/audit';
import { getFaultById, insertFault, listFaults as listFaultRows, updateFault } from '#repos/faults';
import { recordDeviation } from '#repos/deviations';
import { getJobById } from '#repos/jobs';
import type { UserActor } from './actor';
import { assertAssetOfClient, auditActor, captureOnJob, jobContent } from './jobs';
import { captureTime } from '#domain/capture-time';
import { parseOrFail } from '#lib/parse-or-fail';
import { assertFilesOfClient } from './files';
import { emitEvent } from '#events/emit';
import { notify } from './notifications';
import { requirePermission } from '#policies/permissions';

/**
 * Faults: raised by an operator from a step of a job, a job, or an asset
 * directly; listed per job and per asset; closed with a note (FAULT_TRANSITIONS).
 * A fault on a job lands on the job's asset unless another asset is named.
 * Raising a fault does not write the job (its revision stays): faults are
 * their own records, and may be raised on a closed job (found afterwards).
 */

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const RaiseFaultInput = z
  .object({
    jobId: Id.nullish(),
    stepId: z.string().min(1).max(64).nullish(),
    assetId: Id.nullish(),
    description: z.string().trim().min(1).max(5000),
    severity: z.enum(['LOW', 'MEDIUM', 'HIGH', 'CRITICAL']),
    photos: z.array(Id).max(50).nullish(),
    /** when it was raised on the device, in server time (docs/records.md) */
    capturedAt: z.iso.datetime({ offset: true }).nullish(),
  })
  .superRefine((input, ctx) => {
    if (input.jobId == null && input.assetId == null)
      ctx.addIssue({ code: 'custom', path: ['jobId'], message: 'a fault is raised from a job, a step of a job or an asset' });
    if (input.stepId != null && input.jobId == null)
      ctx.addIssue({ code: 'custom', path: ['stepId'], message: 'a step is named together with its job' });
  });
export type RaiseFaultInput = z.input<typeof RaiseFaultInput>;

/**
 * `capturedAt`: when the device raised it (docs/records.md: the same bounds as a step record's).
 * @throws AppError FORBIDDEN, NOT_FOUND (job or asset not the client's), VALIDATION_ERROR (also `capturedAt`)
 */
export async function raiseFault(deps: Deps, actor: UserActor, raw: RaiseFaultInput): Promise<FaultRow> {
  requirePermission(actor.roles, 'runJob');
  const input = parseOrFail(RaiseFaultInput, raw);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    let assetId = input.assetId ?? null;
    let job: JobRow | null = null;
    if (input.jobId != null) {
      job = await getJobById(trx, scope, input.jobId);
      assetId ??= job.asset_id;
      if (input.stepId != null) {
        if (!findStep(await jobContent(trx, scope, job), input.stepId))
          throw validationFailed({ fields: [{ path: 'stepId', message: `the job's version has no step "${input.stepId}"` }] });
      }
    }
    const asset = input.assetId != null ? await assertAssetOfClient(trx, scope, input.assetId) : null;
    // a fault on a job was captured while the job existed; one on an asset alone, while the asset did
    const capturedAt = job
      ? captureOnJob(input.capturedAt, job, deps.clock.now())
      : captureTime(input.capturedAt, { now: deps.clock.now(), notBefore: { at: asset!.created_at, what: 'the asset' } });
    await assertFilesOfClient(trx, scope, input.photos ?? [], 'photos');
    const fault = await insertFault(trx, scope, {
      job_id: input.jobId ?? null,
      step_id: input.stepId ?? null,
      asset_id: assetId,
      description: input.description,
      severity: input.severity,
      photos: JSON.stringify(input.photos ?? []),
      state: 'OPEN',
      raised_by: actor.userId,
      raised_at: nowIso,
      captured_at: capturedAt,
      closed_by: null,
      closed_at: null,
      close_note: null,
    });
    // a fault raised on a job is one of its deviations (docs/execution-rules.md)
    if (job)
      await recordDeviation(trx, scope, {
        jobId: job.id,
        kind: 'FAULT',
        stepId: fault.step_id,
        detail: `${fault.severity}: ${fault.description}`,
        faultId: fault.id,
        raisedBy: actor.userId,
        at: nowIso,
      });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'fault.raised',
      entityType: 'fault',
      entityId: fault.id,
      after: presentFault(fault),
      at: nowIso,
    });
    await emitEvent({ deps, trx, afterCommit }, scope, 'fault.raised', presentFault(fault));
    await notify({ deps, trx, afterCommit }, actor, { kind: 'fault_raised', fault, job });
    return fault;
  });
}

/**
 * @throws AppError NOT_FOUND, FORBIDDEN, INVALID_TRANSITION (already closed), VALIDATION_ERROR (empty note)
 */
export async function closeFault(deps: Deps, actor: UserActor, input: { faultId: number; note: string }): Promise<FaultRow> {
  const note = parseOrFail(z.string().trim().min(1).max(5000), input.note);
  const scope = actor.scope;
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const fault = await getFaultById(trx, scope, input.faultId);
    const state = transition(FAULT_TRANSITIONS, fault.state, 'close', actor.roles);
    const closed = await updateFault(trx, scope, fault.id, { state, closed_by: actor.userId, closed_at: nowIso, close_note: note });
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'fault.closed',
      entityType: 'fault',
      entityId: fault.id,
      before: { state: fault.state },
      after: { state: closed.state, closeNote: note },
      at: nowIso,
    });
    await emitEvent({ deps, trx, afterCommit }, scope, 'fault.closed', presentFault(closed));
    return closed;
  });
}

/**
 * A page of the faults of a job and/or an asset; with neither, of the whole client.
 * @throws AppError NOT_FOUND when the job or asset is not the client's
 */
export async function listFaults(
  deps: Deps,
  actor: UserActor,
  filter: { jobId?: number | null; assetId?: number | null },
  page: PageInput,
): Promise<CountedPage<FaultRow>> {
  const db = deps.db.kysely;
  if (filter.jobId != null) await getJobById(db, actor.scope, filter.jobId);
  if (filter.assetId != null) await assertAssetOfClient(db, actor.scope, filter.assetId);
  return listFaultRows(db, actor.scope, filter, page);
}
