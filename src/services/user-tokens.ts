import type { Kysely } from 'kysely';
import type { DB, UserTokenPurpose } from '../db/schema';
import type { TenantScope } from '../db/tenant';
import { hashToken, randomToken } from '../lib/tokens';
import { replaceUserToken } from '../repos/user-tokens';

/** How long an emailed token stays valid. */
export const USER_TOKEN_TTL_MS: Record<UserTokenPurpose, number> = {
  invite: 72 * 3_600_000,
  reset: 3_600_000,
};

/**
 * Issues a single-use token (256 bits) for an emailed link, killing older ones
 * of the same purpose. Returns the raw token: it exists only in the email.
 */
export async function issueUserToken(
  trx: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  purpose: UserTokenPurpose,
  now: Date,
): Promise<string> {
  const token = randomToken();
  await replaceUserToken(
    trx,
    scope,
    {
      user_id: userId,
      purpose,
      token_hash: hashToken(token),
      expires_at: new Date(now.getTime() + USER_TOKEN_TTL_MS[purpose]).toISOString(),
    },
    now.toISOString(),
  );
  return token;
}
