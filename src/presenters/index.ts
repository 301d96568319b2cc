import type { ClientRow, LicenseRow, LogRow, OutboxRow, SystemAdminRow, WebhookRow } from '#db/schema';
import type { DeliveryWithEvent } from '#repos/webhooks';
import type { SecuritySettings } from '#repos/client-settings';
import type { UserWithRoles } from '#repos/users';

// Row → API shape, field by field: an allow-list, so hashes and internals never leak.

/** The user columns the API shows: the password hash is not among them, so it can never be presented. */
export type PresentableUser = Pick<
  UserWithRoles,
  | 'id'
  | 'client_id'
  | 'email'
  | 'first_name'
  | 'last_name'
  | 'title'
  | 'roles'
  | 'license_type'
  | 'available_to_org'
  | 'status'
  | 'created_at'
  | 'updated_at'
>;

export function presentUser(user: PresentableUser) {
  return {
    id: user.id,
    clientId: user.client_id,
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    title: user.title,
    roles: user.roles,
    licenseType: user.license_type,
    // nearly every user is available to no organization: no parse for that
    availableToOrg: user.available_to_org === '[]' ? [] : (JSON.parse(user.available_to_org) as unknown[]),
    status: user.status,
    createdAt: user.created_at,
    updatedAt: user.updated_at,
  };
}
export type PresentedUser = ReturnType<typeof presentUser>;

export function presentClient(client: ClientRow) {
  return {
    id: client.id,
    name: client.name,
    logoFileId: client.logo_file_id,
    timeZone: client.time_zone,
    createdAt: client.created_at,
    updatedAt: client.updated_at,
  };
}

export function presentLicense(license: LicenseRow) {
  return {
    id: license.id,
    clientId: license.client_id,
    licenseType: license.license_type,
    seats: license.seats,
    expiresAt: license.expires_at,
    createdAt: license.created_at,
    updatedAt: license.updated_at,
  };
}

export function presentSystemAdmin(admin: SystemAdminRow) {
  return { id: admin.id, username: admin.username, createdAt: admin.created_at };
}

export function presentLog(log: LogRow) {
  let data: Record<string, unknown> = {};
  try {
    data = JSON.parse(log.data);
  } catch {
    data = {};
  }
  return {
    id: log.id,
    createdAt: log.created_at,
    level: log.level,
    event: log.event,
    message: log.message,
    clientId: log.client_id,
    userId: log.user_id,
    adminId: log.admin_id,
    ip: log.ip,
    userAgent: log.user_agent,
    requestId: log.request_id,
    actor: logActor(log),
    data,
  };
}

/**
 * Who did it: the actor recorded with the event (kind, id, name as it was
 * then); null when nobody is known (a failed sign-in) and on rows older than
 * the actor columns (their adminId/userId still name the account).
 */
function logActor(log: LogRow): { kind: 'admin' | 'user' | 'cli' | 'system'; id: number | null; name: string | null } | null {
  return log.actor_kind ? { kind: log.actor_kind as 'admin' | 'user' | 'cli' | 'system', id: log.actor_id, name: log.actor_name } : null;
}
export type PresentedLog = ReturnType<typeof presentLog>;
/**
 * A client's security settings. `public` (before sign-in, by client id) shows
 * only what a sign-in page needs: the password policy, 2FA requirement and SSO.
 */
export function presentSecuritySettings(settings: SecuritySettings, audience: 'public' | 'member') {
  const policy = {
    passwordPolicy: { minLength: settings.passwordMinLength, blocksCommonPasswords: true },
    twoFactorRequired: settings.twoFactorRequired,
    ssoEnforced: settings.ssoEnforced,
  };
  if (audience === 'public') return policy;
  return {
    ...policy,
    sessionIdleTimeout: settings.sessionIdleTimeout,
    allowedSignUpDomains: settings.allowedSignUpDomains,
    allowSelfApproval: settings.allowSelfApproval,
    updatedAt: settings.updatedAt,
  };
}

/** An outbox message for operators: never the body (it may hold a live link). */
export function presentOutboxMessage(row: OutboxRow) {
  return {
    id: row.id,
    kind: row.kind,
    to: row.to_address,
    subject: row.subject,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    lastError: row.last_error,
    sentAt: row.sent_at,
    createdAt: row.created_at,
    clientId: row.client_id,
    userId: row.user_id,
  };
}

/** A webhook endpoint; its signing secret is never presented (creation and rotation return it beside this). */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as string[],
    active: row.active === 1,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function presentDelivery(row: DeliveryWithEvent) {
  return {
    id: row.id,
    eventId: row.event_public_id,
    eventType: row.event_type,
    status: row.status,
    attempt: row.attempts,
    statusCode: row.last_status_code,
    durationMs: row.last_duration_ms,
    error: row.last_error,
    attemptedAt: row.last_attempt_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    createdAt: row.created_at,
  };
}
