import type { Command } from 'commander';
import { closeDeps, createDeps } from '../deps';
import { createLogger } from '../logger';
import { loadOrCreateSecrets } from '../secrets';
import { bootstrap } from '../services/bootstrap';
import { configFrom, output } from './context';

export function registerInstall(program: Command): void {
  program
    .command('install')
    .description('first-run setup without serving: data directory, secrets, migrations, first administrator (idempotent)')
    .action(async (_opts: unknown, command: Command) => {
      const config = configFrom(command);
      const secretsCreated = loadOrCreateSecrets(config.dataDir).created;
      const deps = createDeps(config, { logger: createLogger({ logLevel: 'warn' }, process.stderr as never) });
      try {
        const report = await bootstrap(deps);
        const changed = secretsCreated || report.appliedMigrations.length > 0 || report.adminCreated;
        const lines = [
          changed ? `Installed into ${config.dataDir}` : `Already installed in ${config.dataDir}; nothing to change`,
          ...(secretsCreated ? ['  generated secrets.json'] : []),
          ...report.appliedMigrations.map((name) => `  applied migration ${name}`),
          ...(report.adminCreated ? ['  created system administrator "admin"'] : []),
          ...(report.generatedAdminPassword
            ? [`  admin password: ${report.generatedAdminPassword} (also in ${report.initialPasswordFile})`]
            : []),
        ];
        output(command, lines.join('\n'), {
          dataDir: config.dataDir,
          changed,
          secretsCreated,
          appliedMigrations: report.appliedMigrations,
          adminCreated: report.adminCreated,
          ...(report.generatedAdminPassword && {
            adminPassword: report.generatedAdminPassword,
            initialPasswordFile: report.initialPasswordFile,
          }),
        });
      } finally {
        await closeDeps(deps);
      }
    });
}
