import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { fieldError, seatsExhausted } from '#errors';
import { rolesNotAllowed, type LicenseType, type Role } from '#policies/roles';
import { allocatedSeats, usedSeats } from '#repos/licensing/seat-allocations';
import { getUserById, updateUser as updateUserRow, type UserWithRoles } from '#repos/users';
import { currentLicense } from '.';
import { seatSummary } from './seats';
import type { ClientLicense, SeatCount } from '#licensing/state';
export type { ClientLicense } from '#licensing/state';
import { recordChange, type ChangedBy } from '../security-log';

// The client side of licensing: what a client has (its seat allocations within
// the appliance's license) and its Security Administrator moving users between
// license types.

export async function clientLicense(deps: Deps, scope: TenantScope): Promise<ClientLicense> {
  const license = await currentLicense(deps);
  return { license, seats: await seatSummary(deps.db.kysely, scope, deps.clock.now().toISOString()) };
}

export interface LicenseTypeChange {
  userId: number;
  licenseType: LicenseType;
}

/**
 * Changes the license type of users of the client, all or nothing. Each user's
 * roles must be allowed by the new type (policies/roles), and afterwards no
 * type may have more users than seats (checked once at the end, so a batch can
 * swap two users' types when every seat is taken).
 * @throws AppError NOT_FOUND (a user of another client), VALIDATION_ERROR (role not allowed), LICENSE_SEATS_EXHAUSTED
 */
export async function changeUserLicenseTypes(
  deps: Deps,
  scope: TenantScope,
  changes: LicenseTypeChange[],
  by: ChangedBy,
): Promise<{ users: UserWithRoles[]; seats: Record<string, SeatCount> }> {
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const grown = new Set<string>();
    for (const [index, change] of changes.entries()) {
      const user = await getUserById(trx, scope, change.userId);
      const refused = rolesNotAllowed(change.licenseType, user.roles as Role[]);
      if (refused.length > 0) {
        throw fieldError(
          `body.changes.${index}.licenseType`,
          `license type "${change.licenseType}" does not allow role(s): ${refused.join(', ')}`,
        );
      }
      if (user.license_type === change.licenseType) continue;
      await updateUserRow(trx, scope, user.id, { license_type: change.licenseType, updated_at: nowIso });
      grown.add(change.licenseType);
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'user.license_type_changed',
        message: `User ${user.email} moved to a ${change.licenseType} seat`,
        clientId: scope.clientId,
        userId: user.id,
        target: { type: 'user', id: user.id },
        before: { licenseType: user.license_type },
        after: { licenseType: change.licenseType },
      });
    }
    const [allocated, used] = await Promise.all([allocatedSeats(trx, scope, nowIso), usedSeats(trx, scope)]);
    for (const type of grown) {
      if ((used.get(type) ?? 0) > (allocated.get(type) ?? 0)) throw seatsExhausted(type);
    }
    const users = [];
    for (const change of changes) users.push(await getUserById(trx, scope, change.userId));
    return { users, seats: await seatSummary(trx, scope, nowIso) };
  });
}
