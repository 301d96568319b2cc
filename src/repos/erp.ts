import type { Kysely } from 'kysely';
import type { DB, ErpSyncRunRow, JobRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** ERP sync: which upstream work orders became which jobs, and the runs. */

export async function findLinkedWorkOrderIds(db: Kysely<DB>, scope: TenantScope, externalIds: readonly string[]): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const rows = await inTenant(db, scope)
    .selectFrom('erp_work_orders')
    .select('external_id')
    .where('external_id', 'in', [...externalIds])
    .execute();
  return new Set(rows.map((r) => r.external_id));
}

export async function insertWorkOrderLink(
  db: Kysely<DB>,
  scope: TenantScope,
  externalId: string,
  jobId: number,
  now: string,
): Promise<void> {
  await db
    .insertInto('erp_work_orders')
    .values({ client_id: scope.clientId, external_id: externalId, job_id: jobId, created_at: now, result_pushed_at: null })
    .execute();
}

/** Completed jobs of pulled work orders whose result has not been pushed yet. */
export async function listResultsToPush(db: Kysely<DB>, scope: TenantScope, limit: number): Promise<{ externalId: string; job: JobRow }[]> {
  const rows = await inTenant(db, scope)
    .selectFrom('erp_work_orders')
    .innerJoin('jobs', (join) =>
      join.onRef('jobs.client_id', '=', 'erp_work_orders.client_id').onRef('jobs.id', '=', 'erp_work_orders.job_id'),
    )
    .selectAll('jobs')
    .select('erp_work_orders.external_id')
    .where('erp_work_orders.result_pushed_at', 'is', null)
    .where('jobs.state', 'in', ['COMPLETED', 'REVIEWED'])
    .orderBy('jobs.id')
    .limit(limit)
    .execute();
  return rows.map(({ external_id, ...job }) => ({ externalId: external_id, job: job }));
}

export async function markResultPushed(db: Kysely<DB>, scope: TenantScope, externalId: string, now: string): Promise<void> {
  await inTenant(db, scope).updateTable('erp_work_orders').set({ result_pushed_at: now }).where('external_id', '=', externalId).execute();
}

export async function insertSyncRun(
  db: Kysely<DB>,
  scope: TenantScope,
  run: Omit<ErpSyncRunRow, 'id' | 'client_id'>,
): Promise<ErpSyncRunRow> {
  return db
    .insertInto('erp_sync_runs')
    .values({ ...run, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listRecentSyncRuns(db: Kysely<DB>, scope: TenantScope, limit: number): Promise<ErpSyncRunRow[]> {
  return inTenant(db, scope).selectFrom('erp_sync_runs').selectAll().orderBy('id', 'desc').limit(limit).execute();
}

export async function findTemplateIdByTitle(db: Kysely<DB>, scope: TenantScope, title: string): Promise<number | undefined> {
  const row = await inTenant(db, scope)
    .selectFrom('templates')
    .select('id')
    .where('title', '=', title)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

export async function findAssetIdBySerial(db: Kysely<DB>, scope: TenantScope, serialNumber: string): Promise<number | undefined> {
  const row = await inTenant(db, scope)
    .selectFrom('assets')
    .select('id')
    .where('serial_number', '=', serialNumber)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
