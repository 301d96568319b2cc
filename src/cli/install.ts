import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeConfigFileIfMissing, type Config } from '../config';
import { closeDeps, createDeps } from '../deps';
import { DEFAULT_UNIT_DIR, UNIT_MARKER, UNIT_NAME, currentCommand, renderUnit } from '../lib/systemd';
import { createLogger } from '../logger';
import { loadOrCreateSecrets } from '../secrets';
import { bootstrap } from '../services/bootstrap';
import { CliError, configFrom, globalOptions, output } from './context';

interface InstallOptions {
  systemd?: boolean;
  user?: string;
  print?: boolean;
  unitDir?: string;
}

/** Where units go: --unit-dir, else WIP_SYSTEMD_DIR, else /etc/systemd/system. */
function unitDir(opts: { unitDir?: string }): string {
  return path.resolve(opts.unitDir ?? process.env.WIP_SYSTEMD_DIR ?? DEFAULT_UNIT_DIR);
}

export function registerInstall(program: Command): void {
  program
    .command('install')
    .description(
      'first-run setup without serving: data directory, config.json, secrets, migrations, first administrator (idempotent); ' +
        'with --systemd also a hardened wip.service unit',
    )
    .option('--systemd', 'also write a systemd unit (wip.service) that runs "wip serve" on this data directory')
    .option('--user <user>', 'with --systemd: the unprivileged account the service runs as (default wip); the data directory is given to it when run as root')
    .option('--print', 'with --systemd: only print the unit on stdout; change nothing')
    .option('--unit-dir <dir>', `with --systemd: where to write the unit (env WIP_SYSTEMD_DIR, default ${DEFAULT_UNIT_DIR})`)
    .action(async (opts: InstallOptions, command: Command) => {
      if ((opts.print || opts.user || opts.unitDir) && !opts.systemd) {
        command.error('error: --user, --print and --unit-dir go with --systemd', { exitCode: 2, code: 'wip.usage' });
      }
      const config = configFrom(command);
      const user = opts.user ?? 'wip';
      if (opts.systemd && opts.print) {
        process.stdout.write(unitFor(config, user));
        return;
      }
      // resolve the account before changing anything, so a typo fails cleanly
      const owner = opts.systemd ? lookUpAccount(user) : undefined;

      const configFile = globalOptions(command).config
        ? { file: globalOptions(command).config!, written: false }
        : writeConfigFileIfMissing({ flags: { dataDir: globalOptions(command).dataDir } });
      const secretsCreated = loadOrCreateSecrets(config.dataDir).created;
      const deps = createDeps(config, { logger: createLogger({ logLevel: 'warn' }, process.stderr as never) });
      let report;
      try {
        report = await bootstrap(deps);
      } finally {
        await closeDeps(deps);
      }

      let unit: { file: string; written: boolean; ownerChanged: boolean } | undefined;
      if (opts.systemd) {
        const ownerChanged = owner ? giveDataDirTo(config.dataDir, owner) : false;
        const file = path.join(unitDir(opts), UNIT_NAME);
        const content = unitFor(config, user);
        const current = readIfExists(file);
        if (current !== undefined && !current.startsWith(UNIT_MARKER)) {
          throw new CliError(`${file} exists and was not written by wip; move it away or use --unit-dir`);
        }
        if (current !== content) {
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, content, { mode: 0o644 });
        }
        unit = { file, written: current !== content, ownerChanged };
      }

      const changed =
        configFile.written || secretsCreated || report.appliedMigrations.length > 0 || report.adminCreated || Boolean(unit?.written || unit?.ownerChanged);
      const lines = [
        changed ? `Installed into ${config.dataDir}` : `Already installed in ${config.dataDir}; nothing to change`,
        ...(configFile.written ? [`  wrote ${configFile.file} (edit it to configure; see README)`] : []),
        ...(secretsCreated ? ['  generated secrets.json'] : []),
        ...report.appliedMigrations.map((name) => `  applied migration ${name}`),
        ...(report.adminCreated ? ['  created system administrator "admin"'] : []),
        ...(report.generatedAdminPassword ? [`  admin password: ${report.generatedAdminPassword} (also in ${report.initialPasswordFile})`] : []),
        ...(unit?.ownerChanged ? [`  gave ${config.dataDir} to ${user}`] : []),
        ...(unit?.written ? [`  wrote ${unit.file}`, '  start it with: systemctl daemon-reload && systemctl enable --now wip'] : []),
        ...(unit && !owner ? [`  note: not root, so ${config.dataDir} keeps its owner; the service runs as ${user} and must be able to write it`] : []),
      ];
      output(command, lines.join('\n'), {
        dataDir: config.dataDir,
        changed,
        configFile: configFile.file,
        configFileWritten: configFile.written,
        secretsCreated,
        appliedMigrations: report.appliedMigrations,
        adminCreated: report.adminCreated,
        ...(report.generatedAdminPassword && {
          adminPassword: report.generatedAdminPassword,
          initialPasswordFile: report.initialPasswordFile,
        }),
        ...(unit && { unitFile: unit.file, unitWritten: unit.written, user }),
      });
    });

  program
    .command('uninstall')
    .description('remove the systemd unit written by "install --systemd"; the data directory is never touched')
    .option('--unit-dir <dir>', `where the unit is (env WIP_SYSTEMD_DIR, default ${DEFAULT_UNIT_DIR})`)
    .action(async (opts: { unitDir?: string }, command: Command) => {
      const file = path.join(unitDir(opts), UNIT_NAME);
      const current = readIfExists(file);
      if (current === undefined) {
        output(command, `No ${UNIT_NAME} in ${path.dirname(file)}; nothing to remove`, { unitFile: file, removed: false });
        return;
      }
      if (!current.startsWith(UNIT_MARKER)) throw new CliError(`${file} was not written by wip; not removing it`);
      fs.rmSync(file);
      output(
        command,
        `Removed ${file} (the data directory is kept)\n  stop the running service first if needed: systemctl disable --now wip; then systemctl daemon-reload`,
        { unitFile: file, removed: true },
      );
    });
}

function unitFor(config: Config, user: string): string {
  const ports = [config.port, config.httpRedirectPort].filter((p) => p > 0);
  return renderUnit({
    command: currentCommand(),
    dataDir: config.dataDir,
    user,
    group: user,
    bindsPrivilegedPort: ports.some((p) => p < 1024),
  });
}

function readIfExists(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The service account's uid/gid, when this process may hand the data directory
 * over (root). Undefined when not root: nothing to hand over.
 * @throws CliError when the account does not exist.
 */
function lookUpAccount(user: string): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  if (!/^[a-z_][a-z0-9_-]*\$?$/i.test(user)) throw new CliError(`"${user}" is not a valid account name`);
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new CliError(
      `there is no account "${user}"; create it first: useradd --system --home-dir /var/lib/wip --shell /usr/sbin/nologin ${user}`,
    );
  }
}

/** chown -R of the data directory to the service account; returns whether anything changed. */
function giveDataDirTo(dataDir: string, owner: { uid: number; gid: number }): boolean {
  let changed = false;
  const walk = (p: string) => {
    const stat = fs.lstatSync(p);
    if (stat.uid !== owner.uid || stat.gid !== owner.gid) {
      fs.lchownSync(p, owner.uid, owner.gid);
      changed = true;
    }
    if (stat.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dataDir);
  return changed;
}
