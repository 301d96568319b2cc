import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Deps } from '#deps';
import { migrationStatus } from '#db/migrator';
import { pingDatabase } from '#repos/health';

export type CheckResult = 'ok' | string;

export interface Readiness {
  ready: boolean;
  /** each check: "ok" or why it failed */
  checks: { database: CheckResult; migrations: CheckResult; storage: CheckResult };
}

/**
 * Readiness: the database answers, every migration this build knows is applied,
 * and the data directory takes a write. Never throws: a failed check is reported.
 */
export async function checkReadiness(deps: Deps): Promise<Readiness> {
  const checks: Readiness['checks'] = { database: 'ok', migrations: 'ok', storage: 'ok' };
  try {
    await pingDatabase(deps.db.kysely);
    const pending = (await migrationStatus(deps.db)).filter((m) => !m.applied);
    if (pending.length > 0) checks.migrations = `pending: ${pending.map((m) => m.name).join(', ')}`;
  } catch (error) {
    checks.database = `unreachable: ${(error as Error).message}`;
    checks.migrations = 'unknown';
  }
  const probe = path.join(deps.config.dataDir, `.readyz-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    fs.writeFileSync(probe, 'ok', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    checks.storage = `not writable: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  } finally {
    fs.rmSync(probe, { force: true });
  }
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}
