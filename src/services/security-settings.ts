import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { ClientSettingsRow, DB, TwoFactorRequirement } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { validationFailed } from '#errors';
import { MIN_PASSWORD_LENGTH_FLOOR, passwordProblems } from '#policies/password';
import { SECURITY_ADMIN } from '#policies/roles';
import { getClientById } from '#repos/clients';
import { findClientSettings, upsertClientSettings, type SecuritySettings } from '#repos/client-settings';
export type { SecuritySettings } from '#repos/client-settings';
import { tenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { recordChange, type ChangedBy } from './security-log';

export type SecuritySettingsChanges = Partial<Omit<SecuritySettings, 'updatedAt'>>;

export const DEFAULT_SECURITY_SETTINGS: SecuritySettings = {
  passwordMinLength: MIN_PASSWORD_LENGTH_FLOOR,
  twoFactorRequired: 'off',
  sessionIdleTimeout: null,
  allowedSignUpDomains: [],
  ssoEnforced: false,
  allowSelfApproval: false,
  updatedAt: null,
};

function fromRow(row: ClientSettingsRow | undefined): SecuritySettings {
  if (!row) return { ...DEFAULT_SECURITY_SETTINGS };
  return {
    passwordMinLength: row.password_min_length,
    twoFactorRequired: row.two_factor_required,
    sessionIdleTimeout: row.session_idle_timeout,
    allowedSignUpDomains: JSON.parse(row.allowed_sign_up_domains) as string[],
    ssoEnforced: row.sso_enforced === 1,
    allowSelfApproval: row.allow_self_approval === 1,
    updatedAt: row.updated_at,
  };
}

function toRow(settings: SecuritySettings, nowIso: string) {
  return {
    password_min_length: settings.passwordMinLength,
    two_factor_required: settings.twoFactorRequired,
    session_idle_timeout: settings.sessionIdleTimeout,
    allowed_sign_up_domains: JSON.stringify([...new Set(settings.allowedSignUpDomains.map((d) => d.toLowerCase()))]),
    sso_enforced: settings.ssoEnforced ? 1 : 0,
    allow_self_approval: settings.allowSelfApproval ? 1 : 0,
    updated_at: nowIso,
  };
}

/** Gives a client its settings row (the defaults) when it has none yet, so other settings can be set on it. */
export async function ensureClientSettingsRow(deps: Deps, scope: TenantScope): Promise<void> {
  if (await findClientSettings(deps.db.kysely, scope)) return;
  await deps.db.kysely
    .insertInto('client_settings')
    .values({ client_id: scope.clientId, ...toRow(DEFAULT_SECURITY_SETTINGS, deps.clock.now().toISOString()) })
    .onConflict((oc) => oc.column('client_id').doNothing())
    .execute();
}

export async function readSecuritySettings(db: Kysely<DB>, scope: TenantScope): Promise<SecuritySettings> {
  return fromRow(await findClientSettings(db, scope));
}

export async function getSecuritySettings(deps: Deps, scope: TenantScope): Promise<SecuritySettings> {
  return readSecuritySettings(deps.db.kysely, scope);
}

/** For the sign-in page of a client, before anyone signs in. @throws AppError NOT_FOUND */
export async function getSecuritySettingsOfClient(deps: Deps, clientId: number): Promise<SecuritySettings> {
  const client = await getClientById(deps.db.kysely, clientId);
  return getSecuritySettings(deps, tenantScope(client.id));
}

/**
 * Changes a client's security settings (a Security Administrator); omitted
 * fields keep their values.
 */
export async function updateSecuritySettings(
  deps: Deps,
  scope: TenantScope,
  changes: SecuritySettingsChanges,
  by: ChangedBy,
): Promise<SecuritySettings> {
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const current = await readSecuritySettings(trx, scope);
    const next = { ...current, ...changes };
    await upsertClientSettings(trx, scope, toRow(next, nowIso));
    await recordChange({ deps, trx, afterCommit }, by, {
      event: 'security.settings_changed',
      message: 'Client security settings changed',
      clientId: scope.clientId,
      target: { type: 'client_settings', id: scope.clientId },
      before: current as unknown as Record<string, unknown>,
      after: next,
      data: { changed: Object.keys(changes) },
    });
  });
  return getSecuritySettings(deps, scope);
}

/** @throws AppError VALIDATION_ERROR naming `field` with every reason */
export function assertPasswordAllowed(settings: SecuritySettings, password: string, field: string, email?: string): void {
  const problems = passwordProblems(password, { minLength: settings.passwordMinLength }, { email });
  if (problems.length > 0) {
    throw validationFailed(
      {
        fields: problems.map((message) => ({ path: field, message })),
        passwordPolicy: { minLength: Math.max(MIN_PASSWORD_LENGTH_FLOOR, settings.passwordMinLength) },
      },
      'The password does not meet the password policy',
    );
  }
}

/** Whether the client's policy requires a second factor of a user with these roles. */
export function twoFactorRequiredFor(settings: SecuritySettings, roles: readonly string[]): boolean {
  return twoFactorRequirementApplies(settings.twoFactorRequired, roles);
}

/** `admins` means the roles that administer people: Security Administrator (admin) and User Admin. */
export function twoFactorRequirementApplies(requirement: TwoFactorRequirement, roles: readonly string[]): boolean {
  if (requirement === 'all') return true;
  if (requirement === 'admins') return roles.includes(SECURITY_ADMIN) || roles.includes('user_admin');
  return false;
}
