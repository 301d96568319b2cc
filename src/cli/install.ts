import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeConfigFileIfMissing, type Config } from '#config';
import { closeDeps, createDeps } from '#composition';
import { DEFAULT_UNIT_DIR, UNIT_MARKER, UNIT_NAME, currentCommand, renderUnit } from '#lib/systemd';
import { createLogger } from '#logger';
import { loadOrCreateSecrets } from '#secrets';
import { bootstrap } from '#ops/bootstrap';
import { assertSqliteDatabaseNotLost } from '#ops/lost-database';
import { CliError, configFrom, globalOptions, output } from './context';

interface InstallOptions {
  systemd?: boolean;
  user?: string;
  group?: string;
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
    .option(
      '--user <user>',
      'with --systemd: the unprivileged account the service runs as (default wip); the data directory is given to it when run as root',
    )
    .option('--group <group>', "with --systemd: the service's group (default the user's primary group)")
    .option('--print', 'with --systemd: only print the unit on stdout; change nothing')
    .option('--unit-dir <dir>', `with --systemd: where to write the unit (env WIP_SYSTEMD_DIR, default ${DEFAULT_UNIT_DIR})`)
    .action(async (opts: InstallOptions, command: Command) => {
      if ((opts.print || opts.user || opts.group || opts.unitDir) && !opts.systemd) {
        command.error('error: --user, --group, --print and --unit-dir go with --systemd', { exitCode: 2, code: 'wip.usage' });
      }
      const config = configFrom(command);
      if (opts.systemd && opts.print) {
        // a preview: the account may not exist yet (it is usually created after reading the unit); say how to create it
        const { account, missing } = previewAccount(opts.user ?? 'wip', opts.group);
        process.stdout.write(unitFor(config, account));
        if (missing) process.stderr.write(`warning: ${missing}; "install --systemd" refuses until it exists\n`);
        return;
      }
      // resolve the account before changing anything, so a typo fails cleanly
      const account = opts.systemd ? lookUpAccount(opts.user ?? 'wip', opts.group) : undefined;
      // only root can hand the data directory over
      const owner = account && process.getuid?.() === 0 ? account : undefined;

      const configFile = globalOptions(command).config
        ? { file: globalOptions(command).config!, written: false }
        : writeConfigFileIfMissing({ flags: { dataDir: globalOptions(command).dataDir } });
      // an initialised directory whose database was lost is refused before anything is written (src/ops/lost-database.ts)
      if (!config.databaseUrl) assertSqliteDatabaseNotLost(config.dataDir);
      const secretsCreated = loadOrCreateSecrets(config.dataDir).created;
      // secrets made just now: the directory was new, and its database is about to be created, not lost
      const deps = createDeps(config, { logger: createLogger({ logLevel: 'warn' }, process.stderr), newDatabase: secretsCreated });
      let report;
      try {
        report = await bootstrap(deps);
      } finally {
        await closeDeps(deps);
      }

      let unit: { file: string; written: boolean; ownerChanged: boolean; account: ServiceAccount } | undefined;
      if (account) {
        const ownerChanged = owner ? giveDataDirTo(config.dataDir, owner) : false;
        const file = path.join(unitDir(opts), UNIT_NAME);
        const content = unitFor(config, account);
        const current = readIfExists(file);
        if (current !== undefined && !current.startsWith(UNIT_MARKER)) {
          throw new CliError(`${file} exists and was not written by wip; move it away or use --unit-dir`);
        }
        if (current !== content) {
          fs.mkdirSync(path.dirname(file), { recursive: true });
          fs.writeFileSync(file, content, { mode: 0o644 });
        }
        unit = { file, written: current !== content, ownerChanged, account };
      }

      const changed =
        configFile.written ||
        secretsCreated ||
        report.appliedMigrations.length > 0 ||
        report.adminCreated ||
        Boolean(unit?.written || unit?.ownerChanged);
      const lines = [
        changed ? `Installed into ${config.dataDir}` : `Already installed in ${config.dataDir}; nothing to change`,
        ...(configFile.written ? [`  wrote ${configFile.file} (edit it to configure; see README)`] : []),
        ...(secretsCreated ? ['  generated secrets.json'] : []),
        ...report.appliedMigrations.map((name) => `  applied migration ${name}`),
        ...(report.adminCreated ? ['  created system administrator "admin"'] : []),
        ...(report.generatedAdminPassword
          ? [`  admin password: ${report.generatedAdminPassword} (also in ${report.initialPasswordFile})`]
          : []),
        ...(unit?.ownerChanged ? [`  gave ${config.dataDir} to ${unit.account.user}:${unit.account.group}`] : []),
        ...(unit?.written ? [`  wrote ${unit.file}`, '  start it with: systemctl daemon-reload && systemctl enable --now wip'] : []),
        ...(unit && !owner
          ? [
              `  note: not root, so ${config.dataDir} keeps its owner; the service runs as ${unit.account.user} and must be able to write it`,
            ]
          : []),
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
        ...(unit && { unitFile: unit.file, unitWritten: unit.written, user: unit.account.user, group: unit.account.group }),
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

function unitFor(config: Config, account: ServiceAccount): string {
  const ports = [config.port, config.httpRedirectPort].filter((p) => p > 0);
  return renderUnit({
    command: currentCommand(),
    dataDir: config.dataDir,
    user: account.user,
    group: account.group,
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

interface ServiceAccount {
  user: string;
  group: string;
  uid: number;
  gid: number;
}

const ACCOUNT_NAME = /^[a-z_][a-z0-9_-]*\$?$/i;

/** A system query (id, getent): its output, or undefined when it finds nothing. */
function query(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * The service account and its group as the system knows them (NSS: /etc/passwd,
 * /etc/group, LDAP…). The group is --group, or else the user's primary group by
 * its real name: it is not always the user's name (Debian's nobody is in nogroup),
 * and a unit naming a missing group fails only when systemd starts it.
 * @throws CliError when the user or the group does not exist.
 */
function lookUpAccount(user: string, group: string | undefined): ServiceAccount {
  const found = findAccount(user, group);
  if ('missing' in found) throw new CliError(found.missing);
  return found;
}

/**
 * The account a printed unit names: as the system knows it, or — when it does
 * not exist yet (it is usually created after reading the unit) — the names
 * given, the group defaulting to the user's name as `useradd` creates it, with
 * what is missing and how to create it.
 */
function previewAccount(user: string, group: string | undefined): { account: ServiceAccount; missing?: string } {
  const found = findAccount(user, group);
  if (!('missing' in found)) return { account: found };
  return { account: { user, group: group ?? user, uid: -1, gid: -1 }, missing: found.missing };
}

/** @throws CliError for a name that is not a valid account or group name */
function findAccount(user: string, group: string | undefined): ServiceAccount | { missing: string } {
  for (const name of [user, group]) {
    if (name !== undefined && !ACCOUNT_NAME.test(name)) throw new CliError(`"${name}" is not a valid account or group name`);
  }
  const [uid, primaryGid, primaryGroup] = [['-u'], ['-g'], ['-gn']].map((flag) => query('id', [...flag, user]));
  if (uid === undefined || primaryGid === undefined || primaryGroup === undefined) {
    return {
      missing: `there is no account "${user}"; create it first: useradd --system --home-dir /var/lib/wip --shell /usr/sbin/nologin ${user}`,
    };
  }
  if (group === undefined) return { user, group: primaryGroup, uid: Number(uid), gid: Number(primaryGid) };
  // group entry: name:password:gid:members
  const entry = query('getent', ['group', group])?.split(':');
  if (!entry || entry.length < 3) {
    return {
      missing: `there is no group "${group}"; create it first (groupadd --system ${group}) or leave out --group to use ${user}'s primary group (${primaryGroup})`,
    };
  }
  return { user, group: entry[0], uid: Number(uid), gid: Number(entry[2]) };
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
