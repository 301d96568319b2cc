import { Command, CommanderError } from 'commander';
import { version } from '../../package.json';
import { AppError } from '#errors';
import { buildInfo } from '#lib/build-info';
import { ConfigError } from '#config';
import { CliError, UsageError } from './context';

type Registrar = (program: Command) => void;

/**
 * Each top-level command's module, loaded only when needed: a command's module
 * brings its services (and the daemon's the whole HTTP app), so a run
 * evaluates only what its own command needs. In the order `wip --help` lists them.
 */
const COMMANDS: Record<string, () => Registrar> = {
  serve: () => (require('./serve') as typeof import('./serve')).registerServe,
  install: () => (require('./install') as typeof import('./install')).registerInstall,
  migrate: () => (require('./migrate') as typeof import('./migrate')).registerMigrate,
  'migrate-to-postgres': () => (require('./migrate-to-postgres') as typeof import('./migrate-to-postgres')).registerMigrateToPostgres,
  admin: () => (require('./admin') as typeof import('./admin')).registerAdmin,
  backup: () => (require('./backup') as typeof import('./backup')).registerBackup,
  doctor: () => (require('./doctor') as typeof import('./doctor')).registerDoctor,
  logs: () => (require('./logs') as typeof import('./logs')).registerLogs,
  mail: () => (require('./mail') as typeof import('./mail')).registerMail,
  user: () => (require('./user') as typeof import('./user')).registerUser,
  license: () => (require('./license') as typeof import('./license')).registerLicense,
  audit: () => (require('./audit') as typeof import('./audit')).registerAudit,
  keys: () => (require('./keys') as typeof import('./keys')).registerKeys,
  'verify-bundle': () => (require('./verify-bundle') as typeof import('./verify-bundle')).registerVerifyBundle,
};
/** commands registered by another command's module */
const REGISTERED_BY: Record<string, string> = {
  uninstall: 'install',
  restore: 'backup',
  'renew-data-epoch': 'backup',
  'support-bundle': 'doctor',
};

/**
 * The command argv names, or undefined when it names none we know (help,
 * a mistyped command: every command is registered then, for the listing and
 * commander's suggestions).
 */
export function commandOf(argv: readonly string[], program: Command = programWithoutCommands()): string | undefined {
  // the program's own options that take a value: the command is the first argument that is neither
  const valueOptions = new Set(
    program.options.filter((option) => option.required || option.optional).flatMap((option) => [option.long, option.short]),
  );
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return undefined;
    if (valueOptions.has(arg)) i++;
    else if (!arg.startsWith('-')) {
      const module = REGISTERED_BY[arg] ?? arg;
      return Object.hasOwn(COMMANDS, module) ? module : undefined;
    }
  }
  return undefined;
}

/**
 * `wip --version --json` (either order, before any command): what
 * GET /api/client/version answers — the build and the runtime. Commander prints
 * the bare version as soon as it meets --version, so this is decided first.
 */
function versionAsJson(argv: readonly string[], program: Command): boolean {
  const valueOptions = new Set(
    program.options.filter((option) => option.required || option.optional).flatMap((option) => [option.long, option.short]),
  );
  const flags = new Set<string>();
  for (let i = 2; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--' || !arg.startsWith('-')) break;
    if (valueOptions.has(arg)) i++;
    else flags.add(arg);
  }
  return flags.has('--json') && (flags.has('--version') || flags.has('-V'));
}

/** The program with its own options, before any command is registered. */
function programWithoutCommands(): Command {
  return new Command()
    .name('wip')
    .description('wip — on-premise work-instruction platform: daemon and administration CLI')
    .version(version, '-V, --version')
    .option('--data-dir <dir>', 'data directory (env WIP_DATA_DIR, default ./data)')
    .option('--config <file>', 'configuration file (default <data-dir>/config.json)')
    .option('--json', 'print exact JSON instead of text')
    .showHelpAfterError()
    .exitOverride();
}

/** The program with every command, or with only the one argv runs. */
export function buildProgram(argv?: readonly string[]): Command {
  const program = programWithoutCommands();
  const only = argv && commandOf(argv, program);
  for (const register of only ? [COMMANDS[only]] : Object.values(COMMANDS)) register()(program);
  return program;
}

/** Exit codes: 0 success, 1 failure (one line on stderr), 2 usage error. */
export async function main(argv: string[]): Promise<void> {
  if (versionAsJson(argv, programWithoutCommands())) {
    process.stdout.write(JSON.stringify(buildInfo(), null, 2) + '\n');
    return;
  }
  const program = buildProgram(argv);
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version "errors" are successful exits
      process.exitCode = error.exitCode === 0 ? 0 : 2;
      return;
    }
    const message = error instanceof AppError || error instanceof CliError || error instanceof Error ? error.message : String(error);
    const detail = error instanceof AppError && error.details ? ` (${JSON.stringify(error.details)})` : '';
    process.stderr.write(`wip: ${message}${detail}\n`);
    // a bad flag or configuration value is a usage error, as docs/operating/install.md promises
    process.exitCode = error instanceof UsageError || error instanceof ConfigError ? 2 : 1;
  }
}
