import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import type * as Tar from 'tar';
import { z } from 'zod';
import { listAppliedMigrationNames } from '#repos/maintenance';
import { CONFIG_FILE, DB_FILE, FILES_DIR, SECRETS_FILE, TLS_DIR, fileStamp } from '#lib/paths';
import { openStandalone } from './sqlite';

/**
 * A backup archive is a gzip'd tar with manifest.json first, then wip.db (a
 * consistent snapshot taken with SQLite's online backup API while the daemon
 * keeps serving), secrets.json, config.json when present, files/ (the file
 * store) and tls/ (the self-signed CA: losing it means every client has to
 * trust a new one) when present. The manifest lists every other entry with its size and
 * sha256, so a restore can prove the archive is complete and unaltered.
 * PostgreSQL mode (postgres-backup.ts) writes the same kind of archive with
 * wip.pgdump instead of wip.db and secrets.json.
 */
export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 1;

export const BackupManifest = z.object({
  format: z.literal(MANIFEST_FORMAT),
  product: z.literal('wip'),
  /**
   * sqlite: wip.db and secrets.json; postgresql: wip.pgdump (pg_dump's custom
   * format; the shared secrets are in it, sealed with the master key). Archives
   * written before PostgreSQL mode have no field: SQLite.
   */
  database: z.enum(['sqlite', 'postgresql']).default('sqlite'),
  /** PostgreSQL archives: the server and pg_dump versions, and which master key sealed the secrets (an HMAC of it, not the key) */
  postgres: z.object({ serverVersion: z.string(), dumpVersion: z.string(), masterKeyId: z.string() }).optional(),
  /** where the files were: local (files/ is in the archive) or an object store (which keeps its own backups) */
  fileStore: z.string().default('local'),
  version: z.string(),
  createdAt: z.string(),
  /** PostgreSQL mode, written by a daemon: which node (host name/process id) wrote it into its backupDir */
  node: z.string().optional(),
  /** migrations applied to the database in the archive, in order */
  migrations: z.array(z.string()),
  entries: z.array(z.object({ path: z.string().min(1), size: z.number().int().min(0), sha256: z.string().regex(/^[0-9a-f]{64}$/) })),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export type BackupPhase = 'database' | 'files' | 'archive';
export interface BackupProgress {
  phase: BackupPhase;
  done: number;
  total: number;
}

export interface CreateBackupOptions {
  /** the live connection: the backup API reads it while others keep writing */
  sqlite: BetterSqlite3.Database;
  dataDir: string;
  /** archive to write; written to a temporary name and renamed, so it is never half there */
  output: string;
  version: string;
  now: Date;
  onProgress?: (progress: BackupProgress) => void;
}

export interface BackupResult {
  file: string;
  bytes: number;
  manifest: BackupManifest;
}

export function defaultBackupName(prefix: string, now: Date): string {
  return `${prefix}-${fileStamp(now)}.tar.gz`;
}

/** `wip backup` and the API's backups, the daemon's scheduled ones, the automatic one before an upgrade */
export const BACKUP_PREFIXES = { manual: 'wip-backup', scheduled: 'wip-scheduled', 'pre-upgrade': 'wip-pre-upgrade' } as const;
export type BackupKind = keyof typeof BACKUP_PREFIXES;

/** A name written by defaultBackupName: the only names the API lists or serves (no path can hide in one). */
export const BACKUP_NAME = /^(wip-backup|wip-scheduled|wip-pre-upgrade)-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z\.tar\.gz$/;

/** When the stamp in a backup's name says it was taken (ms), or null for another name. */
export function backupTakenAt(file: string): number | null {
  const match = BACKUP_NAME.exec(path.basename(file));
  if (!match) return null;
  return Date.parse(`${match[2]}T${match[3]}:${match[4]}:${match[5]}.${match[6]}Z`);
}

export interface BackupFile {
  name: string;
  kind: BackupKind;
  bytes: number;
  createdAt: string;
}

/** The finished backup archives in `dir` (the temporary names of one being written are not listed), newest first. */
export function listBackupFiles(dir: string): BackupFile[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const files: BackupFile[] = [];
  for (const name of names) {
    const taken = backupTakenAt(name);
    if (taken === null) continue;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(path.join(dir, name));
    } catch {
      continue; // deleted meanwhile (retention)
    }
    if (!stat.isFile()) continue;
    const prefix = BACKUP_NAME.exec(name)![1];
    const kind = (Object.keys(BACKUP_PREFIXES) as BackupKind[]).find((k) => BACKUP_PREFIXES[k] === prefix)!;
    files.push({ name, kind, bytes: stat.size, createdAt: new Date(taken).toISOString() });
  }
  return files.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.name.localeCompare(a.name));
}

/**
 * Writes a backup archive of the data directory (mode 0600: it holds the secrets).
 * @throws Error when the database cannot be copied or the archive cannot be written.
 */
