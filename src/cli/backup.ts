import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { version } from '../../package.json';
import { migrations } from '../../migrations';
import { BACKUP_PREFIXES, createBackup, defaultBackupName } from '#ops/backup-archive';
import { backupDir, DB_FILE } from '#lib/paths';
import { restoreBackup, RestoreRefused } from '#ops/restore';
import { createPostgresBackup, PgToolError, restorePostgresBackup } from '#ops/postgres-backup';
import type { Config } from '#config';
import { CliError, configFrom, output, withDeps } from './context';
import { progressBar } from './progress';
import { sqliteHandle } from '#db/connection';
import { runningDaemonPid } from '#ops/pidfile';
import { renewDataEpoch } from '#repos/data-epoch';

/** PostgreSQL mode with an object store: the archive has the database only. */
const OBJECT_STORE_NOTE = (store: string) =>
  `files: ${store} is not in the archive: the object store keeps its own backups (enable versioning or replication there)`;

export function registerBackup(program: Command): void {
  program
    .command('backup')
    .description(
      'write a consistent backup (database, files, secrets, TLS material) while the daemon keeps serving; PostgreSQL mode: pg_dump -Fc and the local files',
    )
    .option('--output <file>', 'archive to write (default <backup-dir>/wip-backup-<time>.tar.gz)')
    .action(async (opts: { output?: string }, command: Command) => {
      const config = configFrom(command);
      const { dataDir, databaseUrl } = config;
      if (databaseUrl) return backupPostgres(config, opts.output, command);
      if (!fs.existsSync(path.join(dataDir, DB_FILE))) throw new CliError(`no database in ${dataDir}; nothing to back up`);
      // Any schema can be backed up, including one an upgrade is about to migrate.
      await withDeps(
        command,
        async (deps) => {
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
            {
              file: result.file,
              bytes: result.bytes,
              createdAt: manifest.createdAt,
              version: manifest.version,
              migrations: manifest.migrations,
              entries: manifest.entries.length,
            },
          );
        },
        { requireMigrated: false },
      );
    });

  program
    .command('renew-data-epoch')
    .description(
      'after restoring the database by other means than "wip restore" (a volume snapshot, point-in-time recovery): give it a new data epoch, so devices send again what the server acknowledged since (stop the daemon, every node, first)',
    )
    .action(async (_opts: unknown, command: Command) => {
      const config = configFrom(command);
      const pid = config.databaseUrl ? null : runningDaemonPid(config.dataDir);
      if (pid !== null)
        throw new CliError(`the daemon (pid ${pid}) is serving ${config.dataDir}; stop it first (it reads the epoch when it starts)`);
      const epoch = await withDeps(command, (deps) => renewDataEpoch(deps.db.kysely, new Date()));
      output(command, `New data epoch ${epoch}: devices send again what the server acknowledged under the previous one`, {
        dataEpoch: epoch,
      });
    });

  program
    .command('restore')
    .description(
      'replace the data directory with a backup (stop the daemon first); the current data is kept aside until the restore succeeded. PostgreSQL mode: restore into an empty database (stop every node first)',
    )
    .argument('<file>', 'backup archive written by "wip backup"')
    .option('--replace', 'PostgreSQL mode: replace the contents of a non-empty target database (one transaction)')
    .action(async (file: string, opts: { replace?: boolean }, command: Command) => {
      const config = configFrom(command);
      if (config.databaseUrl) return restorePostgres(config, file, opts.replace === true, command);
      let result;
      try {
        result = await restoreBackup({ archive: file, dataDir: config.dataDir, knownMigrations: Object.keys(migrations), now: new Date() });
      } catch (error) {
        if (error instanceof RestoreRefused) throw new CliError(`restore refused: ${error.message}`);
        throw error;
      }
      const lines = [
        `Restored ${config.dataDir} from ${path.resolve(file)} (backup of ${result.manifest.createdAt}, wip ${result.manifest.version})`,
        ...(result.pendingMigrations.length
          ? [`  ${result.pendingMigrations.length} newer migration(s) will be applied on the next start`]
          : []),
        ...result.carriedOver.map((name) => `  kept host-local ${name}`),
        EPOCH_NOTE,
      ];
      output(command, lines.join('\n'), {
        dataDir: config.dataDir,
        archive: path.resolve(file),
        createdAt: result.manifest.createdAt,
        version: result.manifest.version,
        migrations: result.manifest.migrations,
        pendingMigrations: result.pendingMigrations,
        carriedOver: result.carriedOver,
        dataEpoch: result.dataEpoch ?? null,
      });
    });
}

