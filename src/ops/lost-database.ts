import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DB_FILE, FILES_DIR, SECRETS_FILE } from '#lib/paths';
import { sqliteNativeBinding } from '#lib/executable';
import type { Config } from '#config';
import type { Database } from '#db/connection';
import { migrationStatus, type MigrationRegistry } from '#db/migrator';

/**
 * A lost database must never pass for a new appliance. A data
 * directory that has been initialised — its secrets and signing key exist,
 * files may be stored — holds its records in the database; when that database
 * is missing, empty, truncated or unreadable (a bad copy, a restore of the
 * wrong file, a deleted -wal, a full disk), starting would create a fresh
 * empty one beside the old secrets and files: an appliance that silently
 * forgot everything. So `wip doctor` reports it as a FAIL, and the daemon and
 * every command that opens the database refuse, naming the file and pointing
 * to `wip restore`. Starting anew is an explicit act: `wip serve
 * --new-database`, which keeps the lost file aside.
 *
 * The checks are cheap (the file's size and header, and one query for the
 * applied migrations), so they run at every start; the full `PRAGMA
 * integrity_check` stays with `wip doctor`.
 */

/** What makes a data directory initialised, for the message (empty when it never was). */
export function initialisedBy(dataDir: string, options: { sqlite: boolean }): string[] {
  const evidence: string[] = [];
  if (options.sqlite && fs.existsSync(path.join(dataDir, SECRETS_FILE))) evidence.push(`${SECRETS_FILE} (the secrets and signing key)`);
  const files = countStoredFiles(path.join(dataDir, FILES_DIR));
  if (files > 0) evidence.push(`${files} stored file(s) in ${FILES_DIR}/`);
  return evidence;
}

/** Stored content files (files/<2 hex>/<64 hex>), counted up to a bound: the message needs "some", not an exact census. */
function countStoredFiles(dir: string, bound = 1000): number {
  let count = 0;
  let shards: string[];
  try {
    shards = fs.readdirSync(dir).filter((name) => /^[a-f0-9]{2}$/.test(name));
  } catch {
    return 0;
  }
  for (const shard of shards) {
    try {
      count += fs.readdirSync(path.join(dir, shard)).filter((name) => /^[a-f0-9]{64}$/.test(name)).length;
    } catch {
      // not a folder: not a shard of the store
    }
    if (count >= bound) break;
  }
  return count;
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * What is wrong with the SQLite database of an initialised data directory, or
 * undefined when it is usable or the directory was never initialised (a first
 * start creates it). Never creates or changes anything.
 */
export function lostSqliteDatabase(dataDir: string): string | undefined {
  // the database first: a sound one (every start) needs no look at the file store
  const file = path.join(dataDir, DB_FILE);
  const problem = sqliteFileProblem(file, dataDir);
  if (!problem) return undefined;
  const evidence = initialisedBy(dataDir, { sqlite: true });
  return evidence.length > 0 ? lostMessage(file, problem, evidence) : undefined;
}

/** The sentence both the daemon and `wip doctor` say: the file, what is wrong, why it matters and the two ways on. */
export function lostMessage(database: string, problem: string, evidence: readonly string[]): string {
  return (
    `the database ${database} ${problem}, but this data directory has been initialised (${evidence.join(', ')}): ` +
    `its records are lost or damaged, and starting would create a new, empty appliance. ` +
    `Restore a backup with "wip restore FILE" (the daemon stopped); to start anew on purpose, run "wip serve --new-database"`
  );
}

function sqliteFileProblem(file: string, dataDir: string): string | undefined {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    return 'does not exist';
  }
  if (size === 0) return 'is empty (0 bytes)';
  const header = Buffer.alloc(100);
  const fd = fs.openSync(file, 'r');
  let read: number;
  try {
    read = fs.readSync(fd, header, 0, 100, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (read < 100 || !header.subarray(0, 16).equals(SQLITE_HEADER)) return `is not an SQLite database (${size} bytes)`;
  const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
  if (size % pageSize !== 0) return `is truncated (${size} bytes: not a whole number of ${pageSize}-byte pages)`;
  // the header's page count is valid when its "version-valid-for" matches the change counter
  const pages = header.readUInt32BE(28);
  if (header.readUInt32BE(92) === header.readUInt32BE(24) && size < pages * pageSize) {
    return `is truncated (${size / pageSize} of its ${pages} pages)`;
  }
  let db: BetterSqlite3.Database | undefined;
  try {
    const binding = sqliteNativeBinding(dataDir);
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true, ...(binding && { nativeBinding: binding as never }) });
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get();
    const applied = table ? (db.prepare('SELECT count(*) AS n FROM kysely_migration').get() as { n: number }).n : 0;
    if (applied === 0) return `holds no data (no schema: ${size} bytes, no migration applied)`;
  } catch (error) {
    return `cannot be read (${(error as Error).message})`;
  } finally {
    db?.close();
  }
  return undefined;
}

/**
 * PostgreSQL mode: a database with no wip schema while this node's file store
 * already holds stored files is a lost database (dropped, restored from the
 * wrong dump, a new empty one named by mistake), not a first start. With the
 * file store in an object store, or on a node that stores no files, nothing on
 * the node tells the two apart (the secrets live in the database itself): see
 * docs/scaling-out.md.
 */
export async function lostPostgresDatabase(db: Database, config: Config, registry?: MigrationRegistry): Promise<string | undefined> {
  if (config.fileStore !== 'local') return undefined;
  if ((await migrationStatus(db, registry)).some((m) => m.applied)) return undefined;
  const evidence = initialisedBy(config.dataDir, { sqlite: false });
  if (evidence.length === 0) return undefined;
  const url = new URL(config.databaseUrl!);
  return lostMessage(`${url.host}${url.pathname} (databaseUrl)`, 'holds no wip schema', evidence);
}

/** Thrown where a start or command meets a lost database (the CLI prints its message, exit 1). */
export class LostDatabaseError extends Error {}

/** Refuses, before anything opens (and so creates) the database, an initialised data directory whose SQLite database is lost. */
export function assertSqliteDatabaseNotLost(dataDir: string): void {
  const problem = lostSqliteDatabase(dataDir);
  if (problem) throw new LostDatabaseError(problem);
}

/**
 * `wip serve --new-database`: moves a lost database (and its -wal/-shm) aside as
 * `wip.db.lost-<stamp>…`, so starting anew destroys nothing; returns what was moved.
 */
export function setLostDatabaseAside(dataDir: string, stamp: string): string[] {
  const moved: string[] = [];
  for (const suffix of ['', '-wal', '-shm']) {
    const from = path.join(dataDir, DB_FILE + suffix);
    if (!fs.existsSync(from)) continue;
    const to = path.join(dataDir, `${DB_FILE}.lost-${stamp}${suffix}`);
    fs.renameSync(from, to);
    moved.push(to);
  }
  return moved;
}
