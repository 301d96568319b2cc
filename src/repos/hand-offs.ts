import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB, HandOffRow, HandOffsTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginate, type Page, type PageInput } from '#db/pagination';
import { notFound } from '#errors';

/** Hand-offs of a job from one operator to another (at most one PENDING per job: a partial unique index). */

export type NewHandOff = Omit<Insertable<HandOffsTable>, 'client_id' | 'id'>;

/** @throws the database's unique violation when the job already has a PENDING hand-off */
export async function insertHandOff(db: Kysely<DB>, scope: TenantScope, handOff: NewHandOff): Promise<HandOffRow> {
  return db
    .insertInto('hand_offs')
    .values({ ...handOff, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** @throws AppError NOT_FOUND, also for a hand-off of another client */
export async function getHandOffById(db: Kysely<DB>, scope: TenantScope, id: number): Promise<HandOffRow> {
  const row = await inTenant(db, scope).selectFrom('hand_offs').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Hand-off');
  return row;
}

export async function updateHandOff(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  changes: Omit<Updateable<HandOffsTable>, 'id' | 'client_id'>,
): Promise<HandOffRow> {
  const row = await inTenant(db, scope).updateTable('hand_offs').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('Hand-off');
  return row;
}

export async function listPendingHandOffsOfJob(db: Kysely<DB>, scope: TenantScope, jobId: number): Promise<HandOffRow[]> {
  return inTenant(db, scope).selectFrom('hand_offs').selectAll().where('job_id', '=', jobId).where('status', '=', 'PENDING').execute();
}

/** Hand-offs the user sent or received, oldest first (keyset pages). */
export async function listHandOffsOfUser(db: Kysely<DB>, scope: TenantScope, userId: number, page: PageInput): Promise<Page<HandOffRow>> {
  const query = inTenant(db, scope)
    .selectFrom('hand_offs')
    .selectAll()
    .where((eb) => eb.or([eb('from_user_id', '=', userId), eb('to_user_id', '=', userId)]));
  return paginate(query, page);
}

/** Ids of the hand-offs of the given jobs (job history). */
export async function listHandOffIdsOfJobs(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<number[]> {
  if (jobIds.length === 0) return [];
  const rows = await inTenant(db, scope)
    .selectFrom('hand_offs')
    .select('id')
    .where('job_id', 'in', [...jobIds])
    .execute();
  return rows.map((r) => r.id);
}

/** Every hand-off of a job, oldest first (job history reports). */
export async function listHandOffsOfJob(db: Kysely<DB>, scope: TenantScope, jobId: number): Promise<HandOffRow[]> {
  return loadHandOffsOfJobs(db, scope, [jobId]);
}

/** Every hand-off of the given jobs, oldest first (DataLoader batch: Job.handOffs of a page of jobs). */
export async function loadHandOffsOfJobs(db: Kysely<DB>, scope: TenantScope, jobIds: readonly number[]): Promise<HandOffRow[]> {
  if (jobIds.length === 0) return [];
  return inTenant(db, scope)
    .selectFrom('hand_offs')
    .selectAll()
    .where('job_id', 'in', [...jobIds])
    .orderBy('id')
    .execute();
}
