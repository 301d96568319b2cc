import type { ClientRow, LicenseRow, LogRow, SystemAdminRow } from '../db/schema';
import type { UserWithRoles } from '../repos/users';

// Row → API shape, field by field: an allow-list, so hashes and internals never leak.

export function presentUser(user: UserWithRoles) {
  return {
    id: user.id,
    clientId: user.client_id,
    email: user.email,
    firstName: user.first_name,
    lastName: user.last_name,
    title: user.title,
    roles: user.roles,
    licenseType: user.license_type,
    availableToOrg: JSON.parse(user.available_to_org) as unknown[],
    status: user.status,
    createdAt: user.created_at,
    updatedAt: user.updated_at,
  };
}
export type PresentedUser = ReturnType<typeof presentUser>;

export function presentClient(client: ClientRow) {
  return { id: client.id, name: client.name, createdAt: client.created_at, updatedAt: client.updated_at };
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
  let data: unknown = {};
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
    data,
  };
}
export type PresentedLog = ReturnType<typeof presentLog>;
