import type { Deps } from '#deps';
import { tenantScope, type TenantScope } from '#db/tenant';
import { isUniqueViolation, withTransaction, type AfterCommit } from '#db/transaction';
import type { Kysely } from 'kysely';
import type { DB, UserRow } from '#db/schema';
import { AppError, conflict, invalidCredentials, fieldError, notFound, tokenInvalid } from '#errors';
import { passwordChangedMail, passwordResetMail } from '#mail/templates';
import { SECURITY_ADMIN } from '#policies/roles';
import { MIN_PASSWORD_LENGTH_FLOOR, passwordRules } from '#policies/password';
import { getClientById } from '#repos/clients';
import { revokeUserSessions } from '#repos/sessions';
import { deleteUnusedUserTokens } from '#repos/user-tokens';
import {
  findFirstUserWithRole,
  findUserByEmail,
  findUsersByEmailAcrossClients,
  getUserById,
  insertUser,
  normalizeEmail,
  setUserRoles,
  updateUser,
  type UserWithRoles,
} from '#repos/users';
import type { RequestMeta, UserActor } from './actor';
import { createClient, type CreatedClient } from './clients';
import { recordLogEntry, type LogActor } from './security-log';
import { clearFailedAttempts, recordFailedAttempt } from './lockout';
import { queueMail, sendInvitation } from './mail';
import { assertSeatFree } from './licensing/seats';
import { assertPasswordAllowed, getSecuritySettings, readSecuritySettings, type SecuritySettings } from './security-settings';
import { isTwoFactorEnabled } from './two-factor';
import { consumeUserToken, findValidUserToken, issueUserToken, userTokenTtl } from './user-tokens';

/** Users who join by an allowed email domain get the least privilege; an administrator raises it. */
export const SIGN_UP_ROLES = ['viewer'] as const;
export const SIGN_UP_LICENSE_TYPE = 'connect';

/**
 * Sets the first password of an invited user with the emailed token and
 * activates the account. The token works once.
 * @throws AppError TOKEN_INVALID, VALIDATION_ERROR (password policy)
 */
export async function acceptInvitation(
  deps: Deps,
  token: string,
  input: { password: string; firstName?: string; lastName?: string },
  meta: RequestMeta,
): Promise<UserWithRoles> {
  const valid = await findValidUserToken(deps, token, 'invite');
  const user = await getUserById(deps.db.kysely, valid.scope, valid.userId);
  if (user.status === 'disabled') throw tokenInvalid();
  assertPasswordAllowed(await readSecuritySettings(deps.db.kysely, valid.scope), input.password, 'body.password', user.email);
  const hash = await deps.passwords.hash(input.password);
  const nowIso = deps.clock.now().toISOString();
  const updated = await withTransaction(deps.db, { lockClient: valid.scope.clientId }, async (trx) => {
    await consumeUserToken(trx, valid, nowIso);
    await updateUser(trx, valid.scope, user.id, {
      password_hash: hash,
      status: 'active',
      ...(input.firstName !== undefined && { first_name: input.firstName }),
      ...(input.lastName !== undefined && { last_name: input.lastName }),
      updated_at: nowIso,
    });
    return getUserById(trx, valid.scope, user.id);
  });
  await recordLogEntry(deps, {
    event: 'auth.invitation_accepted',
    message: 'Invitation accepted; password set',
    clientId: valid.scope.clientId,
    userId: user.id,
    meta,
  });
  return updated;
}

/**
 * What the page of an invitation or reset link shows before the first attempt
 *: whose account it is and the password rules of its client. The
 * token is checked, not used.
 * @throws AppError TOKEN_INVALID
 */
export async function accountLinkDetails(
  deps: Deps,
  token: string,
  purpose: 'invite' | 'reset',
): Promise<{ email: string; passwordPolicy: { minLength: number; rules: string[] } }> {
  const valid = await findValidUserToken(deps, token, purpose);
  const user = await getUserById(deps.db.kysely, valid.scope, valid.userId);
  if (user.status === 'disabled') throw tokenInvalid();
  const settings = await readSecuritySettings(deps.db.kysely, valid.scope);
  const minLength = Math.max(MIN_PASSWORD_LENGTH_FLOOR, settings.passwordMinLength);
  return { email: user.email, passwordPolicy: { minLength, rules: passwordRules({ minLength }) } };
}

