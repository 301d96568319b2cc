import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types, one interface a table, snake_case as stored. Timestamps are
 * ISO-8601 UTC text (portable, sortable). Tenant-owned tables carry client_id.
 */
export interface SystemAdminsTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface AdminSessionsTable {
  id: Generated<number>;
  admin_id: number;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface ClientsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
  updated_at: string;
}

export type UserStatus = 'active' | 'invited' | 'disabled';

export interface UsersTable {
  id: Generated<number>;
  client_id: number;
  email: string;
  /** lower-cased email: uniqueness within a client is case-insensitive */
  email_normalized: string;
  first_name: string;
  last_name: string;
  title: string;
  license_type: string;
  status: UserStatus;
  password_hash: string | null;
  /** JSON array of organization identifiers */
  available_to_org: string;
  created_at: string;
  updated_at: string;
}

export interface UserRolesTable {
  client_id: number;
  user_id: number;
  role: string;
}

export interface LicensesTable {
  id: Generated<number>;
  client_id: number;
  license_type: string;
  seats: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  cookie_hash: string | null;
  created_at: string;
  last_seen_at: string;
  /** absolute end: the refresh token lifetime */
  expires_at: string;
  revoked_at: string | null;
  ip: string | null;
  user_agent: string | null;
}

export interface RefreshTokensTable {
  id: Generated<number>;
  client_id: number;
  session_id: number;
  token_hash: string;
  expires_at: string;
  /** set when rotated; presenting a used token again is reuse */
  used_at: string | null;
  created_at: string;
}

/** invite and reset are emailed links; two_factor is the sign-in challenge between password and code */
export type UserTokenPurpose = 'invite' | 'reset' | 'two_factor';

export interface UserTokensTable {
  id: Generated<number>;
  client_id: number;
  user_id: number;
  purpose: UserTokenPurpose;
  token_hash: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export type LogLevel = 'info' | 'warn' | 'error';

export interface LogsTable {
  id: Generated<number>;
  created_at: string;
  level: LogLevel;
  /** dotted event name, e.g. auth.sign_in_failed */
  event: string;
  message: string;
  client_id: number | null;
  user_id: number | null;
  admin_id: number | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** JSON object with event-specific detail (never secrets) */
  data: string;
}

export type OutboxStatus = 'pending' | 'sent' | 'stored' | 'failed';

export interface OutboxTable {
  id: Generated<number>;
  created_at: string;
  updated_at: string;
  client_id: number | null;
  user_id: number | null;
  /** template name: invitation, password_reset, password_changed, two_factor_reset */
  kind: string;
  to_address: string;
  subject: string;
  /** emptied once delivered over SMTP: it may hold a live link */
  text_body: string;
  status: OutboxStatus;
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  sent_at: string | null;
}

export type TwoFactorRequirement = 'off' | 'all' | 'admins';

export interface ClientSettingsTable {
  client_id: number;
  password_min_length: number;
  two_factor_required: TwoFactorRequirement;
  /** seconds; null: the appliance default (sessionIdleTtl) */
  session_idle_timeout: number | null;
  /** JSON array of lower-case domains */
  allowed_sign_up_domains: string;
  sso_enforced: number;
  updated_at: string;
}

export interface AuthFailuresTable {
  id: Generated<number>;
  key: string;
  created_at: string;
}

export interface AuthLockoutsTable {
  key: string;
  locked_until: string;
  created_at: string;
}

export interface UserTwoFactorTable {
  client_id: number;
  user_id: number;
  /** the TOTP secret, sealed with the data directory's key */
  secret: string;
  enabled_at: string | null;
  /** the last accepted TOTP time step: a code of that step or older is a replay */
  last_used_step: number;
  /** JSON array of SHA-256 hashes of unused recovery codes */
  recovery_codes: string;
  created_at: string;
  updated_at: string;
}

export interface InstalledLicensesTable {
  id: Generated<number>;
  /** the key as installed (verified again whenever it is loaded) */
  license_key: string;
  kid: string;
  license_id: string;
  licensee: string;
  expires_at: string;
  installed_at: string;
  /** who installed it: "admin:<id>" or "cli" */
  installed_by: string;
}

/** One row (id 1). */
export interface DeploymentStateTable {
  id: number;
  installation_id: string;
  /** the current installed_licenses row; null: evaluation mode */
  license_row_id: number | null;
  /** newest time seen by the appliance, for clock-rollback detection */
  newest_seen_at: string | null;
  updated_at: string;
}

export type AgreementKind = 'eula' | 'msa';

export interface AgreementsTable {
  id: Generated<number>;
  kind: AgreementKind;
  version: string;
  title: string;
  body_markdown: string | null;
  /** file-store key of an uploaded PDF */
  file_key: string | null;
  file_name: string | null;
  file_size: number | null;
  effective_at: string;
  /** 1: publishing this version makes acceptances of earlier versions stale */
  requires_reacceptance: number;
  created_at: string;
  updated_at: string;
}

export interface AgreementAcceptancesTable {
  id: Generated<number>;
  client_id: number;
  agreement_id: number;
  kind: AgreementKind;
  version: string;
  /** EULA: the accepting user; MSA: the Security Administrator who accepted for the client */
  user_id: number;
  user_email: string;
  accepted_at: string;
  ip: string | null;
  user_agent: string | null;
}

export interface DB {
  outbox: OutboxTable;
  client_settings: ClientSettingsTable;
  auth_failures: AuthFailuresTable;
  auth_lockouts: AuthLockoutsTable;
  user_two_factor: UserTwoFactorTable;
  logs: LogsTable;
  system_admins: SystemAdminsTable;
  admin_sessions: AdminSessionsTable;
  clients: ClientsTable;
  users: UsersTable;
  user_roles: UserRolesTable;
  licenses: LicensesTable;
  sessions: SessionsTable;
  refresh_tokens: RefreshTokensTable;
  user_tokens: UserTokensTable;
  installed_licenses: InstalledLicensesTable;
  deployment_state: DeploymentStateTable;
  agreements: AgreementsTable;
  agreement_acceptances: AgreementAcceptancesTable;
}

/** Tables that belong to one client and must always be queried through a TenantScope. */
export type TenantTable = {
  [K in keyof DB]: DB[K] extends { client_id: number } ? K : never;
}[keyof DB];

export type SystemAdminRow = Selectable<SystemAdminsTable>;
export type ClientRow = Selectable<ClientsTable>;
export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type UserUpdate = Updateable<UsersTable>;
export type LicenseRow = Selectable<LicensesTable>;
export type SessionRow = Selectable<SessionsTable>;
export type LogRow = Selectable<LogsTable>;
export type OutboxRow = Selectable<OutboxTable>;
export type ClientSettingsRow = Selectable<ClientSettingsTable>;
export type UserTwoFactorRow = Selectable<UserTwoFactorTable>;
export type InstalledLicenseRow = Selectable<InstalledLicensesTable>;
export type DeploymentStateRow = Selectable<DeploymentStateTable>;
export type AgreementRow = Selectable<AgreementsTable>;
export type AgreementAcceptanceRow = Selectable<AgreementAcceptancesTable>;
