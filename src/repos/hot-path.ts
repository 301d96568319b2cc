import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Database } from '#db/connection';
import type { AgreementKind, AgreementRow, DeploymentStateRow } from '#db/schema';
import type { WriteGeneration } from '#db/write-generation';
import type { Answer } from '#lib/answer';

/**
 * The queries every request runs (authentication, the license gate), behind a
 * cache validated on every call, so a request usually runs no SQL for the
 * caller's state at all.
 *
 * The cache is current while two numbers are unchanged: SQLite's
 * `PRAGMA data_version` (changes when another process — the CLI — commits) and
 * this process's write generation (db/write-generation.ts: bumped by every
 * write through the query builder to a table read here). On any change it is
 * emptied as a whole: these rows change rarely, and a flush costs one
 * statement per caller. While this connection has a transaction open nothing
 * is cached (the rows read may not be committed yet). Times (expiry, idle
 * timeout) are compared with the clock by the callers on every request, so a
 * cached row never outlives its validity.
 *
 * A miss runs one statement: the session, its user, the client's settings, the
 * second factor and the roles in one row (`group_concat`, SQLite's spelling of
 * PostgreSQL's `string_agg`). Prepared statements on the raw connection: the
 * query builder's per-query compilation costs more than these indexed reads.
 *
 * PostgreSQL mode (`preparePostgresHotPath`) runs the same statements, named,
 * on the pool, and caches nothing: several nodes write to the database, and
 * there is no `data_version` to see their commits, so every request reads the
 * caller's state (one statement) and a revocation through any node is seen by
 * every node at the next request.
 */
export interface HotPathLookups {
  userSession(sessionId: number): Answer<UserSessionRecord | undefined>;
  userSessionByCookie(cookieHash: string): Answer<UserSessionRecord | undefined>;
  /** not cached: sign-in reads them once */
  userRoles(clientId: number, userId: number): Answer<string[]>;
  adminSession(sessionId: number): Answer<AdminSessionRecord | undefined>;
  /** not cached: only the console signs in with an admin cookie */
  adminSessionByCookie(cookieHash: string): Answer<AdminSessionRecord | undefined>;
  /** records last_seen_at (the cached row follows, so the write does not empty the cache) */
  touchSession(sessionId: number, now: string): Answer<void>;
  touchAdminSession(sessionId: number, now: string): Answer<void>;
  /**
   * The deployment's singleton state row (installed license, newest time seen): read by the license gate.
   * `checkedSince`: a `checks` value read when the request arrived; when the database has been checked for
   * other processes' commits since then (authentication did, moments ago), that check is trusted.
   */
  deploymentState(checkedSince?: number): Answer<DeploymentStateRow>;
  /** how many times the cache was checked against the database so far (see deploymentState) */
  readonly checks: number;
  /**
   * What the agreement gate reads on every client request: every version of a kind, newest effective first,
   * without its text (the gate picks the one in force by the clock, so a version becoming effective later
   * needs no write to be seen), and whether the client (MSA: `userId` undefined) or the user (EULA) accepted
   * one of `agreementIds`. `checkedSince` as for deploymentState.
   */
  agreementVersions(kind: AgreementKind, checkedSince?: number): Answer<AgreementVersion[]>;
  accepted(clientId: number, agreementIds: readonly number[], userId: number | undefined, checkedSince?: number): Answer<boolean>;
}

export type AgreementVersion = Pick<AgreementRow, 'id' | 'version' | 'effective_at' | 'requires_reacceptance'>;

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
  /** the user's roles */
  roles: string[];
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

export function createHotPath(db: Database): HotPathLookups {
  return db.dialect === 'postgres' ? preparePostgresHotPath(db.pool) : prepareHotPath(db.sqlite, db.writes);
}

/** Entries kept at most (sessions seen since the last change); past it the cache starts over. */
const MAX_ENTRIES = 10_000;

