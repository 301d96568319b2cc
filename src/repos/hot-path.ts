import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '../db/connection';
import type { DeploymentStateRow } from '../db/schema';

/** SQLite answers synchronously (no promise, no extra tick); PostgreSQL with a promise: callers await either. */
type Answer<T> = T | Promise<T>;

/**
 * The queries every request runs (authentication, the license gate). They use
 * prepared statements on the raw connection instead of the query builder,
 * whose per-query compilation costs more than these indexed single-row reads.
 * The SQL is plain and portable; in PostgreSQL mode the same statements run
 * as named prepared statements on the pool (`preparePostgresHotPath`). Nothing
 * is cached between requests, so a revocation through any node is seen by
 * every node at the next request.
 */
export interface HotPathLookups {
  userSession(sessionId: number): Answer<UserSessionRecord | undefined>;
  userSessionByCookie(cookieHash: string): Answer<UserSessionRecord | undefined>;
  userRoles(clientId: number, userId: number): Answer<string[]>;
  adminSession(sessionId: number): Answer<AdminSessionRecord | undefined>;
  adminSessionByCookie(cookieHash: string): Answer<AdminSessionRecord | undefined>;
  touchAdminSession(sessionId: number, now: string): Answer<void>;
  touchSession(sessionId: number, now: string): Answer<void>;
  /** the deployment's singleton state row (installed license, newest time seen): read by the license gate */
  deploymentState(): Answer<DeploymentStateRow>;
}

export function createHotPath(db: Database): HotPathLookups {
  return db.dialect === 'postgres' ? preparePostgresHotPath(db.pool) : prepareHotPath(db.sqlite);
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

// `?` placeholders; PostgreSQL's $1, $2 … are derived from them (postgresText)
const SESSION_COLUMNS = `s.id AS session_id, s.client_id, s.user_id, s.revoked_at, s.expires_at, s.last_seen_at,
    u.email, u.status, u.license_type, u.first_name, u.last_name, u.title, u.available_to_org,
    u.created_at AS user_created_at, u.updated_at AS user_updated_at, cs.session_idle_timeout, cs.two_factor_required,
    CASE WHEN EXISTS (SELECT 1 FROM user_two_factor tf WHERE tf.client_id = s.client_id AND tf.user_id = s.user_id
      AND tf.enabled_at IS NOT NULL) THEN 1 ELSE 0 END AS two_factor_enabled
    FROM sessions s JOIN users u ON u.client_id = s.client_id AND u.id = s.user_id
    LEFT JOIN client_settings cs ON cs.client_id = s.client_id`;
const ADMIN_COLUMNS = `a.id AS session_id, a.admin_id, sa.username, a.revoked_at, a.expires_at, a.created_at, a.last_seen_at
    FROM admin_sessions a JOIN system_admins sa ON sa.id = a.admin_id`;
const SQL = {
  byId: `SELECT ${SESSION_COLUMNS} WHERE s.id = ?`,
  byCookie: `SELECT ${SESSION_COLUMNS} WHERE s.cookie_hash = ?`,
  roles: 'SELECT role FROM user_roles WHERE client_id = ? AND user_id = ?',
  admin: `SELECT ${ADMIN_COLUMNS} WHERE a.id = ?`,
  adminByCookie: `SELECT ${ADMIN_COLUMNS} WHERE a.cookie_hash = ?`,
  touchAdmin: 'UPDATE admin_sessions SET last_seen_at = ? WHERE id = ?',
  touch: 'UPDATE sessions SET last_seen_at = ? WHERE id = ?',
  deploymentState: 'SELECT * FROM deployment_state WHERE id = 1',
};

function prepareStatements(sqlite: BetterSqlite3.Database) {
  return {
    byId: sqlite.prepare(SQL.byId),
    byCookie: sqlite.prepare(SQL.byCookie),
    roles: sqlite.prepare(SQL.roles).pluck(),
    admin: sqlite.prepare(SQL.admin),
    adminByCookie: sqlite.prepare(SQL.adminByCookie),
    touchAdmin: sqlite.prepare(SQL.touchAdmin),
    touch: sqlite.prepare(SQL.touch),
    deploymentState: sqlite.prepare(SQL.deploymentState),
  };
}

/**
 * The PostgreSQL twin: the same statements, named, so each pooled connection
 * prepares them once.
 */
export function preparePostgresHotPath(pool: pg.Pool): HotPathLookups {
  const run = async <R extends object>(name: keyof typeof SQL, values: unknown[]): Promise<R[]> =>
    (await pool.query<R>({ name: `hot_${name}`, text: postgresText(SQL[name]), values })).rows;
  return {
    userSession: async (id) => (await run<UserSessionRecord>('byId', [id]))[0],
    userSessionByCookie: async (hash) => (await run<UserSessionRecord>('byCookie', [hash]))[0],
    userRoles: async (clientId, userId) => (await run<{ role: string }>('roles', [clientId, userId])).map((row) => row.role),
    adminSession: async (id) => (await run<AdminSessionRecord>('admin', [id]))[0],
    adminSessionByCookie: async (hash) => (await run<AdminSessionRecord>('adminByCookie', [hash]))[0],
    touchAdminSession: async (id, now) => void (await run('touchAdmin', [now, id])),
    touchSession: async (id, now) => void (await run('touch', [now, id])),
    deploymentState: async () => (await run<DeploymentStateRow>('deploymentState', []))[0]!,
  };
}

function postgresText(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

