import { Migrator, sql, type Kysely, type Migration, type MigrationResultSet } from 'kysely';
import { migrations } from '../../migrations';
import type { Database, SqliteDatabase } from './connection';
import { PostgresSchemaPlugin, tableExists } from './dialect';

/** The registry is a parameter only so tests can add a failing migration; the product always uses its own. */
export type MigrationRegistry = Record<string, Migration>;

export function createMigrator(db: Database | Kysely<any>, registry: MigrationRegistry = migrations): Migrator {
  return new Migrator({
    // PostgreSQL: the migrations' DDL adapted to its types (src/db/dialect.ts)
    db: !('kysely' in db) ? db : db.dialect === 'postgres' ? db.kysely.withPlugin(new PostgresSchemaPlugin()) : db.kysely,
    provider: { getMigrations: async () => registry },
  });
}

/**
 * Runs a migration batch inside one SQLite transaction. kysely's SQLite adapter
 * declares no transactional DDL, so its Migrator would run each statement on
 * its own and leave a half-applied migration behind on failure; SQLite does
 * support DDL in transactions, so the batch is wrapped here: all pending
 * migrations apply, or none. (Consequence for migration authors: PRAGMA
 * foreign_keys cannot change inside; use PRAGMA defer_foreign_keys for table rebuilds.)
 */
async function migrateInTransaction(
  db: Database,
  registry: MigrationRegistry,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  // PostgreSQL: kysely runs the batch in one transaction (transactional DDL)
  // under an advisory lock, so N nodes starting at once migrate exactly once
  if (db.dialect === 'postgres') return unwrap(await step(createMigrator(db, registry)));
  return migrateSqliteInTransaction(db, registry, step);
}

async function migrateSqliteInTransaction(
  db: SqliteDatabase,
  registry: MigrationRegistry,
  step: (migrator: Migrator) => Promise<MigrationResultSet>,
): Promise<string[]> {
  return db.kysely.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    let result: MigrationResultSet;
    try {
      result = await step(createMigrator(conn, registry));
    } catch (error) {
      if (db.sqlite.inTransaction) await sql`rollback`.execute(conn);
      throw error;
    }
    if (result.error) {
      if (db.sqlite.inTransaction) await sql`rollback`.execute(conn);
      return unwrap(result); // throws, naming the failed migration
    }
    await sql`commit`.execute(conn);
    return unwrap(result);
  });
}

export interface MigrationStatus {
  name: string;
  applied: boolean;
  appliedAt: string | null;
}

export async function migrationStatus(db: Database, registry: MigrationRegistry = migrations): Promise<MigrationStatus[]> {
  const applied = await appliedMigrations(db);
  // sorted by name, as kysely's Migrator orders them
  return Object.keys(registry)
    .sort()
    .map((name) => {
      const at = applied.get(name);
      return { name, applied: at !== undefined, appliedAt: at === undefined ? null : new Date(at).toISOString() };
    });
}

/**
 * The applied migrations (name → timestamp), read straight from kysely's table.
 * Not through Migrator.getMigrations: that lists every table with its columns
 * just to learn whether kysely_migration exists (tens of milliseconds at every
 * start, CLI command and readiness check on a schema of this size).
 */
async function appliedMigrations(db: Database): Promise<Map<string, string>> {
  if (!(await tableExists(db.kysely, 'kysely_migration'))) return new Map();
  const rows = (await db.kysely
    .selectFrom('kysely_migration' as never)
    .select(['name', 'timestamp'] as never[])
    .execute()) as { name: string; timestamp: string }[];
  return new Map(rows.map((r) => [r.name, r.timestamp]));
}

/**
 * Applies every pending migration. Refuses a database that has migrations this
 * build does not know (an older binary on a newer schema). The whole batch of
 * pending migrations runs in one transaction, so a failing migration leaves
 * the schema and data exactly as before.
 * @throws Error naming the failed migration.
 */
export async function migrateToLatest(db: Database, registry: MigrationRegistry = migrations): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const unknown = unknownIn(applied, registry);
  if (unknown.length > 0) {
    throw new Error(
      `the database was migrated by a newer version (unknown migrations: ${unknown.join(', ')}); use that version or restore a backup`,
    );
  }
  // up to date (every start after the first): nothing for the Migrator to do, and its checks cost a schema introspection
  if (Object.keys(registry).every((name) => applied.has(name))) return [];
  return migrateInTransaction(db, registry, (migrator) => migrator.migrateToLatest());
}

export async function migrateDown(db: Database, registry: MigrationRegistry = migrations): Promise<string[]> {
  return migrateInTransaction(db, registry, (migrator) => migrator.migrateDown());
}

/** Names of applied migrations this build does not know (the database is newer than the code). */
export async function unknownAppliedMigrations(db: Database, registry: MigrationRegistry = migrations): Promise<string[]> {
  return unknownIn(await appliedMigrations(db), registry);
}

const unknownIn = (applied: Map<string, string>, registry: MigrationRegistry) => [...applied.keys()].filter((name) => !(name in registry));

function unwrap({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
