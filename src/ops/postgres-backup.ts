import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql, type Kysely } from 'kysely';
import type { Config } from '#config';
import { openPostgres } from '#db/connection';
import { migrationStatus, unknownAppliedMigrations } from '#db/migrator';
import type { DB } from '#db/schema';
import { auditedClientIds, verifyAuditChain } from '#repos/audit';
import { renewDataEpoch } from '#repos/data-epoch';
import { listAppliedMigrationNames } from '#repos/maintenance';
import { readSharedSecrets } from '#secrets';
import { buildArchive, type BackupManifest, type BackupProgress, type BackupResult } from './backup-archive';
import { FILES_DIR, PG_DUMP_FILE, fileStamp } from '#lib/paths';
import { refuseNewerSchema, RestoreRefused, unpackAndVerify } from './restore';

const run = promisify(execFile);

/**
 * PostgreSQL mode's `wip backup` / `wip restore`: the database through
 * pg_dump/pg_restore in custom format, in the same archive (manifest with
 * checksums) as the SQLite backup, with the local file store's files. An
 * object store is not copied: it keeps its own backups (versioning,
 * replication), which the manifest and the output say.
 */

/** pg_dump or pg_restore is missing, too old, or failed: the message says what to install or fix. */
export class PgToolError extends Error {}

export interface PgTool {
  file: string;
  /** e.g. 15.18 */
  version: string;
  major: number;
}

/**
 * Finds `name` (pg_dump or pg_restore) of a major version ≥ `minMajor`:
 * pg_dump refuses a server newer than itself, and pg_restore an archive
 * written by a newer pg_dump. Looks in pgToolsDir when set, else PATH first,
 * then the versioned folders Debian/Ubuntu and the PGDG RPMs install into
 * (several versions side by side), and takes the newest that qualifies.
 * @throws PgToolError naming the version to install
 */
export async function findPgTool(name: 'pg_dump' | 'pg_restore', minMajor: number, toolsDir: string): Promise<PgTool> {
  const dirs = toolsDir ? [toolsDir] : [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), ...versionedDirs()];
  const found: PgTool[] = [];
  /** files there that could not be started at all: the first says why */
  const unstartable: string[] = [];
  for (const dir of new Set(dirs)) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
    } catch {
      continue;
    }
    const tool = await toolVersion(file, unstartable);
    if (tool && !found.some((t) => t.version === tool.version)) found.push(tool);
  }
  const where = toolsDir ? `in pgToolsDir (${toolsDir})` : 'on PATH or in /usr/lib/postgresql/*/bin or /usr/pgsql-*/bin';
  const install = `install the PostgreSQL ${minMajor} (or newer) client tools (Debian/Ubuntu: postgresql-client-${minMajor} from the PostgreSQL apt repository; RHEL: postgresql${minMajor}) and put their bin folder on PATH or in WIP_PG_TOOLS_DIR`;
  if (found.length === 0 && unstartable.length > 0) throw new PgToolError(`no usable ${name} ${where}: ${unstartable[0]}; or ${install}`);
  if (found.length === 0) throw new PgToolError(`${name} was not found ${where}: ${install}`);
  const usable = found.filter((t) => t.major >= minMajor).sort((a, b) => b.major - a.major);
  if (usable.length === 0) {
    const newest = found.sort((a, b) => b.major - a.major)[0];
    throw new PgToolError(
      `${name} ${newest.version} (${newest.file}) is too old: version ${minMajor} or newer is needed (${name === 'pg_dump' ? 'pg_dump refuses a server newer than itself' : 'the server or the archive is newer'}); ${install}`,
    );
  }
  return usable[0];
}

function versionedDirs(): string[] {
  const dirs: string[] = [];
  for (const [root, bin] of [
    ['/usr/lib/postgresql', (v: string) => path.join('/usr/lib/postgresql', v, 'bin')],
    ['/usr', (v: string) => (v.startsWith('pgsql-') ? path.join('/usr', v, 'bin') : '')],
  ] as const) {
    try {
      for (const entry of fs.readdirSync(root)) if (bin(entry)) dirs.push(bin(entry));
    } catch {
      // not this distribution's layout
    }
  }
  return dirs;
}

