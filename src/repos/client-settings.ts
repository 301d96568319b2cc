import type { Kysely } from 'kysely';
import type { ClientSettingsRow, DB, TwoFactorRequirement } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/** A client without a row uses the defaults (see services/security-settings.ts). */
export async function findClientSettings(db: Kysely<DB>, scope: TenantScope): Promise<ClientSettingsRow | undefined> {
  return inTenant(db, scope).selectFrom('client_settings').selectAll().executeTakeFirst();
}

export async function upsertClientSettings(
  db: Kysely<DB>,
  scope: TenantScope,
  values: Omit<ClientSettingsRow, 'client_id' | 'storage_quota_bytes'>,
): Promise<void> {
  await db
    .insertInto('client_settings')
    .values({ ...values, client_id: scope.clientId })
    .onConflict((oc) => oc.column('client_id').doUpdateSet(values))
    .execute();
}

/** A client's security settings as the rules read them (a missing row: the defaults). */
export interface SecuritySettings {
  passwordMinLength: number;
  twoFactorRequired: TwoFactorRequirement;
  /** seconds; null means the appliance default (sessionIdleTtl) */
  sessionIdleTimeout: number | null;
  allowedSignUpDomains: string[];
  ssoEnforced: boolean;
  /** an approver may approve a version they authored or last edited (separation of duties relaxed; off by default) */
  allowSelfApproval: boolean;
  updatedAt: string | null;
}
