import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Config } from '#config';
import { migrations } from '../../migrations';
import { createLogger } from '#logger';
import { LicenseCache } from '#licensing/cache';
import { loadTrustedKeys } from '#licensing/trusted-keys';
import { listAppliedMigrationNames, listReferencedFileKeys, newestTimestamps } from '#repos/maintenance';
import { currentLicense } from '#services/licensing/index';
import { createHotPath } from '#repos/hot-path';
import { createS3FileStore } from '#storage/s3';
import { openPostgres, type Database } from '#db/connection';
import { readSharedSecrets, type Secrets } from '#secrets';
import { activeSigningKey } from '#lib/signing-keys';
import { sql } from 'kysely';
import { backupDir, DB_FILE, FILES_DIR, SECRETS_FILE } from '#lib/paths';
import { readServedAddress, runningDaemonPid } from './pidfile';
import { integrityProblems, openReadonly } from './sqlite';
import { lostPostgresDatabase, lostSqliteDatabase } from './lost-database';
import { IN_PROGRESS_GRACE_MS } from '#storage';
import { runtimeInfo, runtimeSupport, type RuntimeInfo } from '#lib/node-runtime';

export type CheckStatus = 'OK' | 'WARN' | 'FAIL';

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
  /** what GET /api/client/version reports as `runtime` (the `runtime` check judges it) */
  runtime: RuntimeInfo;
}

/** Future timestamps beyond this are a clock that went backwards (or a bad import). */
const CLOCK_TOLERANCE_MS = 5 * 60_000;
/** Files younger than this may belong to an upload or backup in progress. */
const STRAY_AGE_MS = IN_PROGRESS_GRACE_MS;
const FILE_KEY = /^[a-f0-9]{64}$/;

/**
 * Checks a data directory without changing it: permissions, secrets, database
 * integrity and schema, stray files, license, clock, port, SMTP and the
 * runtime's end of life. Safe to run while the daemon serves.
 * `runtime` is a test seam (another Node.js version than this process's).
 */
export async function runDoctor(
  config: Config,
  options: { now?: Date; timeoutMs?: number; fix?: boolean; runtime?: RuntimeInfo } = {},
): Promise<DoctorReport> {
  const now = options.now ?? new Date();
  const checks: Check[] = [];
  const add = (name: string, status: CheckStatus, message: string) => checks.push({ name, status, message });

  add('data-dir', ...checkDataDir(config.dataDir));
  // PostgreSQL mode: the secrets are in the database (checked with it)
  if (!config.databaseUrl) {
    add('secrets', ...checkSecrets(config.dataDir));
    add('signing-key', ...checkSigningKey(readSecretsFile(config.dataDir)?.signingKeys));
  }

  /** null when the database cannot say which files it references */
  let referenced: Set<string> | null = null;
  let license: [CheckStatus, string] = ['WARN', 'not checked: the database is missing, damaged or not current'];
  const schema = async (db: Database) => {
    const found = await checkSchema(db, config, now, add);
    referenced = found.referenced;
    if (found.license) license = found.license;
  };
  if (config.databaseUrl) await checkPostgres(config, now, add, schema);
  else await checkSqlite(config, add, schema);
  if (config.fileStore !== 'local') {
    add('files', ...(await checkObjectStore(config)));
  } else {
    const files = checkFiles(config, now, referenced);
    if (options.fix && files.orphans.length) add('files', ...removeOrphans(files.orphans, files.result));
    else add('files', ...files.result);
  }
  add('license', ...license);
  add('port', ...(await checkPort(config, options.timeoutMs ?? 3000)));
  add('smtp', ...(await checkSmtp(config, options.timeoutMs ?? 3000)));
  add('public-url', ...checkPublicUrl(config));
  const runtime = options.runtime ?? runtimeInfo();
  const support = runtimeSupport(runtime, now);
  add('runtime', support.status, support.message);

  return { ok: checks.every((c) => c.status !== 'FAIL'), checks, runtime };
}

