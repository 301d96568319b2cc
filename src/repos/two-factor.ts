import type { Kysely } from 'kysely';
import type { DB, UserTwoFactorRow } from '../db/schema';
import { inTenant, type TenantScope } from '../db/tenant';

export async function findTwoFactor(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<UserTwoFactorRow | undefined> {
  return inTenant(db, scope).selectFrom('user_two_factor').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Starts (or restarts) an enrolment: a new secret, not yet enabled. */
export async function replacePendingTwoFactor(db: Kysely<DB>, scope: TenantScope, userId: number, secret: string, now: string): Promise<void> {
  await inTenant(db, scope).deleteFrom('user_two_factor').where('user_id', '=', userId).execute();
  await db
    .insertInto('user_two_factor')
    .values({ client_id: scope.clientId, user_id: userId, secret, enabled_at: null, last_used_step: 0, recovery_codes: '[]', created_at: now, updated_at: now })
    .execute();
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
export async function advanceTwoFactorStep(db: Kysely<DB>, scope: TenantScope, userId: number, step: number, now: string): Promise<boolean> {
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
