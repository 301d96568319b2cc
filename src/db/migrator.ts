import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
import { migrations } from '../../migrations';
import type { Database } from './connection';

/** The registry is a parameter only so tests can add a failing migration; the product always uses its own. */
export type MigrationRegistry = Record<string, Migration>;

export function createMigrator(db: Database, registry: MigrationRegistry = migrations): Migrator {
  return new Migrator({
    db: db.kysely,
    provider: { getMigrations: async () => registry },
  });
}

export interface MigrationStatus {
  name: string;
  applied: boolean;
  appliedAt: string | null;
}

export async function migrationStatus(db: Database, registry: MigrationRegistry = migrations): Promise<MigrationStatus[]> {
  const list = await createMigrator(db, registry).getMigrations();
  return list.map((m) => ({ name: m.name, applied: m.executedAt !== undefined, appliedAt: m.executedAt?.toISOString() ?? null }));
}

/**
 * Applies every pending migration. Refuses a database that has migrations this
 * build does not know (an older binary on a newer schema). On SQLite kysely
 * runs the whole batch of pending migrations in one transaction (transactional
 * DDL), so a failing migration leaves the schema and data exactly as before.
 * @throws Error naming the failed migration.
 */
export async function migrateToLatest(db: Database, registry: MigrationRegistry = migrations): Promise<string[]> {
  const unknown = await unknownAppliedMigrations(db, registry);
  if (unknown.length > 0) {
    throw new Error(
      `the database was migrated by a newer version (unknown migrations: ${unknown.join(', ')}); use that version or restore a backup`,
    );
  }
  return unwrap(await createMigrator(db, registry).migrateToLatest());
}

export async function migrateDown(db: Database): Promise<string[]> {
  return unwrap(await createMigrator(db).migrateDown());
}

/** Names of applied migrations this build does not know (the database is newer than the code). */
export async function unknownAppliedMigrations(db: Database, registry: MigrationRegistry = migrations): Promise<string[]> {
  const exists = db.sqlite
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'")
    .get();
  if (!exists) return [];
  const rows = await db.kysely
    .selectFrom('kysely_migration' as never)
    .select('name' as never)
    .execute();
  return (rows as { name: string }[]).map((r) => r.name).filter((name) => !(name in registry));
}

function unwrap({ error, results }: MigrationResultSet): string[] {
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(`migration ${failed} failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