export async function createBackup(options: CreateBackupOptions): Promise<BackupResult> {
  const progress = options.onProgress ?? (() => undefined);
  return buildArchive(options.output, progress, async (staging) => {
    await options.sqlite.backup(path.join(staging, DB_FILE), {
      progress({ totalPages, remainingPages }) {
        progress({ phase: 'database', done: totalPages - remainingPages, total: totalPages });
        // Large steps: fewer restarts when another process writes meanwhile.
        return 2000;
      },
    });

    // One self-contained file (no -wal/-shm beside it), and the manifest names
    // the migrations of the copy itself, not of the live file.
    const copy = openStandalone(path.join(staging, DB_FILE), options.dataDir);
    let migrations: string[];
    try {
      migrations = await listAppliedMigrationNames(copy.kysely);
    } finally {
      await copy.close();
    }

    for (const name of [SECRETS_FILE, CONFIG_FILE]) {
      const source = path.join(options.dataDir, name);
      if (fs.existsSync(source)) fs.copyFileSync(source, path.join(staging, name));
    }
    // The file store and the TLS material are archived in place through a link (never copied twice).
    for (const name of [FILES_DIR, TLS_DIR]) {
      const dir = path.join(options.dataDir, name);
      if (fs.existsSync(dir)) fs.symlinkSync(path.resolve(dir), path.join(staging, name), 'dir');
    }

    return { database: 'sqlite', fileStore: 'local', version: options.version, createdAt: options.now.toISOString(), migrations };
  });
}

/** What the one who stages a backup says about it; the entries are listed by buildArchive. */
export type ManifestFacts = Omit<BackupManifest, 'format' | 'product' | 'entries'>;

/**
 * Runs `stage` on a private staging folder next to `output` (the same file
 * system for the final rename), then hashes everything staged (links
 * followed), writes the manifest first and archives it all as `output` (0600)
 * through a temporary name, so the archive is never half there. Shared by the
 * SQLite and the PostgreSQL backup.
 */
export async function buildArchive(
  target: string,
  progress: (progress: BackupProgress) => void,
  stage: (staging: string) => Promise<ManifestFacts>,
): Promise<BackupResult> {
  const output = path.resolve(target);
  const outDir = path.dirname(output);
  fs.mkdirSync(outDir, { recursive: true, mode: 0o700 });
  const staging = fs.mkdtempSync(path.join(outDir, '.wip-backup-'));
  const partial = path.join(outDir, `.${path.basename(output)}.partial`);
  try {
    return await writeArchive(staging, partial, output, progress, await stage(staging));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
    fs.rmSync(partial, { force: true });
  }
}

async function writeArchive(
  staging: string,
  partial: string,
  output: string,
  progress: (progress: BackupProgress) => void,
  facts: ManifestFacts,
): Promise<BackupResult> {
  const paths = listFiles(staging).filter((p) => p !== MANIFEST_FILE);
  const entries: BackupManifest['entries'] = [];
  let hashed = 0;
  for (const relative of paths) {
    const full = path.join(staging, relative);
    entries.push({ path: relative, size: fs.statSync(full).size, sha256: await sha256File(full) });
    progress({ phase: 'files', done: ++hashed, total: paths.length });
  }
  const manifest: BackupManifest = { format: MANIFEST_FORMAT, product: 'wip', ...facts, entries };
  fs.writeFileSync(path.join(staging, MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 });

  progress({ phase: 'archive', done: 0, total: 1 });
  await loadTar().create(
    {
      gzip: true,
      file: partial,
      cwd: staging,
      follow: true,
      portable: true,
      mode: 0o600,
      // Entry modes come from the disk (the database snapshot is made under
      // the umask, often 0644); whoever unpacks the archive must not get
      // readable keys, secrets or data: 0600 for files, 0700 for folders.
      onWriteEntry(entry) {
        if (entry.stat) entry.stat.mode = (entry.stat.mode & ~0o7777) | (entry.type === 'Directory' ? 0o700 : 0o600);
      },
    },
    [MANIFEST_FILE, ...paths],
  );
  fs.chmodSync(partial, 0o600);
  fs.renameSync(partial, output);
  progress({ phase: 'archive', done: 1, total: 1 });
  return { file: output, bytes: fs.statSync(output).size, manifest };
}

/** Regular files under `root` (following a top-level link to the file store), as POSIX relative paths, sorted. */
export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      const stat = fs.statSync(full); // follows links
      if (stat.isDirectory()) walk(full, relative);
      else if (stat.isFile()) out.push(relative);
    }
  };
  walk(root, '');
  return out.sort();
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    fs.createReadStream(file)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * Keeps the newest `keep` archives whose name starts with `prefix` in `dir`
 * and deletes the rest; returns the deleted file names.
 */
export function applyRetention(dir: string, prefix: string, keep: number): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((n) => n.startsWith(prefix + '-') && n.endsWith('.tar.gz'));
  } catch {
    return [];
  }
  // Names carry a sortable UTC stamp: newest last.
  const doomed = names.sort().slice(0, Math.max(0, names.length - keep));
  for (const name of doomed) fs.rmSync(path.join(dir, name), { force: true });
  return doomed;
}

/** The newest archive with `prefix` in `dir`, by the stamp in its name, or null. */
export function newestBackup(dir: string, prefix: string): string | null {
  try {
    const names = fs
      .readdirSync(dir)
      .filter((n) => n.startsWith(prefix + '-') && n.endsWith('.tar.gz'))
      .sort();
    return names.length ? path.join(dir, names[names.length - 1]) : null;
  } catch {
    return null;
  }
}

/** tar is loaded with the first backup or restore, not at the daemon's start. */
export function loadTar(): typeof Tar {
  return require('tar') as typeof Tar;
}
