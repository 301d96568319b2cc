import type { Kysely } from 'kysely';
import type { DB, UserTokenPurpose } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/**
 * Single-use tokens mailed to users (invitation, password reset). Only the hash
 * is stored; issuing a new one kills the older unused ones of the same purpose.
 */
export async function replaceUserToken(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { user_id: number; purpose: UserTokenPurpose; token_hash: string; expires_at: string },
  now: string,
): Promise<void> {
  await inTenant(db, scope)
    .deleteFrom('user_tokens')
    .where('user_id', '=', values.user_id)
    .where('purpose', '=', values.purpose)
    .where('used_at', 'is', null)
    .execute();
  await db
    .insertInto('user_tokens')
    .values({ ...values, client_id: scope.clientId, created_at: now })
    .execute();
}

export interface UserTokenRecord {
  id: number;
  client_id: number;
  user_id: number;
  purpose: UserTokenPurpose;
  expires_at: string;
  used_at: string | null;
}

/** Emailed tokens arrive without a tenant: the row names it. */
export async function findUserTokenAcrossClients(
  db: Kysely<DB>,
  tokenHash: string,
  purpose: UserTokenPurpose,
): Promise<UserTokenRecord | undefined> {
  return db
    .selectFrom('user_tokens')
    .select(['id', 'client_id', 'user_id', 'purpose', 'expires_at', 'used_at'])
    .where('token_hash', '=', tokenHash)
    .where('purpose', '=', purpose)
    .executeTakeFirst();
}

/** Marks a token used; false when it was used (or replaced) meanwhile. */
export async function markUserTokenUsed(db: Kysely<DB>, scope: TenantScope, id: number, now: string): Promise<boolean> {
  const result = await inTenant(db, scope)
    .updateTable('user_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Kills a user's unused tokens of one purpose (e.g. reset links once the password changed). */
export async function deleteUnusedUserTokens(db: Kysely<DB>, scope: TenantScope, userId: number, purpose: UserTokenPurpose): Promise<void> {
  await inTenant(db, scope)
    .deleteFrom('user_tokens')
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

/** Every client's expired tokens (used or not): one is left by each 2FA or SSO sign-in and each reset, and none works any more. */
export async function pruneExpiredUserTokens(db: Kysely<DB>, now: string): Promise<number> {
  const result = await db.deleteFrom('user_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
