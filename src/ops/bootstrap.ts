import fs from 'node:fs';
import path from 'node:path';
import { version } from '../../package.json';
import { createSecretKey } from 'node:crypto';
import type { Deps } from '#deps';
import { loadOrCreateSharedSecrets } from '#secrets';
import { migrateToLatest, migrationStatus, unknownAppliedMigrations, type MigrationRegistry } from '#db/migrator';
import { createBackup, defaultBackupName } from './backup-archive';
import { PRE_UPGRADE_PREFIX } from './maintenance';
import { backupDir } from '#lib/paths';
import { ensureFirstAdmin, INITIAL_PASSWORD_FILE } from '#services/admins';
import { LostDatabaseError, lostPostgresDatabase } from './lost-database';

export { INITIAL_PASSWORD_FILE };

export interface BootstrapReport {
  appliedMigrations: string[];
  adminCreated: boolean;
  /** only when generated now: shown once, also kept in <data-dir>/initial-admin-password (0600) */
  generatedAdminPassword?: string;
  initialPasswordFile?: string;
  /** the automatic backup taken before migrating a database that already had data */
  preUpgradeBackup?: string;
}

/**
 * First-run setup and upgrades, idempotent: migrations, then the first system
 * administrator. (The data directory and its secrets are created when Deps are
 * built.) When an existing database has pending migrations (an upgrade), a
 * backup is written into the backup directory first; a failing migration is
 * rolled back as a whole, so the data stays as it was.
 * @throws Error for a database newer than this build, or a failed migration.
 */
export async function bootstrap(
  deps: Deps,
  options: { migrations?: MigrationRegistry; newDatabase?: boolean } = {},
): Promise<BootstrapReport> {
  if (!options.newDatabase && deps.db.dialect === 'postgres') {
    const lost = await lostPostgresDatabase(deps.db, deps.config, options.migrations);
    if (lost) throw new LostDatabaseError(lost);
  }
  const preUpgradeBackup = await backupBeforeUpgrade(deps, options.migrations);
  let appliedMigrations: string[];
  try {
    appliedMigrations = await migrateToLatest(deps.db, options.migrations);
  } catch (error) {
    if (/newer version/.test((error as Error).message)) throw error;
    throw new Error(
      `${(error as Error).message}; the upgrade was rolled back and the data is unchanged` +
        (preUpgradeBackup ? ` (backup taken before the upgrade: ${preUpgradeBackup})` : '') +
        '; wip will not start with a partly migrated database',
      { cause: error },
    );
  }
  await loadSharedSecrets(deps);
  const admin = await ensureFirstAdmin(deps);
  const report: BootstrapReport = { appliedMigrations, adminCreated: admin.created, ...(preUpgradeBackup && { preUpgradeBackup }) };
  if (admin.generatedPassword) {
    const file = path.join(deps.config.dataDir, INITIAL_PASSWORD_FILE);
    fs.writeFileSync(file, admin.generatedPassword + '\n', { mode: 0o600 });
    report.generatedAdminPassword = admin.generatedPassword;
    report.initialPasswordFile = file;
  }
  return report;
}

/** A backup before an upgrade: only when migrations are pending on a database that already has some applied. */
export async function backupBeforeUpgrade(deps: Deps, registry?: MigrationRegistry): Promise<string | undefined> {
  // PostgreSQL: the migration batch is one transaction (nothing half-applied), and the site's database has its own backups
  if (deps.db.dialect !== 'sqlite') return undefined;
  if ((await unknownAppliedMigrations(deps.db, registry)).length > 0) return undefined; // refused by migrateToLatest
  const status = await migrationStatus(deps.db, registry);
  const pending = status.filter((m) => !m.applied);
  if (pending.length === 0 || pending.length === status.length) return undefined;
  const now = deps.clock.now();
  const result = await createBackup({
    sqlite: deps.db.sqlite,
    dataDir: deps.config.dataDir,
    output: path.join(backupDir(deps.config), defaultBackupName(PRE_UPGRADE_PREFIX, now)),
    version,
    now,
  });
  deps.logger.info({ file: result.file, pending: pending.map((m) => m.name) }, 'backup written before applying migrations');
  return result.file;
}

/**
 * PostgreSQL mode: reads (first node: creates) the secrets all nodes share, in place of the placeholders the
 * composition root started with. Needs the migrated schema. No-op on SQLite (the secrets file was read at start).
 */
export async function loadSharedSecrets(deps: Deps): Promise<void> {
  if (deps.db.dialect !== 'postgres') return;
  const shared = await loadOrCreateSharedSecrets(deps.db.kysely, deps.config.masterKey!, deps.clock.now());
  Object.assign(deps.secrets, shared);
  deps.jwtKey = createSecretKey(Buffer.from(shared.jwtSecret, 'utf8'));
}
