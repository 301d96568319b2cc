import type { Command } from 'commander';
import type { Config } from '#config';
import { moveToPostgres, MoveRefused } from '#ops/migrate-to-postgres';
import { createS3FileStore } from '#storage/s3';
import { CliError, configFrom, output } from './context';
import { progressBar } from './progress';

export function registerMigrateToPostgres(program: Command): void {
  program
    .command('migrate-to-postgres')
    .description(
      'copy a stopped SQLite appliance (database, sessions, secrets, and with --file-store its files) into an empty PostgreSQL database and object store, verify it, and print the settings to switch (needs WIP_MASTER_KEY)',
    )
    .requiredOption('--database-url <url>', 'the empty target database: postgres://user:password@host:5432/db')
    .option(
      '--file-store <store>',
      'where the files go: s3://bucket/prefix (endpoint, region, path style and credentials from WIP_FILE_STORE_* or the config), or local to keep <data-dir>/files; default: the configured fileStore',
    )
    .action(async (opts: { databaseUrl: string; fileStore?: string }, command: Command) => {
      // the master key comes from WIP_MASTER_KEY(_FILE) or the config file; the configuration refuses its absence clearly
      const config = configFrom(command, {
        databaseUrl: opts.databaseUrl,
        ...(opts.fileStore !== undefined && { fileStore: opts.fileStore }),
      });
      const objectStore = config.fileStore !== 'local';
      const bar = progressBar(command, 'copy');
      let report;
      try {
        report = await moveToPostgres({
          dataDir: config.dataDir,
          databaseUrl: opts.databaseUrl,
          masterKey: config.masterKey!,
          now: new Date(),
          onProgress: ({ table, done, total }) => bar.update(done, total, table.slice(0, 24).padEnd(24)),
          ...(objectStore && {
            fileStore: createS3FileStore(config),
            onFileProgress: ({ phase, done, total }) => bar.update(done, total, `files: ${phase}`.padEnd(24)),
          }),
        });
      } catch (error) {
        if (error instanceof MoveRefused) throw new CliError(`migrate-to-postgres refused: ${error.message}`);
        throw error;
      } finally {
        bar.finish();
      }
      const rows = report.tables.reduce((n, t) => n + t.rows, 0);
      const files = report.files;
      output(
        command,
        [
          `Copied ${rows} rows in ${report.tables.length} tables; row counts verified, ${report.auditChains} audit chain(s) verified.`,
          files
            ? `Files: ${files.files} (${files.bytes} bytes) in ${config.fileStore}: ${files.copied} uploaded, ${files.present} already there, ${files.repaired} uploaded again; every SHA-256 verified by reading it back.`
            : 'Files stay in <data-dir>/files: give every node that directory as one shared mount (or move them into an object store with --file-store s3://bucket/prefix).',
          'Start every node with:',
          '  WIP_DATABASE_URL=<the URL you gave>',
          '  WIP_MASTER_KEY=<the master key you used>',
          ...(objectStore ? fileStoreSettings(config) : []),
          'Users stay signed in; tokens issued before the move keep working. Keep the SQLite data directory until you are satisfied.',
        ].join('\n'),
        report,
      );
    });
}

/** The object store settings the nodes need, as given to this command (secrets as placeholders). */
function fileStoreSettings(config: Config): string[] {
  return [
    `  WIP_FILE_STORE=${config.fileStore}`,
    ...(config.fileStoreEndpoint ? [`  WIP_FILE_STORE_ENDPOINT=${config.fileStoreEndpoint}`] : []),
    `  WIP_FILE_STORE_REGION=${config.fileStoreRegion}`,
    `  WIP_FILE_STORE_PATH_STYLE=${config.fileStorePathStyle}`,
    ...(config.fileStoreAccessKeyId ? [`  WIP_FILE_STORE_ACCESS_KEY_ID=${config.fileStoreAccessKeyId}`] : []),
    ...(config.fileStoreSecretAccessKey
      ? ['  WIP_FILE_STORE_SECRET_ACCESS_KEY=<the secret key you used> (or WIP_FILE_STORE_SECRET_ACCESS_KEY_FILE)']
      : []),
  ];
}
