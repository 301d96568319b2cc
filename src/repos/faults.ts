import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB, FaultRow, FaultsTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { notFound } from '#errors';

/** Faults raised from a step, a job or an asset. */

export type NewFault = Omit<Insertable<FaultsTable>, 'client_id' | 'id'>;

export async function insertFault(db: Kysely<DB>, scope: TenantScope, fault: NewFault): Promise<FaultRow> {
  return db
    .insertInto('faults')
    .values({ ...fault, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND, also for a fault of another client */
export async function getFaultById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<FaultRow> {
  const fault = await inTenant(db, scope).selectFrom('faults').selectAll().where('id', '=', id).executeTakeFirst();
  if (!fault) throw notFound('Fault');
  return fault;
}

export async function updateFault(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  changes: Omit<Updateable<FaultsTable>, 'id' | 'client_id'>,
): Promise<FaultRow> {
  const row = await inTenant(db, scope).updateTable('faults').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('Fault');
  return row;
}

/** A page of the faults of a job and/or an asset (both filters apply together; neither: all the client's), in id order (the newest last). */
export function listFaults(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: { jobId?: number | null; assetId?: number | null },
  page: PageInput,
): Promise<CountedPage<FaultRow>> {
  let query = inTenant(db, scope).selectFrom('faults').selectAll();
  if (filter.jobId != null) query = query.where('job_id', '=', filter.jobId);
  if (filter.assetId != null) query = query.where('asset_id', '=', filter.assetId);
  return paginateCounted(query, page);
}

/** Faults of the client's jobs among `jobIds` (DataLoader batch). */
export async function loadFaultsOfJobs(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<FaultRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('faults')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}

/** Faults of the client among `ids` (DataLoader batch: a follow-up job's fault). */
export async function loadFaultsByIds(db: Kysely<DB>, scope: TenantScope, ids: readonly number[]): Promise<FaultRow[]> {
  if (ids.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('faults')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
}

/** The open faults raised on one step of a job (a FAILED step's follow-up takes the newest one). */
export async function listOpenFaultsOfStep(db: Kysely<DB>, scope: TenantScope, jobId: number, stepId: string): Promise<FaultRow[]> {
  return inTenant(db, scope)
    .selectFrom('faults')
    .selectAll()
    .where('job_id', '=', jobId)
    .where('step_id', '=', stepId)
    .where('state', '=', 'OPEN')
    .orderBy('id')
    .execute();
}