export type SignUpOutcome = { status: 'active'; user: UserWithRoles } | { status: 'verification_sent' };

/**
 * Self-service sign-up into an existing client, either
 * - with an invitation token (and the password): the invited account is activated, or
 * - by an email domain the client allows: an invited account is created on a
 *   `connect` seat with the `viewer` role and a link to set the password is
 *   emailed, which proves the address. The answer is the same whether or not
 *   the email already has an account there (no enumeration).
 * @throws AppError SIGN_UP_NOT_ALLOWED, NOT_FOUND (client), LICENSE_SEATS_EXHAUSTED, TOKEN_INVALID, VALIDATION_ERROR
 */
export async function signUp(
  deps: Deps,
  input: { email?: string; clientId?: number; invitationToken?: string; password?: string; firstName?: string; lastName?: string },
  meta: RequestMeta,
): Promise<SignUpOutcome> {
  if (input.invitationToken !== undefined) {
    if (input.password === undefined) throw fieldError('body.password', 'required with an invitation token');
    const user = await acceptInvitation(
      deps,
      input.invitationToken,
      { password: input.password, firstName: input.firstName, lastName: input.lastName },
      meta,
    );
    return { status: 'active', user };
  }
  if (input.email === undefined) throw fieldError('body.email', 'required without an invitation token');
  if (input.clientId === undefined) throw fieldError('body.clientId', 'required without an invitation token');
  const client = await getClientById(deps.db.kysely, input.clientId);
  const scope = tenantScope(client.id);
  const settings = await getSecuritySettings(deps, scope);
  const domain = normalizeEmail(input.email).split('@')[1] ?? '';
  if (settings.ssoEnforced) throw new AppError('SIGN_UP_NOT_ALLOWED', 'This organisation signs in through single sign-on');
  if (!settings.allowedSignUpDomains.includes(domain)) {
    throw new AppError('SIGN_UP_NOT_ALLOWED', 'Sign-up with this email domain is not allowed for this organisation; ask for an invitation');
  }
  const email = input.email;
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  try {
    const created = await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
      if (await findUserByEmail(trx, scope, email)) return undefined;
      await assertSeatFree(trx, scope, SIGN_UP_LICENSE_TYPE, nowIso);
      const row = await insertUser(trx, scope, {
        email: email.trim(),
        email_normalized: normalizeEmail(email),
        first_name: input.firstName ?? '',
        last_name: input.lastName ?? '',
        title: '',
        license_type: SIGN_UP_LICENSE_TYPE,
        status: 'invited',
        password_hash: null,
        available_to_org: '[]',
        created_at: nowIso,
        updated_at: nowIso,
      });
      await setUserRoles(trx, scope, row.id, [...SIGN_UP_ROLES]);
      await sendInvitation(deps, trx, afterCommit, { scope, user: row, clientName: client.name, now });
      return row;
    });
    if (created) {
      await recordLogEntry(deps, {
        event: 'auth.sign_up',
        message: 'Signed up by allowed email domain; verification link sent',
        clientId: client.id,
        userId: created.id,
        meta,
        data: { domain },
      });
    }
  } catch (error) {
    if (!isUniqueViolation(error)) throw error; // a concurrent sign-up of the same email: same answer
  }
  return { status: 'verification_sent' };
}

/**
 * Self-service creation of a new client with the caller as its owner (a
 * Security Administrator on a full seat), when the appliance allows it
 * (`selfServiceAccounts`, off by default).
 * @throws AppError SELF_SERVICE_DISABLED, VALIDATION_ERROR (password policy)
 */