export function prepareHotPath(sqlite: BetterSqlite3.Database, writes: WriteGeneration): HotPathLookups {
  // Prepared on first use: the tables exist only once migrations ran.
  let statements: ReturnType<typeof prepareStatements> | undefined;
  const acceptedStatements = new Map<string, BetterSqlite3.Statement>();
  const get = () => (statements ??= prepareStatements(sqlite));

  let dataVersion = -1;
  let generation = -1;
  const sessions = new Map<number, UserSessionRecord | null>();
  /** cookie hash → session id */
  const cookies = new Map<string, number | null>();
  const admins = new Map<number, AdminSessionRecord | null>();
  let deployment: DeploymentStateRow | undefined;
  const agreementVersions = new Map<AgreementKind, AgreementVersion[]>();
  /** `clientId:userId:agreementIds` → accepted */
  const acceptances = new Map<string, boolean>();

  let checks = 0;
  /** true when the cache may be used (and filled); empties it when the database changed */
  const current = (checkedSince = Infinity): boolean => {
    if (sqlite.inTransaction) return false;
    // a check made after the caller's request arrived is as good as a new one
    let version = dataVersion;
    if (checks <= checkedSince) {
      version = get().dataVersion.get() as number;
      checks++;
    }
    if (
      version !== dataVersion ||
      writes.value !== generation ||
      sessions.size + cookies.size + admins.size + acceptances.size > MAX_ENTRIES
    ) {
      sessions.clear();
      cookies.clear();
      admins.clear();
      deployment = undefined;
      agreementVersions.clear();
      acceptances.clear();
      dataVersion = version;
      generation = writes.value;
    }
    return true;
  };
  function cached<K, V>(map: Map<K, V | null>, key: K, read: () => V | undefined): V | undefined {
    if (!current()) return read();
    const hit = map.get(key);
    if (hit !== undefined) return hit ?? undefined;
    const value = read();
    map.set(key, value ?? null);
    return value;
  }

  return {
    userSession: (id) => cached(sessions, id, () => withRoles(get().byId.get(id) as never)),
    userSessionByCookie(hash) {
      const read = () => withRoles(get().byCookie.get(hash) as never);
      if (!current()) return read();
      const id = cookies.get(hash);
      if (id === null) return undefined;
      const hit = id === undefined ? undefined : sessions.get(id);
      if (hit) return hit;
      const record = read();
      cookies.set(hash, record?.session_id ?? null);
      if (record) sessions.set(record.session_id, record);
      return record;
    },
    userRoles: (clientId, userId) => get().roles.all(clientId, userId) as string[],
    adminSession: (id) => cached(admins, id, () => get().admin.get(id) as AdminSessionRecord | undefined),
    adminSessionByCookie: (hash) => get().adminByCookie.get(hash) as AdminSessionRecord | undefined,
    touchSession(id, now) {
      get().touch.run(now, id);
      const record = sessions.get(id);
      if (record) record.last_seen_at = now;
    },
    touchAdminSession(id, now) {
      get().touchAdmin.run(now, id);
      const record = admins.get(id);
      if (record) record.last_seen_at = now;
    },
    get checks() {
      return checks;
    },
    deploymentState(checkedSince) {
      if (!current(checkedSince)) return get().deploymentState.get() as DeploymentStateRow;
      return (deployment ??= get().deploymentState.get() as DeploymentStateRow);
    },
    agreementVersions(kind, checkedSince) {
      const read = () => get().agreementVersions.all(kind) as AgreementVersion[];
      if (!current(checkedSince)) return read();
      let versions = agreementVersions.get(kind);
      if (!versions) agreementVersions.set(kind, (versions = read()));
      return versions;
    },
    accepted(clientId, agreementIds, userId, checkedSince) {
      const read = () => {
        const text = acceptedSql(agreementIds.length, userId !== undefined);
        let statement = acceptedStatements.get(text);
        if (!statement) acceptedStatements.set(text, (statement = sqlite.prepare(text).pluck()));
        return statement.get(clientId, ...agreementIds, ...(userId === undefined ? [] : [userId])) !== undefined;
      };
      if (!current(checkedSince)) return read();
      const key = `${clientId}:${userId ?? ''}:${agreementIds.join(',')}`;
      let accepted = acceptances.get(key);
      if (accepted === undefined) acceptances.set(key, (accepted = read()));
      return accepted;
    },
  };
}

/** Whether a client (or a user of it) accepted one of `count` agreements: one statement text per count (a handful of versions at most). */
function acceptedSql(count: number, byUser: boolean): string {
  return `SELECT 1 FROM agreement_acceptances WHERE client_id = ? AND agreement_id IN (${Array(count).fill('?').join(', ')})${byUser ? ' AND user_id = ?' : ''} LIMIT 1`;
}

// `?` placeholders; PostgreSQL's $1, $2 … are derived from them (postgresText). Roles are single words, so a
// comma-joined list is unambiguous; the aggregate is the one word the dialects spell differently.
const sessionColumns = (aggregate: 'group_concat' | 'string_agg') => `s.id AS session_id, s.client_id, s.user_id, s.revoked_at,
    s.expires_at, s.last_seen_at, u.email, u.status, u.license_type, u.first_name, u.last_name, u.title, u.available_to_org,
    u.created_at AS user_created_at, u.updated_at AS user_updated_at, cs.session_idle_timeout, cs.two_factor_required,
    CASE WHEN EXISTS (SELECT 1 FROM user_two_factor tf WHERE tf.client_id = s.client_id AND tf.user_id = s.user_id
      AND tf.enabled_at IS NOT NULL) THEN 1 ELSE 0 END AS two_factor_enabled,
    (SELECT ${aggregate}(r.role, ',') FROM user_roles r WHERE r.client_id = s.client_id AND r.user_id = s.user_id) AS roles
    FROM sessions s JOIN users u ON u.client_id = s.client_id AND u.id = s.user_id
    LEFT JOIN client_settings cs ON cs.client_id = s.client_id`;
