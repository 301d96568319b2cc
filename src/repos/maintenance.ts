import { tableExists } from '#db/dialect';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';

// Read-only queries for operations (backup manifests, doctor). Work on any
// connection, including a backup copy opened on its own.

/** Applied migration names in order; empty when the database was never migrated. */
export async function listAppliedMigrationNames(db: Kysely<DB>): Promise<string[]> {
  if (!(await tableExists(db, 'kysely_migration'))) return [];
  const rows = await db
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .orderBy('name' as never)
    .execute();
  return (rows as { name: string }[]).map((r) => r.name);
}

/** The newest timestamp written into each table that records "when"; null for an empty table. */
export async function newestTimestamps(db: Kysely<DB>): Promise<Record<string, string | null>> {
  const result: Record<string, string | null> = {};
  for (const [table, column] of [
    ['logs', 'created_at'],
    ['clients', 'updated_at'],
    ['users', 'updated_at'],
    ['sessions', 'last_seen_at'],
    ['system_admins', 'updated_at'],
  ] as const) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.max(column as never).as('newest'))
      .executeTakeFirst();
    result[table] = (row?.newest as string | null | undefined) ?? null;
  }
  return result;
}

/**
 * The storage index: every column that holds a file-store key. A feature that
 * stores files adds its column here, so `wip doctor` can tell referenced files
 * from orphans.
 */
export const FILE_KEY_COLUMNS = [
  ['agreements', 'file_key'],
  // files and file_revisions reference content through their client's blob rows
  ['file_blobs', 'sha256'],
  ['system_files', 'sha256'],
] as const;

/** Whether any row (of any client, or of the system) references the file key. */
export async function isFileKeyReferenced(db: Kysely<DB>, key: string): Promise<boolean> {
  for (const [table, column] of FILE_KEY_COLUMNS) {
    const row = await db.selectFrom(table).select(column).where(column, '=', key).limit(1).executeTakeFirst();
    if (row) return true;
  }
  return false;
}

/** Every file key referenced by a row (tables not created yet are skipped). */
export async function listReferencedFileKeys(db: Kysely<DB>): Promise<Set<string>> {
  const keys = new Set<string>();
  for (const [table, column] of FILE_KEY_COLUMNS) {
    if (!(await tableExists(db, table))) continue;
    const rows = await db.selectFrom(table).select(column).where(column, 'is not', null).execute();
    for (const row of rows) keys.add(String((row as Record<string, unknown>)[column]));
  }
  return keys;
}
