import { z } from 'zod';
import type { Deps } from '#deps';
import { withTransaction } from '#db/transaction';
import { parseOrFail } from '#lib/parse-or-fail';
import { appendAudit } from '#repos/audit';
import { readDataEpoch } from '#repos/data-epoch';
import { recordDeviation } from '#repos/deviations';
import { findJobById } from '#repos/jobs';
import { auditActor } from './jobs';
import type { UserActor } from './actor';

/**
 * A device's side of a restore (docs/reliability.md "The data
 * epoch"): the epoch it compares with, and the report of a write it had been
 * told was recorded, lost with a restore and refused when sent again. Nothing
 * a device reports disappears: the audit trail keeps every report, and a
 * report about a job of the caller's client is a deviation of that job
 * (UNAPPLIED_CHANGE), which reviewers see and must acknowledge.
 */

/** The epoch as the database holds it now ('' only before the first start migrated the database). */
export async function currentDataEpoch(deps: Deps): Promise<string> {
  return (await readDataEpoch(deps.db.kysely)) ?? '';
}

/** At most this much of the body that was sent is kept as evidence (serialized). */
const MAX_PAYLOAD_CHARS = 64 * 1024;

export const UnappliedReportInput = z
  .object({
    idempotencyKey: z.string().min(1).max(255),
    operation: z.string().trim().min(1).max(100),
    jobId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable(),
    stepId: z.string().min(1).max(64).nullable(),
    acknowledgedAt: z.iso.datetime({ offset: true }),
    acknowledgedEpoch: z.string().min(1).max(100),
    error: z.object({ code: z.string().min(1).max(100), message: z.string().max(2000) }).strict(),
    summary: z.string().trim().min(1).max(2000),
    payload: z
      .unknown()
      .refine(
        (value) => JSON.stringify(value ?? null).length <= MAX_PAYLOAD_CHARS,
        `must be at most ${MAX_PAYLOAD_CHARS} characters as JSON`,
      )
      .nullable(),
  })
  .strict();
export type UnappliedReportInput = z.input<typeof UnappliedReportInput>;

export interface UnappliedReport {
  /** the UNAPPLIED_CHANGE deviation, when the report names a job of the caller's client */
  deviationId: number | null;
  jobId: number | null;
}

/**
 * Records a write the device could not apply again after a restore: an audit
 * entry `sync.unapplied` always, and a deviation UNAPPLIED_CHANGE on the job
 * when `jobId` names one of the caller's client (another client's job, or a
 * job lost with the restore, is no job here: only the audit entry, and the
 * same answer either way, so nothing tells them apart).
 * @throws AppError VALIDATION_ERROR
 */
export async function reportUnapplied(deps: Deps, actor: UserActor, raw: UnappliedReportInput): Promise<UnappliedReport> {
  const input = parseOrFail(UnappliedReportInput, raw);
  const scope = actor.scope;
  const at = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx) => {
    const job = input.jobId === null ? undefined : await findJobById(trx, scope, input.jobId);
    const detail =
      `${input.summary} — refused when sent again after a restore: ${input.error.code}: ${input.error.message} ` +
      `(recorded by the server at ${new Date(input.acknowledgedAt).toISOString()}, ${input.operation}, key ${input.idempotencyKey})`;
    const deviation = job
      ? await recordDeviation(trx, scope, {
          jobId: job.id,
          kind: 'UNAPPLIED_CHANGE',
          stepId: input.stepId,
          value: { operation: input.operation, idempotencyKey: input.idempotencyKey, error: input.error },
          detail,
          raisedBy: actor.userId,
          at,
        })
      : undefined;
    await appendAudit(trx, scope, {
      actor: auditActor(actor),
      action: 'sync.unapplied',
      entityType: job ? 'job' : 'device-write',
      entityId: job?.id ?? input.idempotencyKey,
      after: { ...input, deviationId: deviation?.id ?? null, jobFound: job !== undefined },
      at,
    });
    return { deviationId: deviation?.id ?? null, jobId: job?.id ?? null };
  });
}
