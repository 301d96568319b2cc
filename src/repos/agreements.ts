import type { Kysely } from 'kysely';
import type { AgreementAcceptanceRow, AgreementKind, AgreementRow, AgreementsTable, DB } from '#db/schema';
import type { Insertable, Updateable } from 'kysely';
import { inTenant, type TenantScope } from '#db/tenant';
import { paginate, type Page, type PageInput } from '#db/pagination';
import { notFound } from '#errors';

// Agreements are system-wide documents; acceptances are tenant rows.

export async function listAgreements(db: Kysely<DB>, kind: AgreementKind | undefined, page: PageInput): Promise<Page<AgreementRow>> {
  let query = db.selectFrom('agreements').selectAll();
  if (kind) query = query.where('kind', '=', kind);
  return paginate(query, page);
}

/** Published versions of a kind (effective at `now` or earlier), newest first. */
export async function listEffectiveAgreements(db: Kysely<DB>, kind: AgreementKind, now: string): Promise<AgreementRow[]> {
  return db
    .selectFrom('agreements')
    .selectAll()
    .where('kind', '=', kind)
    .where('effective_at', '<=', now)
    .orderBy('effective_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export async function getAgreementById(db: Kysely<DB>, id: number): Promise<AgreementRow> {
  const row = await db.selectFrom('agreements').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('Agreement');
  return row;
}

export async function insertAgreement(db: Kysely<DB>, values: Insertable<AgreementsTable>): Promise<AgreementRow> {
  return db.insertInto('agreements').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateAgreement(db: Kysely<DB>, id: number, changes: Updateable<AgreementsTable>): Promise<AgreementRow> {
  const row = await db.updateTable('agreements').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('Agreement');
  return row;
}

/** The newest acceptance of any of `agreementIds` in the client, by `userId` when given. */
export async function findAcceptance(
  db: Kysely<DB>,
  scope: TenantScope,
  agreementIds: number[],
  userId?: number,
): Promise<AgreementAcceptanceRow | undefined> {
  if (agreementIds.length === 0) return undefined;
  let query = inTenant(db, scope).selectFrom('agreement_acceptances').selectAll().where('agreement_id', 'in', agreementIds);
  if (userId !== undefined) query = query.where('user_id', '=', userId);
  return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function insertAcceptance(
  db: Kysely<DB>,
  scope: TenantScope,
  values: Omit<AgreementAcceptanceRow, 'id' | 'client_id'>,
): Promise<AgreementAcceptanceRow> {
  return db
    .insertInto('agreement_acceptances')
    .values({ ...values, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The current agreement of a kind and the caller's acceptance of it. */
export interface AgreementStatus {
  agreement: AgreementRow | null;
  acceptance: AgreementAcceptanceRow | null;
  accepted: boolean;
}
