import type { Insertable, Kysely } from 'kysely';
import type { DB, DeviationKind, DeviationRow, DeviationsTable, JobReviewRow, JobReviewsTable } from '#db/schema';
import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import { inTenant, type TenantScope } from '#db/tenant';
import { notFound } from '#errors';

/** Deviations of jobs and the REVIEWED signatures on jobs (docs/execution-rules.md), tenant-scoped. */

export type NewDeviation = Omit<
  Insertable<DeviationsTable>,
  'client_id' | 'id' | 'ack_comment' | 'acknowledged_by' | 'acknowledged_by_name' | 'acknowledged_at'
>;

export async function insertDeviation(db: Kysely<DB>, scope: TenantScope, row: NewDeviation): Promise<DeviationRow> {
  return db
    .insertInto('deviations')
    .values({
      ...row,
      client_id: scope.clientId,
      ack_comment: null,
      acknowledged_by: null,
      acknowledged_by_name: null,
      acknowledged_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND, also for another client's deviation */
export async function getDeviationById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<DeviationRow> {
  const row = await inTenant(db, scope).selectFrom('deviations').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Deviation');
  return row;
}

/** Every deviation of the jobs, oldest first (a DataLoader batch, the renderings). */
export async function loadDeviations(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<DeviationRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('deviations')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}

export interface DeviationFilter {
  jobId?: number | null;
  kind?: DeviationKind | null;
  /** raised at or after (ISO) */
  from?: string | null;
  /** raised before (ISO) */
  to?: string | null;
  /** true: acknowledged ones only; false: those still to acknowledge */
  reviewed?: boolean | null;
}

/** A page of the client's deviations, in id order. */
export function listDeviations(
  db: Kysely<DB>,
  scope: TenantScope,
  filter: DeviationFilter,
  page: PageInput,
): Promise<CountedPage<DeviationRow>> {
  let query = inTenant(db, scope).selectFrom('deviations').selectAll();
  if (filter.jobId != null) query = query.where('job_id', '=', filter.jobId);
  if (filter.kind != null) query = query.where('kind', '=', filter.kind);
  if (filter.from != null) query = query.where('raised_at', '>=', filter.from);
  if (filter.to != null) query = query.where('raised_at', '<', filter.to);
  if (filter.reviewed === true) query = query.where('acknowledged_at', 'is not', null);
  if (filter.reviewed === false) query = query.where('acknowledged_at', 'is', null);
  return paginateCounted(query, page);
}

/** Acknowledges a deviation not acknowledged yet; undefined when it already was (a concurrent reviewer). */
export async function acknowledgeDeviationRow(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  ack: { comment: string; userId: number; name: string; at: string },
): Promise<DeviationRow | undefined> {
  return inTenant(db, scope)
    .updateTable('deviations')
    .set({ ack_comment: ack.comment, acknowledged_by: ack.userId, acknowledged_by_name: ack.name, acknowledged_at: ack.at })
    .where('id', '=', id)
    .where('acknowledged_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

export async function insertJobReview(
  db: Kysely<DB>,
  scope: TenantScope,
  row: Omit<Insertable<JobReviewsTable>, 'client_id' | 'id'>,
): Promise<JobReviewRow> {
  return db
    .insertInto('job_reviews')
    .values({ ...row, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function loadJobReviews(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<JobReviewRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('job_reviews')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}

export interface DeviationInput {
  jobId: number;
  kind: DeviationKind;
  stepId?: string | null;
  fieldKey?: string | null;
  /** the value that deviated (stored as JSON) */
  value?: unknown;
  /** what happened, for people (a reason, a fault's description, an override's justification) */
  detail?: string | null;
  faultId?: number | null;
  /** who caused it; null: the server */
  raisedBy?: number | null;
  /** ISO time: the time of what caused it */
  at: string;
}

/**
 * Records a deviation of a job — call it in the transaction of what caused it
 * (a recording, a fault, an override, a completion), so neither exists without
 * the other. The one way deviations are written (docs/execution-rules.md).
 */
export function recordDeviation(db: Kysely<DB>, scope: TenantScope, input: DeviationInput): Promise<DeviationRow> {
  return insertDeviation(db, scope, {
    job_id: input.jobId,
    kind: input.kind,
    step_id: input.stepId ?? null,
    field_key: input.fieldKey ?? null,
    value: input.value === undefined || input.value === null ? null : JSON.stringify(input.value),
    detail: input.detail ?? '',
    fault_id: input.faultId ?? null,
    raised_by: input.raisedBy ?? null,
    raised_at: input.at,
  });
}
