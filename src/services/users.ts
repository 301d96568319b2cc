import type { Deps } from '#deps';
import type { DB, UserStatus } from '#db/schema';
import type { Kysely } from 'kysely';
import type { TenantScope } from '#db/tenant';
import type { PageInput, Page } from '#db/pagination';
import { withTransaction, isUniqueViolation } from '#db/transaction';
import { conflict, fieldError, notFound } from '#errors';
import { rolesNotAllowed, SECURITY_ADMIN, type LicenseType, type Role } from '#policies/roles';
import {
  deleteUser as deleteUserRow,
  findUserByEmail,
  findUserByIdAcrossClients,
  findTwoHoldersOfRole,
  getUserById,
  insertUser,
  listUsers as listUserRows,
  normalizeEmail,
  setUserRoles,
  updateUser as updateUserRow,
  type UserSummary,
  type UserWithRoles,
} from '#repos/users';
import { inTenant } from '#db/tenant';
import { revokeUserSessions } from '#repos/sessions';
import { assertSeatFree } from './licensing/seats';
import { getClientById } from '#repos/clients';
import { sendInvitation } from './mail';
import { assertPasswordAllowed, readSecuritySettings } from './security-settings';
import { emitEvent } from '#events/emit';
import { findActiveLockouts } from '#repos/auth-failures';
import { findTwoFactorEnabledUserIds } from '#repos/two-factor';
import { userAccount } from './lockout';
import { recordChange, type ChangedBy } from './security-log';
import { presentUser } from '#presenters';

/** A user as their security event records them (the presented fields; a password only as set). */
function auditedUser(user: UserWithRoles | null, passwordSet = false) {
  if (!user) return null;
  const { id: _id, clientId: _client, ...fields } = presentUser(user);
  return { ...fields, ...(passwordSet && { password: 'set' }) };
}

export interface UserFields {
  email: string;
  roles: Role[];
  licenseType: LicenseType;
  firstName?: string;
  lastName?: string;
  title?: string;
  availableToOrg?: (string | number)[];
  password?: string;
}

export type UserChanges = Partial<UserFields> & { id: number; disabled?: boolean };

/**
 * Creates a user in the scope's client. Without a password the user is
 * `invited` and an invitation token is issued for the emailed link.
 * @throws AppError CONFLICT (email taken), VALIDATION_ERROR (role not allowed), LICENSE_SEATS_EXHAUSTED
 */
export async function createUser(deps: Deps, scope: TenantScope, input: UserFields, by: ChangedBy): Promise<UserWithRoles> {
  assertRolesAllowed(input.licenseType, input.roles);
  if (input.password !== undefined) {
    assertPasswordAllowed(await readSecuritySettings(deps.db.kysely, scope), input.password, 'body.password', input.email);
  }
  const passwordHash = input.password === undefined ? null : await deps.passwords.hash(input.password);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  try {
    return await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
      if (await findUserByEmail(trx, scope, input.email)) throw emailTaken();
      await assertSeatFree(trx, scope, input.licenseType, nowIso);
      const row = await insertUser(trx, scope, {
        email: input.email.trim(),
        email_normalized: normalizeEmail(input.email),
        first_name: input.firstName ?? '',
        last_name: input.lastName ?? '',
        title: input.title ?? '',
        license_type: input.licenseType,
        status: passwordHash ? 'active' : 'invited',
        password_hash: passwordHash,
        available_to_org: JSON.stringify(input.availableToOrg ?? []),
        created_at: nowIso,
        updated_at: nowIso,
      });
      await setUserRoles(trx, scope, row.id, input.roles);
      if (!passwordHash) {
        const client = await getClientById(trx, scope.clientId);
        await sendInvitation(deps, trx, afterCommit, { scope, user: row, clientName: client.name, now });
      }
      const created = await getUserById(trx, scope, row.id);
      await emitEvent({ deps, trx, afterCommit }, scope, 'user.created', presentUser(created));
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'user.created',
        message: `User ${created.email} created (${created.roles.join(', ') || 'no roles'})`,
        clientId: scope.clientId,
        userId: created.id,
        target: { type: 'user', id: created.id },
        after: auditedUser(created, passwordHash !== null),
      });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

