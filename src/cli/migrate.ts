import type { Command } from 'commander';
import { migrateToLatest, migrationStatus } from '#db/migrator';
import { backupBeforeUpgrade } from '#ops/bootstrap';
import { output, withDeps } from './context';

export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations, or list them with --status')
    .option('--status', 'list applied and pending migrations without changing anything')
    .action(async (opts: { status?: boolean }, command: Command) => {
      await withDeps(
        command,
        async (deps) => {
          if (opts.status) {
            const list = await migrationStatus(deps.db);
            const human = list.map((m) => `${m.applied ? 'applied' : 'pending'}  ${m.name}${m.appliedAt ? `  ${m.appliedAt}` : ''}`);
            output(command, human.join('\n'), list);
            return;
          }
          const backup = await backupBeforeUpgrade(deps);
          const applied = await migrateToLatest(deps.db);
          const lines = [...(backup ? [`backup taken before migrating: ${backup}`] : []), ...applied.map((n) => `applied ${n}`)];
          output(command, lines.length ? lines.join('\n') : 'No pending migrations', { applied, ...(backup && { backup }) });
        },
        { requireMigrated: false },
      );
    });
}
