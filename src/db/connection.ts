import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DB } from './schema';
import { withStatementCache } from './statement-cache';

export interface Database {
  /** The query builder: all SQL in repos goes through it, so it stays portable. */
  kysely: Kysely<DB>;
  /** The raw connection, for cached prepared statements on the per-request hot path only. */
  sqlite: BetterSqlite3.Database;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  busyTimeoutMs?: number;
}

/**
 * Opens <data-dir>/wip.db with the durability settings the product promises:
 * WAL (the CLI and the daemon share the file), synchronous=FULL (an acknowledged
 * write survives power loss), foreign keys on, and a busy timeout.
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Database {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'wip.db');
  const sqlite = new BetterSqlite3(file);
  // SQLite gives its -wal and -shm files the main file's mode: keep all of them private.
  fs.chmodSync(file, 0o600);
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  const kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  let closed = false;
  return {
    kysely,
    sqlite,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy(); // also closes the sqlite handle
    },
  };
}
