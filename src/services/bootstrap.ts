import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '../deps';
import { migrateToLatest } from '../db/migrator';
import { ensureFirstAdmin } from './admins';

export const INITIAL_PASSWORD_FILE = 'initial-admin-password';

export interface BootstrapReport {
  appliedMigrations: string[];
  adminCreated: boolean;
  /** only when generated now: shown once, also kept in <data-dir>/initial-admin-password (0600) */
  generatedAdminPassword?: string;
  initialPasswordFile?: string;
}

/**
 * First-run setup, idempotent: migrations, then the first system administrator.
 * (The data directory and its secrets are created when Deps are built.)
 */
export async function bootstrap(deps: Deps): Promise<BootstrapReport> {
  const appliedMigrations = await migrateToLatest(deps.db);
  const admin = await ensureFirstAdmin(deps);
  const report: BootstrapReport = { appliedMigrations, adminCreated: admin.created };
  if (admin.generatedPassword) {
    const file = path.join(deps.config.dataDir, INITIAL_PASSWORD_FILE);
    fs.writeFileSync(file, admin.generatedPassword + '\n', { mode: 0o600 });
    report.generatedAdminPassword = admin.generatedPassword;
    report.initialPasswordFile = file;
  }
  return report;
}
