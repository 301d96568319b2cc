import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { version } from '../../package.json';
import { migrations } from '../../migrations';
import { BACKUP_PREFIXES, createBackup, defaultBackupName } from '../ops/backup';
import { backupDir, DB_FILE } from '../ops/paths';
import { restoreBackup, RestoreRefused } from '../ops/restore';
import { CliError, configFrom, output, withDeps } from './context';
import { progressBar } from './progress';
import { sqliteHandle } from '../db/connection';

/** PostgreSQL mode: the database and the object store are the site's, and so are their backups. */
const POSTGRES_BACKUP_NOTE =
  'wip is configured for PostgreSQL (databaseUrl): back up the database with your PostgreSQL tooling (pg_dump -Fc, or your HA setup\'s base backups and WAL archive) and the file store with its own backups; "wip backup" and "wip restore" cover the embedded SQLite database only';

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description('write a consistent backup (database, files, secrets, TLS material) while the daemon keeps serving')
    .option('--output <file>', 'archive to write (default <backup-dir>/wip-backup-<time>.tar.gz)')
    .action(async (opts: { output?: string }, command: Command) => {
      const { dataDir, databaseUrl } = configFrom(command);
      if (databaseUrl) throw new CliError(POSTGRES_BACKUP_NOTE);
      if (!fs.existsSync(path.join(dataDir, DB_FILE))) throw new CliError(`no database in ${dataDir}; nothing to back up`);
      // Any schema can be backed up, including one an upgrade is about to migrate.
      await withDeps(command, async (deps) => {
        const now = deps.clock.now();
        const file = path.resolve(opts.output ?? path.join(backupDir(deps.config), defaultBackupName(BACKUP_PREFIXES.manual, now)));
        const bar = progressBar(command, 'backup');
        let result;
        try {
          result = await createBackup({
            sqlite: sqliteHandle(deps.db),
            dataDir: deps.config.dataDir,
            output: file,
            version,
            now,
            onProgress: ({ phase, done, total }) => bar.update(done, total, phase.padEnd(8)),
          });
        } finally {
          bar.finish();
        }
        const { manifest } = result;
        output(
          command,
          `Backup written to ${result.file} (${result.bytes} bytes, ${manifest.entries.length} files, schema ${manifest.migrations.at(-1) ?? 'empty'})`,
          { file: result.file, bytes: result.bytes, createdAt: manifest.createdAt, version: manifest.version, migrations: manifest.migrations, entries: manifest.entries.length },
        );
      }, { requireMigrated: false });
    });

  program
    .command('restore')
    .description('replace the data directory with a backup (stop the daemon first); the current data is kept aside until the restore succeeded')
    .argument('<file>', 'backup archive written by "wip backup"')
    .action(async (file: string, _opts: unknown, command: Command) => {
      const config = configFrom(command);
      let result;
      try {
        result = await restoreBackup({ archive: file, dataDir: config.dataDir, knownMigrations: Object.keys(migrations), now: new Date() });
      } catch (error) {
        if (error instanceof RestoreRefused) throw new CliError(`restore refused: ${error.message}`);
        throw error;
      }
      const lines = [
        `Restored ${config.dataDir} from ${path.resolve(file)} (backup of ${result.manifest.createdAt}, wip ${result.manifest.version})`,
        ...(result.pendingMigrations.length ? [`  ${result.pendingMigrations.length} newer migration(s) will be applied on the next start`] : []),
        ...result.carriedOver.map((name) => `  kept host-local ${name}`),
      ];
      output(command, lines.join('\n'), {
        dataDir: config.dataDir,
        archive: path.resolve(file),
        createdAt: result.manifest.createdAt,
        version: result.manifest.version,
        migrations: result.manifest.migrations,
        pendingMigrations: result.pendingMigrations,
        carriedOver: result.carriedOver,
      });
    });
}
