import type { Deps } from '#deps';
import type { SsoProviderRow } from '#db/schema';
import { tenantScope, type TenantScope } from '#db/tenant';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import { isUniqueViolation, withTransaction, type AfterCommit } from '#db/transaction';
import { AppError } from '#errors';
import { emitEvent } from '#events/emit';
import { presentUser } from '#presenters';
import { ROLES, rolesNotAllowed, SECURITY_ADMIN, type LicenseType, type Role } from '#policies/roles';
import { findSsoIdentityUser, insertSsoIdentity, touchSsoIdentity } from '#repos/sso';
import { findUserByEmail, getUserById, insertUser, normalizeEmail, setUserRoles, updateUser } from '#repos/users';
import type { RequestMeta } from '../actor';
import { signInWithVerifiedIdentity, type SignInFlavour, type SignInResult, type TwoFactorChallenge } from '../auth';
import { assertAccountNotLocked, recordFailedSignIn, type LockoutAccount } from '../lockout';
import { assertSeatFree } from '../licensing/seats';
import { toProvider } from './providers';

/**
 * What a provider vouched for, after its protocol checks passed. Identities are
 * keyed by (provider, subject): a provider belongs to one client, so one
 * client's IdP can never sign a user into another client.
 */
export interface AssertedIdentity {
  subject: string;
  /** only an address the provider vouches for */
  email?: string;
  firstName?: string;
  lastName?: string;
  roles?: string[];
  organizations?: string[];
}

/**
 * SSO refusals count like wrong passwords: per provider and IP, and per IP
 * (the IP key is shared with password sign-in), so a flood of forged
 * assertions locks its source. A provider-wide key would let anyone lock out
 * every user of an IdP.
 */
function ssoAccount(providerName: string, meta: RequestMeta): LockoutAccount {
  return {
    key: `sso:${providerName}:${meta.ip ?? ''}`,
    events: { failed: 'auth.sso_refused', locked: 'auth.lockout' },
    failure: 'Failed sign-in',
    data: { provider: providerName },
  };
}

/** @throws AppError TOO_MANY_ATTEMPTS while the IP is locked */
export async function assertSsoNotLocked(deps: Deps, providerName: string, meta: RequestMeta): Promise<void> {
  await assertAccountNotLocked(deps, ssoAccount(providerName, meta), meta);
}

/**
 * Records the refusal as a security event (auth.sso_refused, with the reason)
 * and returns the error to throw: 401 SSO_FAILED. The reason is logged, not
 * shown: a caller learns only that the sign-in was refused.
 */
export async function ssoRefused(
  deps: Deps,
  provider: Pick<SsoProviderRow, 'name' | 'client_id'> | { name: string; client_id?: undefined },
  reason: string,
  meta: RequestMeta,
): Promise<AppError> {
  await recordFailedSignIn(deps, ssoAccount(provider.name, meta), { reason, clientId: provider.client_id ?? null }, meta);
  return new AppError('SSO_FAILED', 'Single sign-on was refused');
}

/**
 * Signs in the user an identity belongs to: the linked user, else the user of
 * the client with the vouched-for email (linked now), else a new user when the
 * provider provisions just in time (seats apply). Then the same sign-in as a
 * correct password.
 * @throws AppError SSO_FAILED (no such user, provisioning off), LICENSE_SEATS_EXHAUSTED, ACCOUNT_DISABLED, TOO_MANY_ATTEMPTS
 */
export async function signInAssertedIdentity(
  deps: Deps,
  provider: SsoProviderRow,
  identity: AssertedIdentity,
  meta: RequestMeta,
  flavour: SignInFlavour = 'v1',
): Promise<SignInResult | TwoFactorChallenge> {
  const scope = tenantScope(provider.client_id);
  const userId = await userForIdentity(deps, scope, provider, identity, meta);
  return signInWithVerifiedIdentity(deps, scope, userId, provider.kind, meta, flavour);
}

