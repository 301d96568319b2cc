import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';

// Read-only queries for operations (backup manifests, doctor). Work on any
// connection, including a backup copy opened on its own.

/** Applied migration names in order; empty when the database was never migrated. */
export async function listAppliedMigrationNames(db: Kysely<DB>): Promise<string[]> {
  const exists = await db
    .selectFrom('sqlite_master' as never)
    .select('name' as never)
    .where('type' as never, '=', 'table' as never)
    .where('name' as never, '=', 'kysely_migration' as never)
    .executeTakeFirst();
  if (!exists) return [];
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