async function toolVersion(file: string, unstartable: string[]): Promise<PgTool | null> {
  try {
    const { stdout } = await run(file, ['--version'], { timeout: 10_000 });
    const match = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(stdout);
    return match ? { file, version: match[2] ? `${match[1]}.${match[2]}` : match[1], major: Number(match[1]) } : null;
  } catch (error) {
    const cannotStart = startFailure(error);
    if (cannotStart) unstartable.push(`${file} ${cannotStart}`);
    return null; // a wrapper without an installed version, a broken link…
  }
}

/**
 * When `error` is execFile's failure to start a program at all (ENOENT,
 * EACCES…: no exit code, no output), what happened and what to check; else null.
 */
function startFailure(error: unknown): string | null {
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (typeof code !== 'string' || !syscall?.startsWith('spawn')) return null;
  const hint =
    code === 'ENOENT'
      ? 'it (or the interpreter it names) is no longer there: reinstall the PostgreSQL client tools'
      : code === 'EACCES'
        ? 'the user wip runs as may not execute it: check its permissions, that this user can enter every folder above it, and that its file system is not mounted noexec'
        : 'check that it is a program for this machine';
  return `could not be started (${code}): ${hint}`;
}

/**
 * How pg_dump/pg_restore reach the database: the URL without its password
 * (which would be visible in the process list), the password in PGPASSWORD.
 */
function connection(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { dbname: url.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}), PGCONNECT_TIMEOUT: '10' } };
}

