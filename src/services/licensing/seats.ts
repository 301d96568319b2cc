import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { seatsExhausted } from '#errors';
import { LICENSE_TYPES } from '#policies/roles';
import { allocatedSeats, usedSeats } from '#repos/licensing/seat-allocations';
import type { SeatCount } from '#licensing/state';
export type { SeatCount } from '#licensing/state';
import { countUsersWithLicenseType } from '#repos/users';

/**
 * Refuses a user of `licenseType` when every seat of that type is taken.
 * Call inside the write transaction that adds or changes the user, so two
 * requests cannot both take the last seat.
 * @throws AppError LICENSE_SEATS_EXHAUSTED
 */
export async function assertSeatFree(
  trx: Kysely<DB>,
  scope: TenantScope,
  licenseType: string,
  now: string,
  exceptUserId?: number,
): Promise<void> {
  const allocated = (await allocatedSeats(trx, scope, now)).get(licenseType) ?? 0;
  const used = await countUsersWithLicenseType(trx, scope, licenseType, exceptUserId);
  if (used >= allocated) throw seatsExhausted(licenseType);
}

/** Seats per license type: allocated by unexpired licenses, used by users. */
export async function seatSummary(db: Kysely<DB>, scope: TenantScope, now: string): Promise<Record<string, SeatCount>> {
  const [allocated, used] = await Promise.all([allocatedSeats(db, scope, now), usedSeats(db, scope)]);
  const summary: Record<string, SeatCount> = {};
  for (const type of LICENSE_TYPES) {
    const a = allocated.get(type) ?? 0;
    const u = used.get(type) ?? 0;
    summary[type] = { allocated: a, used: u, free: Math.max(0, a - u) };
  }
  return summary;
}