export async function createAccount(
  deps: Deps,
  input: { email: string; password: string; clientName: string; firstName?: string; lastName?: string },
  meta: RequestMeta,
): Promise<CreatedClient> {
  if (!deps.config.selfServiceAccounts) {
    throw new AppError('SELF_SERVICE_DISABLED', 'Self-service account creation is disabled on this appliance');
  }
  const created = await createClient(deps, {
    name: input.clientName,
    owner: { email: input.email, password: input.password, firstName: input.firstName, lastName: input.lastName },
    seats: { full: deps.config.selfServiceSeats },
    passwordField: 'body.password',
  });
  await recordLogEntry(deps, {
    event: 'account.created',
    message: 'Self-service account created',
    clientId: created.client.id,
    userId: created.owner.id,
    meta,
  });
  return created;
}

/**
 * Emails a password-reset link to every active or invited account with this
 * email (in the given client, or in all). Says nothing about whether one exists.
 */
export async function requestPasswordReset(deps: Deps, input: { email: string; clientId?: number }, meta: RequestMeta): Promise<void> {
  const users = (await findUsersByEmailAcrossClients(deps.db.kysely, input.email)).filter(
    (user) => user.status !== 'disabled' && (input.clientId === undefined || user.client_id === input.clientId),
  );
  if (users.length === 0) return;
  const now = deps.clock.now();
  const ttlMs = userTokenTtl(deps.config, 'reset');
  await withTransaction(deps.db, async (trx, afterCommit) => {
    for (const user of users) {
      const token = await issueUserToken(trx, tenantScope(user.client_id), user.id, 'reset', now, ttlMs);
      await queueMail(deps, trx, afterCommit, {
        ...passwordResetMail(deps, { token, ttlMs }),
        to: user.email,
        clientId: user.client_id,
        userId: user.id,
      });
    }
  });
  for (const user of users) {
    await recordLogEntry(deps, {
      event: 'auth.password_reset_requested',
      message: 'Password reset link sent',
      clientId: user.client_id,
      userId: user.id,
      // anyone may ask for the link: not the user's own act
      actor: null,
      meta,
    });
  }
}

/**
 * Sets a new password with an emailed reset token: ends every session of the
 * user, lifts a lockout of the account, and emails a notice.
 * @throws AppError TOKEN_INVALID, VALIDATION_ERROR (password policy)
 */
export async function resetPassword(deps: Deps, token: string, password: string, meta: RequestMeta): Promise<void> {
  const valid = await findValidUserToken(deps, token, 'reset');
  const user = await getUserById(deps.db.kysely, valid.scope, valid.userId);
  if (user.status === 'disabled') throw tokenInvalid();
  assertPasswordAllowed(await readSecuritySettings(deps.db.kysely, valid.scope), password, 'body.password', user.email);
  const hash = await deps.passwords.hash(password);
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, async (trx, afterCommit) => {
    await consumeUserToken(trx, valid, nowIso);
    await storeNewPassword(deps, trx, afterCommit, { scope: valid.scope, user, hash, nowIso, how: 'reset', ip: meta.ip });
  });
  await clearFailedAttempts(deps, user.email);
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'auth.password_reset',
    message: 'Password reset with an emailed link; all sessions ended',
    clientId: user.client_id,
    userId: user.id,
    meta,
  });
}

/**
 * The signed-in user changes their password: the current one must be right
 * (a wrong one counts toward the lockout), other sessions end, this one stays.
 * @throws AppError INVALID_CREDENTIALS, TOO_MANY_ATTEMPTS, VALIDATION_ERROR (password policy)
 */