async function runTool(tool: PgTool, args: string[], databaseUrl: string): Promise<string> {
  const { dbname, env } = connection(databaseUrl);
  try {
    const { stdout } = await run(tool.file, [`--dbname=${dbname}`, '--no-password', ...args], { env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const cannotStart = startFailure(error);
    if (cannotStart) throw new PgToolError(`${path.basename(tool.file)} ${tool.version} (${tool.file}) ${cannotStart}`);
    const stderr = String((error as { stderr?: string }).stderr || (error as Error).message).trim();
    throw new PgToolError(`${path.basename(tool.file)} ${tool.version} failed: ${stderr.split('\n').slice(0, 5).join(' | ')}`);
  }
}

async function serverVersion(db: Kysely<DB>): Promise<{ version: string; major: number }> {
  const { rows } = await sql<{
    num: string;
    version: string;
  }>`select current_setting('server_version_num') as num, current_setting('server_version') as version`.execute(db);
  return { version: rows[0].version.split(' ')[0], major: Math.floor(Number(rows[0].num) / 10000) };
}

/** Which master key sealed the shared secrets: an HMAC of it (not the key), so a restore can refuse a mismatch before it changes anything. */
function masterKeyId(masterKey: string): string {
  return createHmac('sha256', masterKey).update('wip backup master key id').digest('hex').slice(0, 16);
}

function filesDir(config: Pick<Config, 'dataDir'>): string {
  return path.join(config.dataDir, FILES_DIR);
}

type PgConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'masterKey' | 'fileStore' | 'pgToolsDir'>;

/**
 * Writes a backup archive of a PostgreSQL site: pg_dump -Fc of the database
 * (one consistent snapshot while the nodes keep serving) and the local file
 * store. Checks for a suitable pg_dump before writing anything.
 * @throws PgToolError when pg_dump is missing, too old or fails (no archive is left behind)
 */
export async function createPostgresBackup(options: {
  config: PgConfig;
  output: string;
  version: string;
  now: Date;
  /** the daemon's node that writes it (scheduled and console backups) */
  node?: string;
  onProgress?: (progress: BackupProgress) => void;
}): Promise<BackupResult> {
  const { config } = options;
  const databaseUrl = config.databaseUrl!;
  const progress = options.onProgress ?? (() => undefined);
  const db = openPostgres(databaseUrl, { poolSize: 1 });
  try {
    const server = await serverVersion(db.kysely);
    const pgDump = await findPgTool('pg_dump', server.major, config.pgToolsDir);
    return await buildArchive(options.output, progress, async (staging) => {
      // files the database references are never deleted before it stops referencing them: the database first, then the files
      const migrations = await listAppliedMigrationNames(db.kysely);
      progress({ phase: 'database', done: 0, total: 1 });
      await runTool(pgDump, ['--format=custom', `--file=${path.join(staging, PG_DUMP_FILE)}`], databaseUrl);
      progress({ phase: 'database', done: 1, total: 1 });
      if (config.fileStore === 'local' && fs.existsSync(filesDir(config))) {
        fs.symlinkSync(path.resolve(filesDir(config)), path.join(staging, FILES_DIR), 'dir');
      }
      return {
        database: 'postgresql',
        postgres: { serverVersion: server.version, dumpVersion: pgDump.version, masterKeyId: masterKeyId(config.masterKey!) },
        fileStore: config.fileStore,
        version: options.version,
        createdAt: options.now.toISOString(),
        ...(options.node && { node: options.node }),
        migrations,
      };
    });
  } finally {
    await db.close();
  }
}

export interface PostgresRestoreResult {
  manifest: BackupManifest;
  pendingMigrations: string[];
  auditChains: number;
  /** local files restored into <data-dir>/files */
  files: number;
  /** tables dropped before the restore (--replace) */
  replacedTables: number;
  /** the data epoch devices are told from now on; undefined for a backup older than migration 0037 (the first start makes one) */
  dataEpoch: string | undefined;
}

/**
 * Restores a PostgreSQL site's archive into the configured database. The
 * archive is verified (checksums, schema not newer, the same master key,
 * readable by pg_restore) before anything changes; the target must be empty
 * unless `replace`; no other session may be connected (stop every node).
 * pg_restore runs in one transaction (all or nothing). Then the local files
 * are swapped in, and the migration state, the shared secrets and every
 * client's audit chain are verified.
 * @throws RestoreRefused before anything changed; PgToolError for a missing/old/failing tool (nothing changed)
 */
export async function restorePostgresBackup(options: {
  archive: string;
  config: PgConfig;
  knownMigrations: string[];
  replace: boolean;
  now: Date;
}): Promise<PostgresRestoreResult> {
  const { config } = options;
  const databaseUrl = config.databaseUrl!;
  const archive = path.resolve(options.archive);
  if (!fs.existsSync(archive)) throw new RestoreRefused(`no such backup archive: ${archive}`);
  const dataDir = path.resolve(config.dataDir);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // inside the data directory: the files are moved into place by a rename
  const staging = fs.mkdtempSync(path.join(dataDir, '.restore-'));
  const db = openPostgres(databaseUrl, { poolSize: 1 });
  try {
    const manifest = await unpackAndVerify(archive, staging);
    if (manifest.database !== 'postgresql' || !manifest.postgres) {
      throw new RestoreRefused(
        'this is a backup of an embedded SQLite appliance: restore it into a data directory without a database URL, then move it with "wip migrate-to-postgres"',
      );
    }
    refuseNewerSchema(manifest, options.knownMigrations);
    if (manifest.postgres.masterKeyId !== masterKeyId(config.masterKey!)) {
      throw new RestoreRefused(
        "the backup's shared secrets are sealed with another master key: set WIP_MASTER_KEY to the key of the site that was backed up",
      );
    }
    const archivedFiles = fs.existsSync(path.join(staging, FILES_DIR));
    if (archivedFiles && config.fileStore !== 'local') {
      throw new RestoreRefused(
        `the backup holds a local file store but this site uses ${config.fileStore}: restore with fileStore local, then copy <data-dir>/files into the object store`,
      );
    }

    const server = await serverVersion(db.kysely);
    const dumpMajor = Number(manifest.postgres.dumpVersion.split('.')[0]);
    const pgRestore = await findPgTool('pg_restore', Math.max(server.major, dumpMajor), config.pgToolsDir);
    const dump = path.join(staging, PG_DUMP_FILE);
    // reads the whole table of contents: a damaged dump is refused here
    const dumpTables = new Set(
      [...(await runTool(pgRestore, ['--list', dump], databaseUrl)).matchAll(/^\d+; \d+ \d+ TABLE \S+ (\S+) /gm)].map((m) => m[1]),
    );

    const others = await sql<{
      n: number;
    }>`select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`.execute(
      db.kysely,
    );
    if (Number(others.rows[0].n) > 0) {
      throw new RestoreRefused(
        `${others.rows[0].n} other session(s) are connected to the target database: stop every wip node (and other clients) before restoring`,
      );
    }
    const existing = (
      await sql<{
        name: string;
      }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(
        db.kysely,
      )
    ).rows.map((r) => r.name);
    if (existing.length > 0 && !options.replace) {
      throw new RestoreRefused(
        `the target database is not empty (${existing.length} tables, e.g. ${existing[0]}): restore into a new, empty database, or pass --replace to replace its contents with the backup's`,
      );
    }

    // --replace: pg_restore --clean drops and recreates the backup's tables in its
    // transaction; tables the backup does not have (a newer schema's, when an
    // upgrade is rolled back) would block those drops and the next migration, so they go first
    const extra = existing.filter((name) => !dumpTables.has(name));
    if (extra.length > 0) await sql`drop table if exists ${sql.join(extra.map((t) => sql.table(t)))} cascade`.execute(db.kysely);
    await runTool(
      pgRestore,
      [
        '--single-transaction',
        '--exit-on-error',
        '--no-owner',
        '--no-privileges',
        ...(existing.length > 0 ? ['--clean', '--if-exists'] : []),
        dump,
      ],
      databaseUrl,
    );

    const files =
      archivedFiles || (manifest.fileStore === 'local' && config.fileStore === 'local') ? swapFiles(staging, dataDir, options.now) : 0;

    // verify what arrived, as the SQLite restore and the move to PostgreSQL do
    const applied = await listAppliedMigrationNames(db.kysely);
    if (applied.join() !== manifest.migrations.join() || (await unknownAppliedMigrations(db)).length > 0) {
      throw new Error(
        `verification failed: the restored database's migrations (${applied.length}) are not the backup's (${manifest.migrations.length})`,
      );
    }
    await readSharedSecrets(db.kysely, config.masterKey!);
    let auditChains = 0;
    for (const clientId of await auditedClientIds(db.kysely)) {
      const chain = await verifyAuditChain(db.kysely, clientId);
      if (chain.broken)
        throw new Error(
          `verification failed: the audit chain of client ${clientId} is broken at seq ${chain.broken.seq} (${chain.broken.reason})`,
        );
      auditChains++;
    }
    const pendingMigrations = (await migrationStatus(db)).filter((m) => !m.applied).map((m) => m.name);
    // devices learn that what they were told was recorded after the backup may be gone (docs/reliability.md)
    const dataEpoch = await renewDataEpoch(db.kysely, options.now);
    return { manifest, pendingMigrations, auditChains, files, replacedTables: existing.length, dataEpoch };
  } finally {
    await db.close();
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/** Replaces <data-dir>/files with the archive's (or with none), keeping the old one aside until the new one is in place. */
function swapFiles(staging: string, dataDir: string, now: Date): number {
  const target = path.join(dataDir, FILES_DIR);
  const restored = path.join(staging, FILES_DIR);
  const aside = `${target}.before-restore-${fileStamp(now)}`;
  if (fs.existsSync(target)) fs.renameSync(target, aside);
  if (fs.existsSync(restored)) fs.renameSync(restored, target);
  fs.rmSync(aside, { recursive: true, force: true });
  return fs.existsSync(target) ? countFiles(target) : 0;
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) n += entry.isDirectory() ? countFiles(path.join(dir, entry.name)) : 1;
  return n;
}
