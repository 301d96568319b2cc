import type { Kysely } from 'kysely';
import type { Config } from '#config';
import type { Deps } from '#deps';
import type { DB, UserTokenPurpose } from '#db/schema';
import { tenantScope, type TenantScope } from '#db/tenant';
import { tokenInvalid } from '#errors';
import { hashToken, randomToken } from '#lib/tokens';
import { findUserTokenAcrossClients, markUserTokenUsed, replaceUserToken } from '#repos/user-tokens';

/** The sign-in challenge between a correct password and the second factor. */
export const TWO_FACTOR_CHALLENGE_TTL_MS = 5 * 60_000;

/** How long a token of each purpose stays valid (invite and reset are configurable). */
export function userTokenTtl(config: Pick<Config, 'inviteTokenTtl' | 'resetTokenTtl'>, purpose: UserTokenPurpose): number {
  if (purpose === 'invite') return config.inviteTokenTtl;
  if (purpose === 'reset') return config.resetTokenTtl;
  return TWO_FACTOR_CHALLENGE_TTL_MS;
}

/**
 * Issues a single-use token (256 bits) for an emailed link or a sign-in
 * challenge, killing older unused ones of the same purpose. Returns the raw
 * token: only its hash is stored.
 */
export async function issueUserToken(
  trx: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  purpose: UserTokenPurpose,
  now: Date,
  ttlMs: number,
  /** a readable prefix that becomes part of the token (and of its hash) */
  prefix = '',
): Promise<string> {
  const token = prefix + randomToken();
  await replaceUserToken(
    trx,
    scope,
    {
      user_id: userId,
      purpose,
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
    },
    now.toISOString(),
  );
  return token;
}

export interface ValidUserToken {
  id: number;
  scope: TenantScope;
  userId: number;
}

/**
 * Looks a presented token up; unknown, expired and used tokens are one error.
 * @throws AppError TOKEN_INVALID
 */
export async function findValidUserToken(deps: Deps, token: string, purpose: UserTokenPurpose): Promise<ValidUserToken> {
  const record = await findUserTokenAcrossClients(deps.db.kysely, hashToken(token), purpose);
  if (!record || record.used_at !== null || record.expires_at <= deps.clock.now().toISOString()) throw tokenInvalid();
  return { id: record.id, scope: tenantScope(record.client_id), userId: record.user_id };
}

/** Uses the token inside the caller's transaction. @throws AppError TOKEN_INVALID when used meanwhile */
export async function consumeUserToken(trx: Kysely<DB>, token: ValidUserToken, nowIso: string): Promise<void> {
  if (!(await markUserTokenUsed(trx, token.scope, token.id, nowIso))) throw tokenInvalid();
}
