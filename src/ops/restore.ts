import fs from 'node:fs';
import path from 'node:path';
import { BackupManifest, listFiles, loadTar, MANIFEST_FILE, sha256File } from './backup-archive';
import { DB_FILE, FILES_DIR, PG_DUMP_FILE, PID_FILE, SECRETS_FILE, SERVED_FILE, fileStamp } from '#lib/paths';
import { runningDaemonPid } from './pidfile';
import { integrityProblems, openStandalone } from './sqlite';
import { renewDataEpoch } from '#repos/data-epoch';

/** A restore refused before anything changed; the message says why. */
export class RestoreRefused extends Error {}

export interface RestoreOptions {
  archive: string;
  dataDir: string;
  /** migration names this build knows: an archive with others comes from a newer version */
  knownMigrations: string[];
  now: Date;
}

export interface RestoreResult {
  manifest: BackupManifest;
  /** migrations this build will apply on the next start (the archive is older) */
  pendingMigrations: string[];
  /** host-local entries kept from the replaced data directory (backups, certificates…) */
  carriedOver: string[];
  /** the data epoch devices are told from now on; undefined for a backup older than migration 0037 (its next start makes one) */
  dataEpoch: string | undefined;
}

// What an archive restores even when it lacks them. Everything else at the top
// of the data directory (backups, caches; config.json and tls/ when the archive
// has none, as in archives made before tls/ was backed up) is carried over from
// the data being replaced.
const RESTORED = new Set([DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, SECRETS_FILE, FILES_DIR, PID_FILE, SERVED_FILE]);

/**
 * Restores a backup archive into `dataDir` (the daemon must be stopped). The
 * archive is unpacked and fully verified in a sibling temporary directory
 * first; only then is the current data moved aside, the restored directory
 * moved in, and finally the aside copy deleted. Any failure before the swap
 * leaves the current data untouched.
 * @throws RestoreRefused for a running daemon, a corrupt archive or a newer schema.
 */
export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const dataDir = path.resolve(options.dataDir);
  const archive = path.resolve(options.archive);
  const pid = runningDaemonPid(dataDir);
  if (pid !== null) throw new RestoreRefused(`the daemon (pid ${pid}) is serving ${dataDir}; stop it before restoring`);
  if (!fs.existsSync(archive)) throw new RestoreRefused(`no such backup archive: ${archive}`);

  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(dataDir)}-restore-`));
  let swapped = false;
  try {
    const manifest = await unpackAndVerify(archive, staging);
    if (manifest.database !== 'sqlite') {
      throw new RestoreRefused(
        'this is a backup of a PostgreSQL site: restore it with the database URL (WIP_DATABASE_URL) and master key (WIP_MASTER_KEY) configured',
      );
    }
    refuseNewerSchema(manifest, options.knownMigrations);
    const problems = integrityProblems(path.join(staging, DB_FILE), dataDir);
    if (problems.length > 0) throw new RestoreRefused(`the database in the backup is damaged: ${problems.slice(0, 3).join('; ')}`);
    // devices learn that what they were told was recorded after the backup may be gone (docs/reliability.md)
    const dataEpoch = await renewEpochOf(path.join(staging, DB_FILE), dataDir, options.now);
    fs.rmSync(path.join(staging, MANIFEST_FILE));
    // Restored data is private whatever the archive's modes say.
    makePrivate(staging);

    const carriedOver: string[] = [];
    if (fs.existsSync(dataDir)) {
      const aside = `${dataDir}.before-restore-${fileStamp(options.now)}`;
      fs.renameSync(dataDir, aside);
      try {
        fs.renameSync(staging, dataDir);
      } catch (error) {
        fs.renameSync(aside, dataDir);
        throw error;
      }
      swapped = true;
      for (const name of fs.readdirSync(aside)) {
        if (RESTORED.has(name) || fs.existsSync(path.join(dataDir, name))) continue;
        fs.renameSync(path.join(aside, name), path.join(dataDir, name));
        carriedOver.push(name);
      }
      // The restore succeeded: only now is the previous data deleted.
      fs.rmSync(aside, { recursive: true, force: true });
    } else {
      fs.renameSync(staging, dataDir);
      swapped = true;
    }
    const applied = new Set(manifest.migrations);
    return {
      manifest,
      pendingMigrations: options.knownMigrations.filter((name) => !applied.has(name)),
      carriedOver: carriedOver.sort(),
      dataEpoch,
    };
  } finally {
    if (!swapped) fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function renewEpochOf(file: string, dataDir: string, now: Date): Promise<string | undefined> {
  const db = openStandalone(file, dataDir);
  try {
    return await renewDataEpoch(db.kysely, now);
  } finally {
    await db.close();
  }
}

/** @throws RestoreRefused when the archive's schema has migrations this build does not know */
export function refuseNewerSchema(manifest: BackupManifest, knownMigrations: string[]): void {
  const known = new Set(knownMigrations);
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new RestoreRefused(
      `the backup comes from a newer version of wip (${manifest.version}; unknown migrations: ${unknown.join(', ')}); restore it with that version or newer`,
    );
  }
}

/**
 * Unpacks the archive into `dir` and checks it against its manifest: every
 * listed entry present with the same size and sha256, nothing unlisted, the
 * database (and, for SQLite, the secrets) included.
 * @throws RestoreRefused naming the first problem found.
 */
export async function unpackAndVerify(archive: string, dir: string): Promise<BackupManifest> {
  try {
    await loadTar().extract({
      file: archive,
      cwd: dir,
      strict: true,
      // Only plain files and folders: no links or devices from an archive.
      filter: (_path, entry) => 'type' in entry && (entry.type === 'File' || entry.type === 'Directory'),
    });
  } catch (error) {
    throw new RestoreRefused(`the archive is corrupt or not a wip backup: ${(error as Error).message}`);
  }
  let manifest: BackupManifest;
  try {
    manifest = BackupManifest.parse(JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')));
  } catch (error) {
    throw new RestoreRefused(
      `the archive has no valid ${MANIFEST_FILE}; it is not a wip backup (${(error as Error).message.split('\n')[0]})`,
    );
  }
  const listed = new Map(manifest.entries.map((e) => [e.path, e]));
  for (const required of manifest.database === 'sqlite' ? [DB_FILE, SECRETS_FILE] : [PG_DUMP_FILE]) {
    if (!listed.has(required)) throw new RestoreRefused(`the archive is incomplete: ${required} is missing from its manifest`);
  }
  const present = new Set(listFiles(dir).filter((p) => p !== MANIFEST_FILE));
  for (const file of present) {
    if (!listed.has(file)) throw new RestoreRefused(`the archive is corrupt: ${file} is not in its manifest`);
  }
  for (const entry of manifest.entries) {
    const full = path.join(dir, ...entry.path.split('/'));
    if (!present.has(entry.path)) throw new RestoreRefused(`the archive is corrupt: ${entry.path} is missing`);
    const [size, sha256] = [fs.statSync(full).size, await sha256File(full)];
    if (size !== entry.size || sha256 !== entry.sha256) {
      throw new RestoreRefused(`the archive is corrupt: checksum mismatch for ${entry.path}`);
    }
  }
  return manifest;
}

function makePrivate(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) makePrivate(full);
    else fs.chmodSync(full, 0o600);
  }
}