/** `fileStore: s3://…`: the bucket answers with these credentials (orphans are the object store's lifecycle rules' business). */
async function checkObjectStore(config: Config): Promise<[CheckStatus, string]> {
  try {
    await createS3FileStore(config).stat('0'.repeat(64));
    return ['OK', `object store ${config.fileStore} reachable`];
  } catch (error) {
    return ['FAIL', `object store ${config.fileStore} not usable: ${(error as Error).message}`];
  }
}

type Add = (name: string, status: CheckStatus, message: string) => void;

async function checkSqlite(config: Config, add: Add, schema: (db: Database) => Promise<void>): Promise<void> {
  const dbFile = path.join(config.dataDir, DB_FILE);
  let databaseUsable = false;
  // an initialised directory whose database is empty, truncated or unreadable: SQLite may find nothing wrong with
  // an empty file, but the records are gone (src/ops/lost-database.ts)
  const lost = lostSqliteDatabase(config.dataDir);
  if (!fs.existsSync(dbFile)) {
    add('database', 'FAIL', lost ?? `${dbFile} does not exist; run "wip install"`);
  } else {
    const problems = integrityProblems(dbFile, config.dataDir);
    const findings = [
      ...(problems.length > 0 ? [`integrity check failed: ${problems.slice(0, 3).join('; ')}; restore a backup ("wip restore")`] : []),
      ...(lost ? [lost] : []),
    ];
    if (findings.length === 0) {
      add('database', 'OK', 'integrity check passed');
      databaseUsable = true;
    } else {
      add('database', 'FAIL', findings.join('; '));
    }
  }
  if (!databaseUsable) {
    add('migrations', 'FAIL', 'not checked: the database is lost, missing or damaged');
    add('clock', 'WARN', 'not checked: the database is missing or damaged');
    return;
  }
  const db = openReadonly(dbFile, config.dataDir);
  try {
    await schema(db);
  } finally {
    await db.close();
  }
}

/** PostgreSQL mode: reachable, version 14 or newer, the shared secrets open with this master key, clocks agree. */
async function checkPostgres(config: Config, now: Date, add: Add, schema: (db: Database) => Promise<void>): Promise<void> {
  const db = openPostgres(config.databaseUrl!, { poolSize: 1 });
  try {
    let server: { version: string; num: number; at: Date };
    try {
      const { rows } = await sql<{
        version: string;
        num: number;
        at: Date;
      }>`select current_setting('server_version') as version, current_setting('server_version_num')::int as num, now() as at`.execute(
        db.kysely,
      );
      server = rows[0]!;
    } catch (error) {
      add('database', 'FAIL', `PostgreSQL is not reachable: ${(error as Error).message}`);
      add('migrations', 'FAIL', 'not checked: the database is not reachable');
      add('clock', 'WARN', 'not checked: the database is not reachable');
      return;
    }
    add(
      'database',
      server.num >= 140000 ? 'OK' : 'FAIL',
      `PostgreSQL ${server.version}${server.num >= 140000 ? '' : ': wip needs 14 or newer'}`,
    );
    const skew = Math.abs(server.at.getTime() - Date.now());
    add(
      'clock-skew',
      skew > CLOCK_TOLERANCE_MS ? 'FAIL' : 'OK',
      `this node's clock and the database's differ by ${Math.round(skew / 1000)} s${skew > CLOCK_TOLERANCE_MS ? ': synchronise them (NTP)' : ''}`,
    );
    const lost = await lostPostgresDatabase(db, config);
    if (lost) {
      add('migrations', 'FAIL', lost);
      return;
    }
    await schema(db);
    try {
      const shared = await readSharedSecrets(db.kysely, config.masterKey!);
      add(
        'secrets',
        shared ? 'OK' : 'WARN',
        shared ? 'shared secrets open with this master key' : 'no shared secrets yet (the first node to start creates them)',
      );
      if (shared) add('signing-key', ...checkSigningKey(shared.signingKeys));
    } catch (error) {
      add('secrets', 'FAIL', (error as Error).message);
    }
  } finally {
    await db.close();
  }
}

