/**
 * Roles and license types, and which roles each license type may hold.
 * The one place these rules live: services and schemas import from here.
 */
export const ROLES = ['admin', 'user_admin', 'author', 'operator', 'approver', 'publisher', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const LICENSE_TYPES = ['full', 'connect'] as const;
export type LicenseType = (typeof LICENSE_TYPES)[number];

/** The account owner's role; the contract (docs/api/contract.md) calls its holder the Security Administrator. */
export const SECURITY_ADMIN: Role = 'admin';

const ROLES_BY_LICENSE_TYPE: Record<LicenseType, readonly Role[]> = {
  full: ROLES,
  connect: ['operator', 'viewer'],
};

/** The roles in `roles` that `licenseType` does not allow (empty when all are allowed). */
export function rolesNotAllowed(licenseType: LicenseType, roles: readonly Role[]): Role[] {
  const allowed = ROLES_BY_LICENSE_TYPE[licenseType];
  return roles.filter((role) => !allowed.includes(role));
}

export function hasAnyRole(held: readonly string[], wanted: readonly Role[]): boolean {
  return wanted.some((role) => held.includes(role));
}
