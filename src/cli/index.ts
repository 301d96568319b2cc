import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { AppError } from '../errors';
import { registerAdmin } from './admin';
import { registerAudit } from './audit';
import { registerBackup } from './backup';
import { registerDoctor } from './doctor';
import { registerLogs } from './logs';
import { ConfigError } from '../config';
import { CliError, UsageError } from './context';
import { registerInstall } from './install';
import { registerLicense } from './license';
import { registerMigrate } from './migrate';
import { registerMigrateToPostgres } from './migrate-to-postgres';
import { registerServe } from './serve';
import { registerMail } from './mail';
import { registerUser } from './user';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('wip')
    .description('wip — on-premise work-instruction platform: daemon and administration CLI')
    .version(version, '-V, --version')
    .option('--data-dir <dir>', 'data directory (env WIP_DATA_DIR, default ./data)')
    .option('--config <file>', 'configuration file (default <data-dir>/config.json)')
    .option('--json', 'print exact JSON instead of text')
    .showHelpAfterError()
    .exitOverride();
  registerServe(program);
  registerInstall(program);
  registerMigrate(program);
  registerMigrateToPostgres(program);
  registerAdmin(program);
  registerBackup(program);
  registerDoctor(program);
  registerLogs(program);
  registerMail(program);
  registerUser(program);
  registerLicense(program);
  registerAudit(program);
  return program;
}

/** Exit codes: 0 success, 1 failure (one line on stderr), 2 usage error. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successful exits
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    const message =
      error instanceof AppError || error instanceof CliError || error instanceof Error ? error.message : String(error);
    const detail = error instanceof AppError && error.details ? ` (${JSON.stringify(error.details)})` : '';
    process.stderr.write(`wip: ${message}${detail}\n`);
    // a bad flag or configuration value is a usage error, as README promises
    process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
  }
}