/**
 * Updates a user: omitted fields keep their values and the resulting user must
 * satisfy the same rules as a new one.
 * @throws AppError NOT_FOUND, CONFLICT, VALIDATION_ERROR, LICENSE_SEATS_EXHAUSTED
 */
export async function updateUser(deps: Deps, scope: TenantScope, changes: UserChanges, by: ChangedBy): Promise<UserWithRoles> {
  const current = await getUserById(deps.db.kysely, scope, changes.id);
  const licenseType = (changes.licenseType ?? current.license_type) as LicenseType;
  const roles = (changes.roles ?? current.roles) as Role[];
  assertRolesAllowed(licenseType, roles);
  if (changes.password !== undefined) {
    assertPasswordAllowed(
      await readSecuritySettings(deps.db.kysely, scope),
      changes.password,
      'body.password',
      changes.email ?? current.email,
    );
  }
  const passwordHash = changes.password === undefined ? undefined : await deps.passwords.hash(changes.password);
  const nowIso = deps.clock.now().toISOString();
  try {
    return await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
      const user = await getUserById(trx, scope, changes.id);
      if (changes.email !== undefined) {
        const other = await findUserByEmail(trx, scope, changes.email);
        if (other && other.id !== user.id) throw emailTaken();
      }
      if (licenseType !== user.license_type) await assertSeatFree(trx, scope, licenseType, nowIso, user.id);
      const losesAdmin = (changes.roles && !roles.includes(SECURITY_ADMIN)) || changes.disabled === true;
      if (losesAdmin && user.roles.includes(SECURITY_ADMIN)) await assertNotLastSecurityAdmin(trx, scope, user.id);
      const status = nextStatus(user, passwordHash !== undefined, changes.disabled);
      await updateUserRow(trx, scope, user.id, {
        ...(changes.email !== undefined && { email: changes.email.trim(), email_normalized: normalizeEmail(changes.email) }),
        ...(changes.firstName !== undefined && { first_name: changes.firstName }),
        ...(changes.lastName !== undefined && { last_name: changes.lastName }),
        ...(changes.title !== undefined && { title: changes.title }),
        ...(changes.availableToOrg !== undefined && { available_to_org: JSON.stringify(changes.availableToOrg) }),
        ...(passwordHash !== undefined && { password_hash: passwordHash }),
        status,
        license_type: licenseType,
        updated_at: nowIso,
      });
      if (changes.roles) await setUserRoles(trx, scope, user.id, roles);
      // A new password set by an administrator, or disabling, ends the user's existing sessions.
      if (passwordHash !== undefined || status === 'disabled') await revokeUserSessions(trx, scope, user.id, nowIso);
      const updated = await getUserById(trx, scope, user.id);
      const disabled = status === 'disabled' && user.status !== 'disabled';
      await emitEvent({ deps, trx, afterCommit }, scope, disabled ? 'user.disabled' : 'user.updated', presentUser(updated));
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'user.changed',
        message: `User ${updated.email} changed${disabled ? ' (disabled)' : ''}`,
        clientId: scope.clientId,
        userId: user.id,
        target: { type: 'user', id: user.id },
        before: auditedUser(user),
        after: auditedUser(updated, passwordHash !== undefined),
      });
      // live streams end with the sessions (the heartbeat would notice; this is at once)
      if (disabled) afterCommit(() => deps.signals.userEnded(scope.clientId, user.id));
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw emailTaken();
    throw error;
  }
}

/**
 * Deletes a user, freeing its seat and ending its sessions at once.
 * @throws AppError NOT_FOUND, CONFLICT (the client's last Security Administrator)
 */
