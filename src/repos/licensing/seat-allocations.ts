import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, LicenseRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginate, type Page, type PageInput } from '#db/pagination';
import { notFound } from '#errors';

export async function listLicenses(db: Kysely<DB>, scope: TenantScope, page: PageInput): Promise<Page<LicenseRow>> {
  return paginate(inTenant(db, scope).selectFrom('licenses').selectAll(), page);
}

/** For system administrators, who manage seat allocations of every client. */
export async function listLicensesAcrossClients(db: Kysely<DB>, page: PageInput): Promise<Page<LicenseRow>> {
  return paginate(db.selectFrom('licenses').selectAll(), page);
}

export async function findLicenseByIdAcrossClients(db: Kysely<DB>, id: number): Promise<LicenseRow | undefined> {
  return db.selectFrom('licenses').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertLicense(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { license_type: string; seats: number; expires_at: string | null },
  now: string,
): Promise<LicenseRow> {
  return db
    .insertInto('licenses')
    .values({ ...values, client_id: scope.clientId, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateLicense(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  changes: { license_type?: string; seats?: number; expires_at?: string | null },
  now: string,
): Promise<LicenseRow> {
  const row = await inTenant(db, scope)
    .updateTable('licenses')
    .set({ ...changes, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('License');
  return row;
}

export async function deleteLicense(db: Kysely<DB>, scope: TenantScope, id: number): Promise<void> {
  const result = await inTenant(db, scope).deleteFrom('licenses').where('id', '=', id).executeTakeFirst();
  if (result.numDeletedRows === 0n) throw notFound('License');
}

/** Seats of each license type from the client's unexpired licenses. */
export async function allocatedSeats(db: Kysely<DB>, scope: TenantScope, now: string): Promise<Map<string, number>> {
  return sumAllocated(inTenant(db, scope).selectFrom('licenses'), now);
}

/** Users holding each license type in the client. */
export async function usedSeats(db: Kysely<DB>, scope: TenantScope): Promise<Map<string, number>> {
  return countHolders(inTenant(db, scope).selectFrom('users'));
}

/** Seats of each license type allocated to all clients by unexpired licenses (the on-prem key's totals cap these). */
export async function allocatedSeatsAcrossClients(db: Kysely<DB>, now: string): Promise<Map<string, number>> {
  return sumAllocated(db.selectFrom('licenses'), now);
}

/** Users holding each license type, in all clients. */
export async function usedSeatsAcrossClients(db: Kysely<DB>): Promise<Map<string, number>> {
  return countHolders(db.selectFrom('users'));
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kysely's type of a query that selects nothing yet
async function sumAllocated(from: SelectQueryBuilder<DB, 'licenses', {}>, now: string): Promise<Map<string, number>> {
  const rows = await from
    .select(['license_type', (eb) => eb.fn.sum<number>('seats').as('seats')])
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .groupBy('license_type')
    .execute();
  return new Map(rows.map((r) => [r.license_type, Number(r.seats)]));
}

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- kysely's type of a query that selects nothing yet
async function countHolders(from: SelectQueryBuilder<DB, 'users', {}>): Promise<Map<string, number>> {
  const rows = await from
    .select(['license_type', (eb) => eb.fn.countAll<number>().as('n')])
    .groupBy('license_type')
    .execute();
  return new Map(rows.map((r) => [r.license_type, Number(r.n)]));
}

/** Seats per license type summed over every client: allocated by unexpired licenses, used by users (for metrics). */
export async function seatTotalsAcrossClients(
  db: Kysely<DB>,
  now: string,
): Promise<{ allocated: Map<string, number>; used: Map<string, number> }> {
  const [allocated, used] = await Promise.all([
    db
      .selectFrom('licenses')
      .select(['license_type', (eb) => eb.fn.sum<number>('seats').as('n')])
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .groupBy('license_type')
      .execute(),
    db
      .selectFrom('users')
      .select(['license_type', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('license_type')
      .execute(),
  ]);
  const toMap = (rows: { license_type: string; n: number | string | bigint }[]) => new Map(rows.map((r) => [r.license_type, Number(r.n)]));
  return { allocated: toMap(allocated), used: toMap(used) };
}
