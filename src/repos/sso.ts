import type { Insertable, Kysely, Updateable } from 'kysely';
import type { DB, SsoPendingTable, SsoProviderKind, SsoProviderRow, SsoProvidersTable } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

// Single sign-on: providers, the identities they vouch for, pending sign-ins and
// the SAML assertion replay cache (migration 0016).

export async function insertSsoProvider(
  db: Kysely<DB>,
  scope: TenantScope,
  values: Omit<Insertable<SsoProvidersTable>, 'client_id'>,
): Promise<SsoProviderRow> {
  return db
    .insertInto('sso_providers')
    .values({ ...values, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function listSsoProviders(db: Kysely<DB>, scope: TenantScope): Promise<SsoProviderRow[]> {
  return inTenant(db, scope).selectFrom('sso_providers').selectAll().orderBy('id').execute();
}

export async function findSsoProvider(db: Kysely<DB>, scope: TenantScope, id: number): Promise<SsoProviderRow | undefined> {
  return inTenant(db, scope).selectFrom('sso_providers').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateSsoProvider(
  db: Kysely<DB>,
  scope: TenantScope,
  id: number,
  changes: Updateable<SsoProvidersTable>,
): Promise<void> {
  await inTenant(db, scope).updateTable('sso_providers').set(changes).where('id', '=', id).execute();
}

export async function deleteSsoProvider(db: Kysely<DB>, scope: TenantScope, id: number): Promise<boolean> {
  const result = await inTenant(db, scope).deleteFrom('sso_providers').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Sign-in URLs name a provider, not a client: names are unique across the appliance. */
export async function findSsoProviderByName(db: Kysely<DB>, name: string): Promise<SsoProviderRow | undefined> {
  return db.selectFrom('sso_providers').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Enabled providers of one kind across clients (a SAML response names only its IdP; a directory token names no client). */
export async function listEnabledSsoProvidersOfKind(db: Kysely<DB>, kind: SsoProviderKind): Promise<SsoProviderRow[]> {
  return db.selectFrom('sso_providers').selectAll().where('kind', '=', kind).where('enabled', '=', 1).orderBy('id').execute();
}

export async function findSsoIdentityUser(
  db: Kysely<DB>,
  scope: TenantScope,
  providerId: number,
  subject: string,
): Promise<number | undefined> {
  const row = await inTenant(db, scope)
    .selectFrom('sso_identities')
    .select('user_id')
    .where('provider_id', '=', providerId)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return row?.user_id;
}

export async function insertSsoIdentity(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { provider_id: number; subject: string; user_id: number },
  now: string,
): Promise<void> {
  await db
    .insertInto('sso_identities')
    .values({ ...values, client_id: scope.clientId, created_at: now, last_sign_in_at: now })
    .execute();
}

export async function touchSsoIdentity(
  db: Kysely<DB>,
  scope: TenantScope,
  providerId: number,
  subject: string,
  now: string,
): Promise<void> {
  await inTenant(db, scope)
    .updateTable('sso_identities')
    .set({ last_sign_in_at: now })
    .where('provider_id', '=', providerId)
    .where('subject', '=', subject)
    .execute();
}

export async function insertSsoPending(
  db: Kysely<DB>,
  scope: TenantScope,
  values: Omit<Insertable<SsoPendingTable>, 'client_id' | 'created_at'>,
  now: string,
): Promise<void> {
  await db.deleteFrom('sso_pending').where('expires_at', '<=', now).execute();
  await db
    .insertInto('sso_pending')
    .values({ ...values, client_id: scope.clientId, created_at: now })
    .execute();
}

/**
 * Takes a pending sign-in by its handle: the row is deleted by the caller who
 * gets it, so a handle works once even under concurrent callbacks.
 */
export async function takeSsoPending(db: Kysely<DB>, handle: string): Promise<(Omit<SsoPendingTable, 'id'> & { id: number }) | undefined> {
  const row = await db.selectFrom('sso_pending').selectAll().where('handle', '=', handle).executeTakeFirst();
  if (!row) return undefined;
  const deleted = await db.deleteFrom('sso_pending').where('id', '=', row.id).executeTakeFirst();
  return deleted.numDeletedRows > 0n ? row : undefined;
}

/** When a still-valid pending sign-in was started (a SAML AuthnRequest awaiting its response), or undefined. */
export async function findSsoPendingStart(
  db: Kysely<DB>,
  scope: TenantScope,
  providerId: number,
  handle: string,
  now: string,
): Promise<string | undefined> {
  const row = await inTenant(db, scope)
    .selectFrom('sso_pending')
    .select('created_at')
    .where('provider_id', '=', providerId)
    .where('handle', '=', handle)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.created_at;
}

export async function deleteSsoPending(db: Kysely<DB>, scope: TenantScope, providerId: number, handle: string): Promise<void> {
  await inTenant(db, scope).deleteFrom('sso_pending').where('provider_id', '=', providerId).where('handle', '=', handle).execute();
}

/**
 * Remembers a SAML assertion id until it could no longer be accepted anyway.
 * false: it was seen before (a replay).
 */
export async function rememberAssertion(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { provider_id: number; assertion_id: string; expires_at: string },
  now: string,
): Promise<boolean> {
  await db.deleteFrom('sso_assertions_seen').where('expires_at', '<=', now).execute();
  const result = await db
    .insertInto('sso_assertions_seen')
    .values({ ...values, client_id: scope.clientId })
    .onConflict((oc) => oc.columns(['client_id', 'provider_id', 'assertion_id']).doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}
