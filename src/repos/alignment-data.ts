import type { Insertable, Kysely } from 'kysely';
import type { AlignmentDataRow, AlignmentDataTable, DB } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

export async function insertAlignmentData(
  trx: Kysely<DB>,
  scope: TenantScope,
  values: Omit<Insertable<AlignmentDataTable>, 'client_id'>,
): Promise<AlignmentDataRow> {
  return trx
    .insertInto('alignment_data')
    .values({ ...values, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The newest alignment data of an asset, or of a template step. */
export async function findLatestAlignmentData(
  db: Kysely<DB>,
  scope: TenantScope,
  target: { assetId: number } | { templateId: number; stepId: string },
): Promise<AlignmentDataRow | undefined> {
  let query = inTenant(db, scope).selectFrom('alignment_data').selectAll();
  query =
    'assetId' in target
      ? query.where('asset_id', '=', target.assetId)
      : query.where('template_id', '=', target.templateId).where('step_id', '=', target.stepId);
  return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
}
