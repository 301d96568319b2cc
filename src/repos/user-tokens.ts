import type { Kysely } from 'kysely';
import type { DB, UserTokenPurpose } from '../db/schema';
import { inTenant, type TenantScope } from '../db/tenant';

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
