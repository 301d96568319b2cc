import type { Kysely } from 'kysely';
import type { DB, UserTwoFactorRow } from '#db/schema';
import { compiledListRead } from '#db/compiled-query';
import { inTenant, tenantScope, type TenantScope } from '#db/tenant';

export async function findTwoFactor(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<UserTwoFactorRow | undefined> {
  return inTenant(db, scope).selectFrom('user_two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/**
 * Starts (or restarts) an enrolment: a new secret, not yet enabled. One
 * statement (an upsert), so setups racing each other each leave a pending row
 * (the last one wins) instead of one failing on the primary key; an enabled
 * enrolment is never replaced.
 * @returns false when the user's two-factor authentication is enabled
 */
/** Which of these users have a second factor turned on (the Users page shows "Reset 2FA" only for them). */
export async function findTwoFactorEnabledUserIds(db: Kysely<DB>, scope: TenantScope, userIds: readonly number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await twoFactorEnabledAmong(db, [scope.clientId], userIds);
  return new Set(rows.map((row) => row.user_id));
}

// -1 is no user id
const twoFactorEnabledAmong = compiledListRead(
  (db, [clientId]: [number], userIds: number[]) =>
    inTenant(db, tenantScope(clientId))
      .selectFrom('user_two_factor')
      .select('user_id')
      .where('user_id', 'in', userIds)
      .where('enabled_at', 'is not', null),
  1,
  -1,
);

export async function replacePendingTwoFactor(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  secret: string,
  now: string,
): Promise<boolean> {
  const fresh = { secret, enabled_at: null, last_used_step: 0, recovery_codes: '[]', created_at: now, updated_at: now };
  const result = await db
    .insertInto('user_two_factor')
    .values({ client_id: scope.clientId, user_id: userId, ...fresh })
    .onConflict((oc) => oc.columns(['client_id', 'user_id']).doUpdateSet(fresh).where('user_two_factor.enabled_at', 'is', null))
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function enableTwoFactorRow(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  values: { recovery_codes: string; last_used_step: number },
  now: string,
): Promise<boolean> {
  const result = await inTenant(db, scope)
    .updateTable('user_two_factor')
    .set({ ...values, enabled_at: now, updated_at: now })
    .where('user_id', '=', userId)
    .where('enabled_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Accepts a TOTP step only once: false when that step (or a later one) was already used. */
export async function advanceTwoFactorStep(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  step: number,
  now: string,
): Promise<boolean> {
  const result = await inTenant(db, scope)
    .updateTable('user_two_factor')
    .set({ last_used_step: step, updated_at: now })
    .where('user_id', '=', userId)
    .where('last_used_step', '<', step)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Swaps the recovery-code list only if nobody changed it meanwhile (one use per code). */
export async function replaceRecoveryCodes(
  db: Kysely<DB>,
  scope: TenantScope,
  userId: number,
  expected: string,
  next: string,
  now: string,
): Promise<boolean> {
  const result = await inTenant(db, scope)
    .updateTable('user_two_factor')
    .set({ recovery_codes: next, updated_at: now })
    .where('user_id', '=', userId)
    .where('recovery_codes', '=', expected)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteTwoFactor(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<boolean> {
  const result = await inTenant(db, scope).deleteFrom('user_two_factor').where('user_id', '=', userId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