export async function changePassword(
  deps: Deps,
  actor: UserActor,
  input: { currentPassword: string; newPassword: string },
  meta: RequestMeta,
): Promise<void> {
  const user = await getUserById(deps.db.kysely, actor.scope, actor.userId);
  if (!user.password_hash || !(await deps.passwords.verify(input.currentPassword, user.password_hash))) {
    await recordFailedAttempt(
      deps,
      { email: user.email, reason: 'wrong current password on change', clientId: user.client_id, userId: user.id },
      meta,
    );
    throw invalidCredentials();
  }
  assertPasswordAllowed(await readSecuritySettings(deps.db.kysely, actor.scope), input.newPassword, 'body.newPassword', user.email);
  if (input.newPassword === input.currentPassword) throw fieldError('body.newPassword', 'must differ from the current password');
  const hash = await deps.passwords.hash(input.newPassword);
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, { lockClient: actor.scope.clientId }, (trx, afterCommit) =>
    storeNewPassword(deps, trx, afterCommit, {
      scope: actor.scope,
      user,
      hash,
      nowIso,
      how: 'changed',
      ip: meta.ip,
      keepSessionId: actor.sessionId,
    }),
  );
  await recordLogEntry(deps, {
    event: 'auth.password_changed',
    message: 'Password changed; other sessions ended',
    clientId: user.client_id,
    userId: user.id,
    meta,
  });
}

/**
 * Sends a new invitation to a user who has not set a password yet; the older
 * link stops working.
 * @throws AppError NOT_FOUND, CONFLICT (the user is not in the invited state)
 */
export async function resendInvitation(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  by: { userId: number; actor?: LogActor; meta: RequestMeta },
): Promise<UserWithRoles> {
  const now = deps.clock.now();
  const user = await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const row = await getUserById(trx, scope, userId);
    if (row.status !== 'invited') throw conflict('Only a user who has not set a password yet can be invited again');
    const client = await getClientById(trx, scope.clientId);
    await sendInvitation(deps, trx, afterCommit, { scope, user: row, clientName: client.name, now });
    return row;
  });
  await recordLogEntry(deps, {
    event: 'auth.invitation_sent',
    message: 'Invitation sent again',
    clientId: scope.clientId,
    userId: user.id,
    actor: by.actor,
    meta: by.meta,
    data: { by: by.userId },
  });
  return user;
}

/** The contact of the client's owner (its first Security Administrator), for "ask your administrator" screens. */
export async function getAdminContact(deps: Deps, scope: TenantScope): Promise<{ email: string; firstName: string; lastName: string }> {
  const owner = await findFirstUserWithRole(deps.db.kysely, scope, SECURITY_ADMIN);
  if (!owner) throw notFound('Administrator');
  return { email: owner.email, firstName: owner.first_name, lastName: owner.last_name };
}

export interface ClientInfo {
  id: number;
  name: string;
  logoFileId: number | null;
  settings: SecuritySettings;
  twoFactorEnabled: boolean;
}

/** The current user's client with what the UI adapts to. */
export async function getClientInfo(deps: Deps, actor: UserActor): Promise<ClientInfo> {
  const client = await getClientById(deps.db.kysely, actor.clientId);
  return {
    id: client.id,
    name: client.name,
    logoFileId: client.logo_file_id,
    settings: await getSecuritySettings(deps, actor.scope),
    twoFactorEnabled: await isTwoFactorEnabled(deps, actor.scope, actor.userId),
  };
}

/**
 * Stores a new password hash inside the caller's transaction: ends the user's
 * other sessions (all of them on a reset), kills pending reset links, and
 * queues the "password changed" notice.
 */
async function storeNewPassword(
  deps: Deps,
  trx: Kysely<DB>,
  afterCommit: AfterCommit,
  change: {
    scope: TenantScope;
    user: UserRow;
    hash: string;
    nowIso: string;
    how: 'reset' | 'changed';
    ip: string | null;
    keepSessionId?: number;
  },
): Promise<void> {
  const { scope, user, nowIso } = change;
  // a reset also activates an account whose invitation was never used
  await updateUser(trx, scope, user.id, {
    password_hash: change.hash,
    ...(change.how === 'reset' && { status: 'active' as const }),
    updated_at: nowIso,
  });
  await revokeUserSessions(trx, scope, user.id, nowIso, change.keepSessionId);
  await deleteUnusedUserTokens(trx, scope, user.id, 'reset');
  await queueMail(deps, trx, afterCommit, {
    ...passwordChangedMail({ when: nowIso, ip: change.ip, how: change.how }),
    to: user.email,
    clientId: user.client_id,
    userId: user.id,
  });
}