export async function deleteUser(deps: Deps, scope: TenantScope, id: number, by: ChangedBy): Promise<void> {
  await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const user = await getUserById(trx, scope, id);
    if (user.roles.includes(SECURITY_ADMIN)) await assertNotLastSecurityAdmin(trx, scope, user.id);
    if (!(await deleteUserRow(trx, scope, id))) throw notFound('User');
    await emitEvent({ deps, trx, afterCommit }, scope, 'user.deleted', presentUser(user));
    await recordChange({ deps, trx, afterCommit }, by, {
      level: 'warn',
      event: 'user.deleted',
      message: `User ${user.email} deleted`,
      clientId: scope.clientId,
      userId: user.id,
      target: { type: 'user', id: user.id },
      before: auditedUser(user),
    });
    afterCommit(() => deps.signals.userEnded(scope.clientId, user.id));
  });
}

export async function getUser(deps: Deps, scope: TenantScope, id: number): Promise<UserWithRoles> {
  return getUserById(deps.db.kysely, scope, id);
}

export async function listUsers(deps: Deps, scope: TenantScope, page: PageInput & { search?: string }): Promise<Page<UserSummary>> {
  return listUserRows(deps.db.kysely, scope, page);
}

/** What an administrator may do to an account, beyond its row: the console shows only the actions that apply. */
export interface AccountState {
  /** sign-in is locked out now (Unlock applies) */
  locked: boolean;
  /** a second factor is turned on (Reset 2FA applies) */
  twoFactorEnabled: boolean;
  /** the client's only Security Administrator (cannot be deleted, disabled or lose the role) */
  lastSecurityAdministrator: boolean;
}

/** The account state of a page of users: three statements whatever the page's length. */
export async function accountStates(deps: Deps, scope: TenantScope, users: readonly UserSummary[]): Promise<Map<number, AccountState>> {
  const db = deps.db.kysely;
  const keyOf = (user: UserSummary) => userAccount(user.email).key;
  const [locks, twoFactor, admins] = await Promise.all([
    findActiveLockouts(db, [...new Set(users.map(keyOf))], deps.clock.now().toISOString()),
    findTwoFactorEnabledUserIds(
      db,
      scope,
      users.map((user) => user.id),
    ),
    findTwoHoldersOfRole(db, scope, SECURITY_ADMIN),
  ]);
  const locked = new Set(locks.map((lock) => lock.key));
  return new Map(
    users.map((user) => [
      user.id,
      {
        locked: locked.has(keyOf(user)),
        twoFactorEnabled: twoFactor.has(user.id),
        lastSecurityAdministrator: admins.length === 1 && admins[0] === user.id,
      },
    ]),
  );
}

/** Disabling wins; enabling returns to active, or to invited when no password was ever set. */
function nextStatus(user: UserWithRoles, passwordSet: boolean, disabled: boolean | undefined): UserStatus {
  if (disabled === true) return 'disabled';
  const hasPassword = passwordSet || user.password_hash !== null;
  if (disabled === false || user.status === 'invited') return hasPassword ? 'active' : 'invited';
  return user.status;
}

function assertRolesAllowed(licenseType: LicenseType, roles: Role[]): void {
  const refused = rolesNotAllowed(licenseType, roles);
  if (refused.length > 0) {
    throw fieldError('roles', `license type "${licenseType}" does not allow role(s): ${refused.join(', ')}`);
  }
}

async function assertNotLastSecurityAdmin(trx: Kysely<DB>, scope: TenantScope, userId: number): Promise<void> {
  const others = await inTenant(trx, scope)
    .selectFrom('user_roles')
    .select('user_id')
    .where('role', '=', SECURITY_ADMIN)
    .where('user_id', '!=', userId)
    .executeTakeFirst();
  if (!others) throw conflict("The client's last Security Administrator cannot be removed");
}

function emailTaken() {
  return conflict('A user with this email already exists in the client', { field: 'email' });
}

/** A system administrator reading any client's user. @throws AppError NOT_FOUND */
export async function getUserAcrossClients(deps: Deps, id: number): Promise<UserWithRoles> {
  const user = await findUserByIdAcrossClients(deps.db.kysely, id);
  if (!user) throw notFound('User');
  return user;
}
