import type { Command } from 'commander';
import { moveToPostgres, MoveRefused } from '../ops/migrate-to-postgres';
import { CliError, configFrom, output } from './context';
import { progressBar } from './progress';

export function registerMigrateToPostgres(program: Command): void {
  program
    .command('migrate-to-postgres')
    .description('copy a stopped SQLite appliance (database, sessions, secrets) into an empty PostgreSQL database, verify it, and print the settings to switch (needs WIP_MASTER_KEY)')
    .requiredOption('--database-url <url>', 'the empty target database: postgres://user:password@host:5432/db')
    .action(async (opts: { databaseUrl: string }, command: Command) => {
      // the master key comes from WIP_MASTER_KEY(_FILE) or the config file; the configuration refuses its absence clearly
      const config = configFrom(command, { databaseUrl: opts.databaseUrl });
      const bar = progressBar(command, 'copy');
      let report;
      try {
        report = await moveToPostgres({
          dataDir: config.dataDir,
          databaseUrl: opts.databaseUrl,
          masterKey: config.masterKey!,
          now: new Date(),
          onProgress: ({ table, done, total }) => bar.update(done, total, table.slice(0, 24).padEnd(24)),
        });
      } catch (error) {
        if (error instanceof MoveRefused) throw new CliError(`migrate-to-postgres refused: ${error.message}`);
        throw error;
      } finally {
        bar.finish();
      }
      const rows = report.tables.reduce((n, t) => n + t.rows, 0);
      output(
        command,
        [
          `Copied ${rows} rows in ${report.tables.length} tables; row counts verified, ${report.auditChains} audit chain(s) verified.`,
          'Files stay in <data-dir>/files: give every node that directory as one shared mount.',
          'Start every node with:',
          '  WIP_DATABASE_URL=<the URL you gave>',
          '  WIP_MASTER_KEY=<the master key you used>',
          'Users stay signed in; tokens issued before the move keep working. Keep the SQLite data directory until you are satisfied.',
        ].join('\n'),
        report,
      );
    });
}