/** Migration state; with a current schema also the referenced files, the license and data from the future. */
async function checkSchema(
  db: Database,
  config: Config,
  now: Date,
  add: Add,
): Promise<{ referenced: Set<string> | null; license?: [CheckStatus, string] }> {
  let referenced: Set<string> | null = null;
  let license: [CheckStatus, string] | undefined;
  try {
    const applied = await listAppliedMigrationNames(db.kysely);
    const unknown = applied.filter((name) => !(name in migrations));
    const pending = Object.keys(migrations).filter((name) => !applied.includes(name));
    if (unknown.length) add('migrations', 'FAIL', `the database is newer than this version of wip (unknown: ${unknown.join(', ')})`);
    else if (pending.length) add('migrations', 'WARN', `${pending.length} pending (applied on the next start): ${pending.join(', ')}`);
    else add('migrations', 'OK', `schema current (${applied.length} migrations)`);

    if (applied.length && !pending.length && !unknown.length) {
      referenced = await listReferencedFileKeys(db.kysely);
      license = await checkLicense(config, db, now);
      const newest = await newestTimestamps(db.kysely);
      const future = Object.entries(newest).filter(([, at]) => at !== null && Date.parse(at) > now.getTime() + CLOCK_TOLERANCE_MS);
      if (future.length) {
        add(
          'clock',
          'FAIL',
          `the system clock (${now.toISOString()}) is behind data already written: ${future.map(([t, at]) => `${t} ${at}`).join(', ')}`,
        );
      } else {
        add('clock', 'OK', `system time ${now.toISOString()}; no data from the future`);
      }
    } else {
      add('clock', 'WARN', 'not checked: the schema is not current');
    }
  } catch (error) {
    add('migrations', 'FAIL', `cannot read the database: ${(error as Error).message}`);
  }
  return { referenced, license };
}

function checkDataDir(dataDir: string): [CheckStatus, string] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dataDir);
  } catch {
    return ['FAIL', `${dataDir} does not exist; run "wip install"`];
  }
  if (!stat.isDirectory()) return ['FAIL', `${dataDir} is not a directory`];
  try {
    fs.accessSync(dataDir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    return ['FAIL', `${dataDir} is not readable and writable by this user (uid ${process.getuid?.() ?? '?'})`];
  }
  const mode = stat.mode & 0o777;
  if (mode & 0o077) return ['WARN', `${dataDir} is accessible to other users (mode ${mode.toString(8)}); chmod 700 it`];
  return ['OK', `${dataDir} writable, mode ${mode.toString(8)}`];
}

function readSecretsFile(dataDir: string): Partial<Secrets> | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, SECRETS_FILE), 'utf8')) as Partial<Secrets>;
  } catch {
    return undefined;
  }
}

/**
 * The appliance signing key by its fingerprint, for an auditor to
 * note: the same string /.well-known/wip-signing-keys.json publishes as kid.
 */
function checkSigningKey(keys: Secrets['signingKeys']): [CheckStatus, string] {
  const active = activeSigningKey(keys);
  if (!active) return ['WARN', 'no signing key yet: the daemon makes one at its next start (record bundles and audit checkpoints need it)'];
  const retired = (keys ?? []).length - 1;
  return [
    'OK',
    `fingerprint ${active.kid} (Ed25519, since ${new Date(active.createdAt).toISOString()})${retired > 0 ? `; ${retired} retired key(s) still published` : ''}`,
  ];
}

function checkSecrets(dataDir: string): [CheckStatus, string] {
  const file = path.join(dataDir, SECRETS_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return ['FAIL', `${file} is missing or unreadable; run "wip install" (sessions signed with lost secrets cannot be verified)`];
  }
  try {
    const value = JSON.parse(text) as { jwtSecret?: unknown; cookieKeys?: unknown };
    if (
      typeof value.jwtSecret !== 'string' ||
      value.jwtSecret.length < 32 ||
      !Array.isArray(value.cookieKeys) ||
      value.cookieKeys.length === 0
    ) {
      return ['FAIL', `${file} is incomplete (jwtSecret, cookieKeys)`];
    }
  } catch {
    return ['FAIL', `${file} is not valid JSON`];
  }
  const mode = fs.statSync(file).mode & 0o777;
  if (mode !== 0o600) return ['FAIL', `${file} has mode ${mode.toString(8)}; it must be 600 (chmod 600 ${file})`];
  return ['OK', `${file} present, mode 600`];
}