/** The user id an identity stands for, linking or provisioning as the provider allows. */
export async function userForIdentity(
  deps: Deps,
  scope: TenantScope,
  provider: SsoProviderRow,
  identity: AssertedIdentity,
  meta: RequestMeta,
): Promise<number> {
  const nowIso = deps.clock.now().toISOString();
  const linked = await findSsoIdentityUser(deps.db.kysely, scope, provider.id, identity.subject);
  if (linked !== undefined) {
    await touchSsoIdentity(deps.db.kysely, scope, provider.id, identity.subject, nowIso);
    await updateFromProvider(deps, scope, provider, linked, identity);
    return linked;
  }
  if (!identity.email || !/^[^\s@]{1,64}@[^\s@]{1,253}$/.test(identity.email)) {
    throw await ssoRefused(deps, provider, 'the provider vouched for no email address', meta);
  }
  const email = identity.email;
  const settings = toProvider(provider);
  try {
    return await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
      const existing = await findUserByEmail(trx, scope, email);
      if (existing) {
        await insertSsoIdentity(trx, scope, { provider_id: provider.id, subject: identity.subject, user_id: existing.id }, nowIso);
        // an invited user who signs in through the organisation's IdP has proven the address
        if (existing.status === 'invited') await updateUser(trx, scope, existing.id, { status: 'active', updated_at: nowIso });
        await updateFromProvider(deps, scope, provider, existing.id, identity, { trx, afterCommit });
        return existing.id;
      }
      if (!settings.jit.enabled) return undefined;
      const licenseType = settings.jit.licenseType;
      await assertSeatFree(trx, scope, licenseType, nowIso);
      const mapped = (identity.roles ?? []).filter((role): role is Role => (ROLES as readonly string[]).includes(role));
      const roles = mapped.length > 0 && rolesNotAllowed(licenseType, mapped).length === 0 ? mapped : settings.jit.roles;
      const row = await insertUser(trx, scope, {
        email: email.trim(),
        email_normalized: normalizeEmail(email),
        first_name: (identity.firstName ?? '').slice(0, 200),
        last_name: (identity.lastName ?? '').slice(0, 200),
        title: '',
        license_type: licenseType,
        status: 'active',
        password_hash: null,
        available_to_org: JSON.stringify(identity.organizations ?? []),
        created_at: nowIso,
        updated_at: nowIso,
      });
      await setUserRoles(trx, scope, row.id, roles);
      await insertSsoIdentity(trx, scope, { provider_id: provider.id, subject: identity.subject, user_id: row.id }, nowIso);
      await emitEvent({ deps, trx, afterCommit }, scope, 'user.created', presentUser(await getUserById(trx, scope, row.id)));
      return row.id;
    }).then(async (userId) => {
      if (userId === undefined)
        throw await ssoRefused(deps, provider, 'no user with this email and just-in-time provisioning is off', meta);
      return userId;
    });
  } catch (error) {
    // a concurrent first sign-in of the same identity linked it meanwhile
    if (isUniqueViolation(error)) {
      const raced = await findSsoIdentityUser(deps.db.kysely, scope, provider.id, identity.subject);
      if (raced !== undefined) return raced;
    }
    throw error;
  }
}

/**
 * With `updateOnSignIn` (default off), every sign-in applies what the mapped
 * claims say now: the roles (when all named roles are valid for the user's
 * license type; unknown names are ignored, an empty result changes nothing)
 * and the organisations. Security Administrator is never taken away this way:
 * the owner's break-glass account and the last administrator stay as they
 * are; removing it is a decision made in the application.
 */
async function updateFromProvider(
  deps: Deps,
  scope: TenantScope,
  provider: SsoProviderRow,
  userId: number,
  identity: AssertedIdentity,
  inTransaction?: { trx: Kysely<DB>; afterCommit: AfterCommit },
): Promise<void> {
  const settings = toProvider(provider);
  if (!settings.settings.updateOnSignIn || (identity.roles === undefined && identity.organizations === undefined)) return;
  const apply = async (trx: Kysely<DB>, afterCommit: AfterCommit) => {
    const user = await getUserById(trx, scope, userId);
    const named = (identity.roles ?? []).filter((role): role is Role => (ROLES as readonly string[]).includes(role));
    const roles = [...new Set([...named, ...(user.roles.includes(SECURITY_ADMIN) ? [SECURITY_ADMIN] : [])])] as Role[];
    const rolesChange =
      identity.roles !== undefined &&
      named.length > 0 &&
      rolesNotAllowed(user.license_type as LicenseType, roles).length === 0 &&
      !sameSet(roles, user.roles);
    const organizations = identity.organizations === undefined ? undefined : JSON.stringify(identity.organizations);
    const orgsChange = organizations !== undefined && organizations !== user.available_to_org;
    if (!rolesChange && !orgsChange) return;
    if (rolesChange) await setUserRoles(trx, scope, userId, roles);
    await updateUser(trx, scope, userId, {
      ...(orgsChange && { available_to_org: organizations }),
      updated_at: deps.clock.now().toISOString(),
    });
    await emitEvent({ deps, trx, afterCommit }, scope, 'user.updated', presentUser(await getUserById(trx, scope, userId)));
  };
  if (inTransaction) await apply(inTransaction.trx, inTransaction.afterCommit);
  else await withTransaction(deps.db, { lockClient: scope.clientId }, (trx, afterCommit) => apply(trx, afterCommit));
}

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** A claim or attribute as text: the first value of an array, nothing for other shapes. */
export function claimText(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && first.trim() !== '' ? first.trim() : undefined;
}

/** A claim or attribute as a list of texts. */
export function claimList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.split(/[,\s]+/).filter(Boolean);
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return undefined;
}
