import type { Insertable, Kysely } from 'kysely';
import type { DB, StepSignatureRow, StepSignaturesTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** Step sign-offs (docs/execution-rules.md): e-signatures on a job's steps. */

export async function insertStepSignature(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<StepSignaturesTable>, 'client_id'>,
): Promise<StepSignatureRow> {
  return db
    .insertInto('step_signatures')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Every signature of the jobs, the invalidated ones too, oldest first. */
export async function loadStepSignatures(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<StepSignatureRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('step_signatures')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}

/** Re-recording a step: its signatures stop counting (they stay in the record). */
export async function invalidateStepSignatures(
  db: Kysely<DB>,
  scope: TenantScope,
  jobId: number,
  stepId: string,
  nowIso: string,
): Promise<number> {
  const result = await inTenant(db, scope)
    .updateTable('step_signatures')
    .set({ invalidated_at: nowIso })
    .where('job_id', '=', jobId)
    .where('step_id', '=', stepId)
    .where('invalidated_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
