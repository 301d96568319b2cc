import type BetterSqlite3 from 'better-sqlite3';
import type { DeploymentStateRow } from '../db/schema';

/**
 * The queries every request runs (authentication, the license gate). They use
 * prepared statements on the raw connection instead of the query builder,
 * whose per-query compilation costs more than these indexed single-row reads.
 * The SQL is plain and portable; a PostgreSQL mode gives this object a
 * pooled-client twin.
 */
export interface HotPathLookups {
  userSession(sessionId: number): UserSessionRecord | undefined;
  userSessionByCookie(cookieHash: string): UserSessionRecord | undefined;
  userRoles(clientId: number, userId: number): string[];
  adminSession(sessionId: number): AdminSessionRecord | undefined;
  adminSessionByCookie(cookieHash: string): AdminSessionRecord | undefined;
  touchAdminSession(sessionId: number, now: string): void;
  touchSession(sessionId: number, now: string): void;
  /** the deployment's singleton state row (installed license, newest time seen): read by the license gate */
  deploymentState(): DeploymentStateRow;
}

export interface UserSessionRecord {
  session_id: number;
  client_id: number;
  user_id: number;
  revoked_at: string | null;
  expires_at: string;
  last_seen_at: string;
  email: string;
  status: string;
  license_type: string;
  first_name: string;
  last_name: string;
  title: string;
  available_to_org: string;
  user_created_at: string;
  user_updated_at: string;
  /** the client's idle timeout in seconds (client_settings), null for the appliance default */
  session_idle_timeout: number | null;
  /** the client's 2FA requirement (client_settings), null when the client has no settings row */
  two_factor_required: string | null;
  /** 1 when the user has an enabled second factor */
  two_factor_enabled: number;
}

export interface AdminSessionRecord {
  session_id: number;
  admin_id: number;
  username: string;
  revoked_at: string | null;
  expires_at: string;
  created_at: string;
  /** null for a bearer-only session */
  last_seen_at: string | null;
}

export function prepareHotPath(sqlite: BetterSqlite3.Database): HotPathLookups {
  // Prepared on first use: the tables exist only once migrations ran.
  let statements: ReturnType<typeof prepareStatements> | undefined;
  const get = () => (statements ??= prepareStatements(sqlite));
  return {
    userSession: (id) => get().byId.get(id) as UserSessionRecord | undefined,
    userSessionByCookie: (hash) => get().byCookie.get(hash) as UserSessionRecord | undefined,
    userRoles: (clientId, userId) => get().roles.all(clientId, userId) as string[],
    adminSession: (id) => get().admin.get(id) as AdminSessionRecord | undefined,
    adminSessionByCookie: (hash) => get().adminByCookie.get(hash) as AdminSessionRecord | undefined,
    touchAdminSession: (id, now) => void get().touchAdmin.run(now, id),
    touchSession: (id, now) => void get().touch.run(now, id),
    deploymentState: () => get().deploymentState.get() as DeploymentStateRow,
  };
}

function prepareStatements(sqlite: BetterSqlite3.Database) {
  const sessionColumns = `s.id AS session_id, s.client_id, s.user_id, s.revoked_at, s.expires_at, s.last_seen_at,
    u.email, u.status, u.license_type, u.first_name, u.last_name, u.title, u.available_to_org,
    u.created_at AS user_created_at, u.updated_at AS user_updated_at, cs.session_idle_timeout, cs.two_factor_required,
    EXISTS (SELECT 1 FROM user_two_factor tf WHERE tf.client_id = s.client_id AND tf.user_id = s.user_id
      AND tf.enabled_at IS NOT NULL) AS two_factor_enabled
    FROM sessions s JOIN users u ON u.client_id = s.client_id AND u.id = s.user_id
    LEFT JOIN client_settings cs ON cs.client_id = s.client_id`;
  const adminColumns = `a.id AS session_id, a.admin_id, sa.username, a.revoked_at, a.expires_at, a.created_at, a.last_seen_at
    FROM admin_sessions a JOIN system_admins sa ON sa.id = a.admin_id`;
  return {
    byId: sqlite.prepare(`SELECT ${sessionColumns} WHERE s.id = ?`),
    byCookie: sqlite.prepare(`SELECT ${sessionColumns} WHERE s.cookie_hash = ?`),
    roles: sqlite.prepare('SELECT role FROM user_roles WHERE client_id = ? AND user_id = ?').pluck(),
    admin: sqlite.prepare(`SELECT ${adminColumns} WHERE a.id = ?`),
    adminByCookie: sqlite.prepare(`SELECT ${adminColumns} WHERE a.cookie_hash = ?`),
    touchAdmin: sqlite.prepare('UPDATE admin_sessions SET last_seen_at = ? WHERE id = ?'),
    touch: sqlite.prepare('UPDATE sessions SET last_seen_at = ? WHERE id = ?'),
    deploymentState: sqlite.prepare('SELECT * FROM deployment_state WHERE id = 1'),
  };
}