const ADMIN_COLUMNS = `a.id AS session_id, a.admin_id, sa.username, a.revoked_at, a.expires_at, a.created_at, a.last_seen_at
    FROM admin_sessions a JOIN system_admins sa ON sa.id = a.admin_id`;
const sqlText = (aggregate: 'group_concat' | 'string_agg') => ({
  byId: `SELECT ${sessionColumns(aggregate)} WHERE s.id = ?`,
  byCookie: `SELECT ${sessionColumns(aggregate)} WHERE s.cookie_hash = ?`,
  roles: 'SELECT role FROM user_roles WHERE client_id = ? AND user_id = ?',
  admin: `SELECT ${ADMIN_COLUMNS} WHERE a.id = ?`,
  adminByCookie: `SELECT ${ADMIN_COLUMNS} WHERE a.cookie_hash = ?`,
  touch: 'UPDATE sessions SET last_seen_at = ? WHERE id = ?',
  touchAdmin: 'UPDATE admin_sessions SET last_seen_at = ? WHERE id = ?',
  deploymentState: 'SELECT * FROM deployment_state WHERE id = 1',
  agreementVersions:
    'SELECT id, version, effective_at, requires_reacceptance FROM agreements WHERE kind = ? ORDER BY effective_at DESC, id DESC',
});

function prepareStatements(sqlite: BetterSqlite3.Database) {
  const SQL = sqlText('group_concat');
  return {
    dataVersion: sqlite.prepare('PRAGMA data_version').pluck(),
    byId: sqlite.prepare(SQL.byId),
    byCookie: sqlite.prepare(SQL.byCookie),
    roles: sqlite.prepare(SQL.roles).pluck(),
    admin: sqlite.prepare(SQL.admin),
    adminByCookie: sqlite.prepare(SQL.adminByCookie),
    touch: sqlite.prepare(SQL.touch),
    touchAdmin: sqlite.prepare(SQL.touchAdmin),
    deploymentState: sqlite.prepare(SQL.deploymentState),
    agreementVersions: sqlite.prepare(SQL.agreementVersions),
  };
}

/** The PostgreSQL twin: the same statements, named (each pooled connection prepares them once), nothing cached. */
export function preparePostgresHotPath(pool: pg.Pool): HotPathLookups {
  const SQL = sqlText('string_agg');
  const run = async <R extends object>(name: keyof typeof SQL, values: unknown[]): Promise<R[]> =>
    (await pool.query<R>({ name: `hot_${name}`, text: postgresText(SQL[name]), values })).rows;
  const session = async (name: 'byId' | 'byCookie', key: unknown) => withRoles((await run<SessionRow>(name, [key]))[0]);
  return {
    userSession: (id) => session('byId', id),
    userSessionByCookie: (hash) => session('byCookie', hash),
    userRoles: async (clientId, userId) => (await run<{ role: string }>('roles', [clientId, userId])).map((row) => row.role),
    adminSession: async (id) => (await run<AdminSessionRecord>('admin', [id]))[0],
    adminSessionByCookie: async (hash) => (await run<AdminSessionRecord>('adminByCookie', [hash]))[0],
    touchSession: async (id, now) => void (await run('touch', [now, id])),
    touchAdminSession: async (id, now) => void (await run('touchAdmin', [now, id])),
    checks: 0,
    deploymentState: async () => (await run<DeploymentStateRow>('deploymentState', []))[0],
    agreementVersions: async (kind) => run<AgreementVersion>('agreementVersions', [kind]),
    accepted: async (clientId, agreementIds, userId) => {
      const values = [clientId, ...agreementIds, ...(userId === undefined ? [] : [userId])];
      return (await pool.query({ text: postgresText(acceptedSql(agreementIds.length, userId !== undefined)), values })).rowCount! > 0;
    },
  };
}

type SessionRow = Omit<UserSessionRecord, 'roles'> & { roles: string | null };

function withRoles(row: SessionRow | undefined): UserSessionRecord | undefined {
  return row && { ...row, roles: row.roles ? row.roles.split(',') : [] };
}

function postgresText(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}
