import type { Kysely } from 'kysely';
import type { DB, SessionRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

export async function insertSession(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { user_id: number; cookie_hash: string | null; expires_at: string; ip: string | null; user_agent: string | null },
  now: string,
): Promise<SessionRow> {
  return db
    .insertInto('sessions')
    .values({ ...values, client_id: scope.clientId, created_at: now, last_seen_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function revokeSession(db: Kysely<DB>, scope: TenantScope, sessionId: number, now: string): Promise<void> {
  await inTenant(db, scope)
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Kills every session of a user (disable, password reset); optionally keeps the caller's own. */
export async function revokeUserSessions(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  now: string,
  exceptSessionId?: number,
): Promise<void> {
  let query = inTenant(db, scope)
    .updateTable('sessions')
    .set({ revoked_at: now })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (exceptSessionId !== undefined) query = query.where('id', '!=', exceptSessionId);
  await query.execute();
}

export async function insertRefreshToken(
  db: Kysely<DB>,
  scope: TenantScope,
  values: { session_id: number; token_hash: string; expires_at: string },
  now: string,
): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({ ...values, client_id: scope.clientId, created_at: now })
    .execute();
}

/**
 * Every client's refresh tokens past their expiry (the end of their session):
 * one is stored per refresh and, expired, none can be used or tell a reuse.
 * The sessions stay: usage reports count sign-ins from them.
 */
export async function pruneExpiredRefreshTokens(db: Kysely<DB>, now: string): Promise<number> {
  const result = await db.deleteFrom('refresh_tokens').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface RefreshTokenRecord {
  id: number;
  client_id: number;
  session_id: number;
  user_id: number;
  expires_at: string;
  used_at: string | null;
  session_revoked_at: string | null;
  session_expires_at: string;
}

/** Refresh tokens are looked up by hash before the tenant is known; the row then names it. */
export async function findRefreshTokenAcrossClients(db: Kysely<DB>, tokenHash: string): Promise<RefreshTokenRecord | undefined> {
  return db
    .selectFrom('refresh_tokens as r')
    .innerJoin('sessions as s', (join) => join.onRef('s.id', '=', 'r.session_id').onRef('s.client_id', '=', 'r.client_id'))
    .select([
      'r.id',
      'r.client_id',
      'r.session_id',
      's.user_id',
      'r.expires_at',
      'r.used_at',
      's.revoked_at as session_revoked_at',
      's.expires_at as session_expires_at',
    ])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks a token used; false when another request rotated it first. */
export async function markRefreshTokenUsed(db: Kysely<DB>, scope: TenantScope, id: number, now: string): Promise<boolean> {
  const result = await inTenant(db, scope)
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function markSessionRefreshTokensUsed(db: Kysely<DB>, scope: TenantScope, sessionId: number, now: string): Promise<void> {
  await inTenant(db, scope)
    .updateTable('refresh_tokens')
    .set({ used_at: now })
    .where('session_id', '=', sessionId)
    .where('used_at', 'is', null)
    .execute();
}

/** Unrevoked, unexpired client-user sessions of every client (for the metrics gauge). */
export async function countActiveSessionsAcrossClients(db: Kysely<DB>, now: string): Promise<number> {
  const row = await db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