/**
 * `doctor --fix`: deletes the orphans found (each is at least an hour old, so
 * no upload, backup or restore in progress owns it). A missing referenced file
 * stays a FAIL: nothing here can bring it back.
 */
function removeOrphans(orphans: string[], found: [CheckStatus, string]): [CheckStatus, string] {
  const failed: string[] = [];
  for (const orphan of orphans) {
    try {
      fs.rmSync(orphan, { recursive: true, force: true });
    } catch (error) {
      failed.push(`${orphan} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  const removed = `removed ${orphans.length - failed.length} orphaned file(s) or folder(s)`;
  if (failed.length) return ['WARN', `${removed}; could not remove ${failed.join(', ')}`];
  return found[0] === 'FAIL' ? ['FAIL', `${found[1]}; ${removed}`] : ['OK', removed];
}

/**
 * The file store against the storage index (the rows that reference file
 * keys): referenced files missing on disk are a FAIL (data loss); files no row
 * references, temporary files of interrupted uploads and staging folders of
 * interrupted backups and restores are orphans (WARN). Anything younger than an
 * hour is left alone: it may belong to work in progress.
 */
function checkFiles(config: Config, now: Date, referenced: Set<string> | null): { result: [CheckStatus, string]; orphans: string[] } {
  const result = (status: CheckStatus, message: string) => ({ result: [status, message] as [CheckStatus, string], orphans });
  const orphans: string[] = [];
  const onDisk = new Set<string>();
  const old = (full: string) => now.getTime() - fs.statSync(full).mtimeMs > STRAY_AGE_MS;
  const filesDir = path.join(config.dataDir, FILES_DIR);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      const isKey = FILE_KEY.test(entry.name) && path.basename(dir) === entry.name.slice(0, 2);
      if (isKey) onDisk.add(entry.name);
      const orphan = isKey ? referenced !== null && !referenced.has(entry.name) : true;
      if (orphan && old(full)) orphans.push(full);
    }
  };
  if (fs.existsSync(filesDir)) walk(filesDir);
  const parent = path.dirname(config.dataDir);
  const base = path.basename(config.dataDir);
  for (const name of safeList(parent)) {
    if (name.startsWith(`.${base}-restore-`) || name.startsWith(`${base}.before-restore-`)) orphans.push(path.join(parent, name));
  }
  const backups = backupDir(config);
  for (const name of safeList(backups)) {
    if ((name.startsWith('.wip-backup-') || name.endsWith('.partial')) && old(path.join(backups, name)))
      orphans.push(path.join(backups, name));
  }
  const missing = referenced === null ? [] : [...referenced].filter((key) => !onDisk.has(key));
  const list = (items: string[]) => `${items.slice(0, 5).join(', ')}${items.length > 5 ? ', …' : ''}`;
  if (missing.length)
    return result('FAIL', `${missing.length} referenced file(s) missing from ${filesDir}: ${list(missing)}; restore a backup`);
  if (orphans.length) {
    return result(
      'WARN',
      `${orphans.length} orphaned file(s) or folder(s) (unreferenced, temporary or left by interrupted work; "wip doctor --fix" deletes them): ${list(orphans)}`,
    );
  }
  const scope = referenced === null ? ' (references not checked: the database is not readable)' : '';
  return result(
    'OK',
    fs.existsSync(filesDir) ? `${onDisk.size} stored file(s), no orphans${scope}` : `no file store yet; no leftovers${scope}`,
  );
}

async function checkLicense(config: Config, db: Database, now: Date): Promise<[CheckStatus, string]> {
  try {
    const license = await currentLicense({
      config,
      db,
      clock: { now: () => now },
      // read-only: recording the newest time seen fails quietly, as it may
      logger: createLogger({ logLevel: 'silent' }),
      licenseCache: new LicenseCache(loadTrustedKeys()),
      hotPath: createHotPath(db),
    });
    const until = license.terms.expiresAt ? ` until ${license.terms.expiresAt}` : '';
    const who = license.terms.licensee ? ` to ${license.terms.licensee.name}` : '';
    if (license.problem)
      return ['FAIL', `the installed license key is not honoured (${license.problem}); running on the evaluation allowance`];
    switch (license.status) {
      case 'evaluation':
        return [
          'WARN',
          `no license key installed: evaluation allowance (${license.terms.maxClients} clients); install one with "wip license install"`,
        ];
      case 'active':
        return license.daysToExpiry !== null && license.daysToExpiry < 30
          ? ['WARN', `licensed${who}${until}: expires in ${license.daysToExpiry} day(s)`]
          : ['OK', `licensed${who}${until}`];
      case 'grace':
        return ['WARN', `the license expired${until ? ` on ${license.terms.expiresAt}` : ''}; read-only from ${license.readOnlyAt}`];
      case 'expired':
        return ['FAIL', `the license expired; wip is read-only since ${license.readOnlyAt}`];
      case 'clock_rollback':
        return ['FAIL', 'the system clock is behind the newest time this installation has seen; wip is read-only until it is corrected'];
    }
  } catch (error) {
    return ['FAIL', `cannot read the license state: ${(error as Error).message}`];
  }
  return ['WARN', 'unknown license state'];
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

async function checkPort(config: Config, timeoutMs: number): Promise<[CheckStatus, string]> {
  const pid = runningDaemonPid(config.dataDir);
  if (pid !== null) {
    // what it listens on, not what this process's configuration says (flags, port 0)
    const served = readServedAddress(config.dataDir);
    if (!served) return ['OK', `the running daemon (pid ${pid}) serves this data directory`];
    const redirect = served.redirectPort ? `, plain-HTTP redirect on ${served.redirectPort}` : '';
    return ['OK', `${hostPort(served.host, served.port)} (${served.scheme}${redirect}) is served by the running daemon (pid ${pid})`];
  }
  if (config.port === 0) return ['OK', 'port 0: the system picks a free port'];
  const result = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    const server = net.createServer();
    const timer = setTimeout(() => {
      server.close();
      resolve(null);
    }, timeoutMs);
    server.once('error', (error) => {
      clearTimeout(timer);
      resolve(error);
    });
    server.listen(config.port, config.host, () => {
      clearTimeout(timer);
      server.close(() => resolve(null));
    });
  });
  if (!result) return ['OK', `${config.host}:${config.port} is free`];
  if (result.code === 'EADDRINUSE') return ['FAIL', `${config.host}:${config.port} is in use by another program; stop it or set WIP_PORT`];
  if (result.code === 'EACCES')
    return ['FAIL', `no permission to listen on ${config.host}:${config.port} (ports below 1024 need privileges)`];
  return ['FAIL', `cannot listen on ${config.host}:${config.port}: ${result.message}`];
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Links in mails need the address users reach; without publicUrl they are guessed from the served address. */
function checkPublicUrl(config: Config): [CheckStatus, string] {
  if (config.publicUrl) return ['OK', `links in mails start with ${config.publicUrl}`];
  if (!config.smtpUrl) return ['OK', 'publicUrl not set; no SMTP server configured, so no links are mailed'];
  return [
    'WARN',
    'publicUrl (WIP_PUBLIC_URL) is not set while mail is sent over SMTP: links in mails are guessed from the served scheme, host name and port; set it to the URL users reach',
  ];
}

async function checkSmtp(config: Config, timeoutMs: number): Promise<[CheckStatus, string]> {
  if (!config.smtpUrl) return ['OK', 'no SMTP server configured (WIP_SMTP_URL); mail is not sent'];
  let url: URL;
  try {
    url = new URL(config.smtpUrl);
  } catch {
    return ['FAIL', 'smtpUrl is not a URL (smtp://host:port or smtps://host:port)'];
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'smtps:' ? 465 : 25));
  const shown = `${url.protocol}//${url.host}`; // never the credentials
  const error = await new Promise<Error | null>((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      resolve(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (e) => resolve(e));
  });
  return error ? ['FAIL', `SMTP server ${shown} unreachable: ${error.message}`] : ['OK', `SMTP server ${shown} reachable`];
}

export function formatDoctor(report: DoctorReport): string {
  return report.checks.map((c) => `${c.status.padEnd(4)}  ${c.name.padEnd(10)} ${c.message}`).join('\n');
}
