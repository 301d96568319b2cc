import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DB } from './schema';
import { withStatementCache } from './statement-cache';
import { CALLER_STATE_TABLES, WriteGeneration, writeGenerationPlugin } from './write-generation';
import { sqliteNativeBinding } from '../lib/runtime';

export interface Database {
  /** The query builder: all SQL in repos goes through it, so it stays portable. */
  kysely: Kysely<DB>;
  /** The raw connection, for cached prepared statements on the per-request hot path only. */
  sqlite: BetterSqlite3.Database;
  /** bumped by this process's writes to what the request path caches (see write-generation.ts) */
  writes: WriteGeneration;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  busyTimeoutMs?: number;
  /** called after every query through the query builder (metrics); kind is select, insert, update, delete or raw */
  onQuery?: (kind: string, seconds: number) => void;
}

/**
 * Opens <data-dir>/wip.db with the durability settings the product promises:
 * WAL (the CLI and the daemon share the file), synchronous=FULL (an acknowledged
 * write survives power loss), foreign keys on, and a busy timeout.
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): Database {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'wip.db');
  // inside the single executable the addon comes from the data directory's cache (src/lib/runtime.ts)
  const nativeBinding = sqliteNativeBinding(dataDir);
  const sqlite = new BetterSqlite3(file, nativeBinding ? { nativeBinding: nativeBinding as never } : {});
  // SQLite gives its -wal and -shm files the main file's mode: keep all of them private.
  fs.chmodSync(file, 0o600);
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  const onQuery = options.onQuery;
  const writes = new WriteGeneration();
  const kysely = new Kysely<DB>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
    plugins: [writeGenerationPlugin(writes, CALLER_STATE_TABLES)],
    ...(onQuery && {
      log(event) {
        // SelectQueryNode → select, RawNode → raw
        const kind = event.query.query.kind.replace(/(Query)?Node$/, '').toLowerCase();
        onQuery(kind, event.queryDurationMillis / 1000);
      },
    }),
  });
  let closed = false;
  return {
    kysely,
    sqlite,
    writes,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy(); // also closes the sqlite handle
    },
  };
}
