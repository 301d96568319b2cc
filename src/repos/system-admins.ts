import type { Kysely } from 'kysely';
import type { DB, SystemAdminRow } from '#db/schema';

// System administrators operate the appliance; they belong to no client.

export async function findAdminByUsername(db: Kysely<DB>, username: string): Promise<SystemAdminRow | undefined> {
  return db.selectFrom('system_admins').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function findAdminById(db: Kysely<DB>, id: number): Promise<SystemAdminRow | undefined> {
  return db.selectFrom('system_admins').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAdmins(db: Kysely<DB>): Promise<SystemAdminRow[]> {
  return db.selectFrom('system_admins').selectAll().orderBy('id').execute();
}

export async function countAdmins(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('system_admins')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertAdmin(db: Kysely<DB>, username: string, passwordHash: string, now: string): Promise<SystemAdminRow> {
  return db
    .insertInto('system_admins')
    .values({ username, password_hash: passwordHash, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateAdminPassword(db: Kysely<DB>, id: number, passwordHash: string, now: string): Promise<void> {
  await db.updateTable('system_admins').set({ password_hash: passwordHash, updated_at: now }).where('id', '=', id).execute();
}

/** Deletes the admin; its sessions go with it (ON DELETE CASCADE). */
export async function deleteAdmin(db: Kysely<DB>, id: number): Promise<void> {
  await db.deleteFrom('system_admins').where('id', '=', id).execute();
}

export async function insertAdminSession(
  db: Kysely<DB>,
  values: {
    admin_id: number;
    expires_at: string;
    ip: string | null;
    user_agent: string | null;
    cookie_hash: string | null;
    last_seen_at: string | null;
  },
  now: string,
): Promise<number> {
  const row = await db
    .insertInto('admin_sessions')
    .values({ ...values, created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function revokeAdminSession(db: Kysely<DB>, id: number, now: string): Promise<void> {
  await db.updateTable('admin_sessions').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).execute();
}

export async function revokeAdminSessionsOf(db: Kysely<DB>, adminId: number, now: string): Promise<void> {
  await db.updateTable('admin_sessions').set({ revoked_at: now }).where('admin_id', '=', adminId).where('revoked_at', 'is', null).execute();
}

/** Ends the administrator's sessions but the one making the change. */
export async function revokeOtherAdminSessions(db: Kysely<DB>, adminId: number, keepSessionId: number, now: string): Promise<void> {
  await db
    .updateTable('admin_sessions')
    .set({ revoked_at: now })
    .where('admin_id', '=', adminId)
    .where('id', '!=', keepSessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Unrevoked, unexpired system administrator sessions (for the metrics gauge). */
export async function countActiveAdminSessions(db: Kysely<DB>, now: string): Promise<number> {
  const row = await db
    .selectFrom('admin_sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