/** What a restore means for devices (docs/operating/operations.md). */
const EPOCH_NOTE =
  '  new data epoch: devices send again what the server acknowledged after the backup; what cannot be applied any more becomes a deviation';

/** PostgreSQL mode: pg_dump -Fc and the local files in the same kind of archive. */
async function backupPostgres(config: Config, outputFile: string | undefined, command: Command): Promise<void> {
  const now = new Date();
  const file = path.resolve(outputFile ?? path.join(backupDir(config), defaultBackupName(BACKUP_PREFIXES.manual, now)));
  const bar = progressBar(command, 'backup');
  let result;
  try {
    result = await createPostgresBackup({
      config,
      output: file,
      version,
      now,
      onProgress: ({ phase, done, total }) => bar.update(done, total, phase.padEnd(8)),
    });
  } catch (error) {
    if (error instanceof PgToolError) throw new CliError(`backup failed, nothing written: ${error.message}`);
    throw error;
  } finally {
    bar.finish();
  }
  const { manifest } = result;
  const note = manifest.fileStore === 'local' ? null : OBJECT_STORE_NOTE(manifest.fileStore);
  output(
    command,
    [
      `Backup written to ${result.file} (${result.bytes} bytes: PostgreSQL ${manifest.postgres!.serverVersion} dumped with pg_dump ${manifest.postgres!.dumpVersion}, ${manifest.entries.length} files, schema ${manifest.migrations.at(-1) ?? 'empty'})`,
      ...(note ? [`  ${note}`] : []),
    ].join('\n'),
    {
      file: result.file,
      bytes: result.bytes,
      createdAt: manifest.createdAt,
      version: manifest.version,
      database: manifest.database,
      postgres: manifest.postgres,
      fileStore: manifest.fileStore,
      migrations: manifest.migrations,
      entries: manifest.entries.length,
      note,
    },
  );
}

async function restorePostgres(config: Config, file: string, replace: boolean, command: Command): Promise<void> {
  let result;
  try {
    result = await restorePostgresBackup({ archive: file, config, knownMigrations: Object.keys(migrations), replace, now: new Date() });
  } catch (error) {
    if (error instanceof RestoreRefused || error instanceof PgToolError)
      throw new CliError(`restore refused, nothing changed: ${error.message}`);
    throw error;
  }
  const { manifest } = result;
  const note = manifest.fileStore === 'local' ? null : OBJECT_STORE_NOTE(manifest.fileStore);
  output(
    command,
    [
      `Restored the database from ${path.resolve(file)} (backup of ${manifest.createdAt}, wip ${manifest.version})${result.replacedTables ? `, replacing its ${result.replacedTables} tables` : ''}; migrations and ${result.auditChains} audit chain(s) verified`,
      ...(manifest.fileStore === 'local'
        ? [`  ${result.files} file(s) restored into ${path.join(config.dataDir, 'files')}`]
        : [`  ${note}`]),
      ...(result.pendingMigrations.length
        ? [`  ${result.pendingMigrations.length} newer migration(s) will be applied when the first node starts`]
        : []),
      EPOCH_NOTE,
    ].join('\n'),
    {
      archive: path.resolve(file),
      createdAt: manifest.createdAt,
      version: manifest.version,
      migrations: manifest.migrations,
      pendingMigrations: result.pendingMigrations,
      auditChains: result.auditChains,
      files: result.files,
      replacedTables: result.replacedTables,
      dataEpoch: result.dataEpoch ?? null,
      note,
    },
  );
}
