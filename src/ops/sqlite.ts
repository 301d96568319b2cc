import { WriteGeneration } from '#db/write-generation';
import type { SqliteDatabase } from '#db/connection';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DB } from '#db/schema';
import { sqliteNativeBinding } from '#lib/executable';

// SQLite-specific maintenance (integrity checks, opening a backup copy). The
// appliance's operations are about the embedded SQLite file itself, so this is
// the one place outside src/db that touches it directly.

/** A database file opened by an operation (no request path caches its rows, so its write generation never matters). */
export type SqliteFile = SqliteDatabase;

/**
 * better-sqlite3 options with the addon binding: inside the single executable
 * the addon is loaded from the data directory's cache (src/lib/executable.ts).
 */
function sqliteOptions(dataDir: string, options: BetterSqlite3.Options): BetterSqlite3.Options {
  const nativeBinding = sqliteNativeBinding(dataDir);
  return nativeBinding ? { ...options, nativeBinding: nativeBinding as never } : options;
}

/** Opens an existing database file read-only (never creates or changes it). */
export function openReadonly(file: string, dataDir: string): SqliteFile {
  const sqlite = new BetterSqlite3(file, sqliteOptions(dataDir, { readonly: true, fileMustExist: true }));
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { dialect: 'sqlite', kysely, sqlite, writes: new WriteGeneration(), close: () => kysely.destroy() };
}

/** `PRAGMA integrity_check`: an empty list when the file is sound, else SQLite's findings (or the error). */
export function integrityProblems(file: string, dataDir: string): string[] {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(file, sqliteOptions(dataDir, { readonly: true, fileMustExist: true }));
    const rows = db.pragma('integrity_check') as { integrity_check: string }[];
    const findings = rows.map((r) => r.integrity_check);
    return findings.length === 1 && findings[0] === 'ok' ? [] : findings;
  } catch (error) {
    return [(error as Error).message];
  } finally {
    db?.close();
  }
}

/**
 * Opens a database copy (a backup being written) and switches it to a rollback
 * journal, so it is one self-contained file; the daemon switches it back to WAL
 * when it opens the restored file.
 */
export function openStandalone(file: string, dataDir: string): SqliteFile {
  const sqlite = new BetterSqlite3(file, sqliteOptions(dataDir, { fileMustExist: true }));
  sqlite.pragma('journal_mode = DELETE');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { dialect: 'sqlite', kysely, sqlite, writes: new WriteGeneration(), close: () => kysely.destroy() };
}
