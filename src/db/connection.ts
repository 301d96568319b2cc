import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, type KyselyConfig } from 'kysely';
import type pg from 'pg';
import type { DB } from './schema';
import { withStatementCache } from './statement-cache';
import { allowDirectReads, type DirectRead } from './compiled-query';
import { CALLER_STATE_TABLES, WriteGeneration, writeGenerationPlugin } from './write-generation';
import { sqliteNativeBinding } from '#lib/executable';
import { openTransactionOf } from './request-transaction';

/** The embedded database (one node) or PostgreSQL (several nodes): see `dialect`. */
export type Database = SqliteDatabase | PostgresDatabase;

interface DatabaseBase {
  /** The query builder: all SQL in repos goes through it, so it stays portable. */
  kysely: Kysely<DB>;
  close(): Promise<void>;
}

export interface SqliteDatabase extends DatabaseBase {
  dialect: 'sqlite';
  /** The raw connection, for cached prepared statements on the per-request hot path only. */
  sqlite: BetterSqlite3.Database;
  /** bumped by this process's writes to what the request path caches (see write-generation.ts) */
  writes: WriteGeneration;
}

export interface PostgresDatabase extends DatabaseBase {
  dialect: 'postgres';
  /** The pool, for the hot path's prepared statements and LISTEN/NOTIFY. */
  pool: pg.Pool;
}

export interface OpenDatabaseOptions {
  busyTimeoutMs?: number;
  /** called after every query through the query builder (metrics); kind is select, insert, update, delete or raw */
  onQuery?: (kind: string, seconds: number) => void;
  /**
   * A private database in memory, nothing on disk (service tests: test/helpers/service-deps.ts); dataDir is not used.
   * A Buffer: a copy of that serialized database (`db.sqlite.serialize()`), so a migrated one is made once.
   */
  inMemory?: true | Buffer;
}

/**
 * Opens <data-dir>/wip.db with the durability settings the product promises:
 * WAL (the CLI and the daemon share the file), synchronous=FULL (an acknowledged
 * write survives power loss), foreign keys on, and a busy timeout.
 */
export function openDatabase(dataDir: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  const sqlite = options.inMemory ? new BetterSqlite3(options.inMemory === true ? ':memory:' : options.inMemory) : openFile(dataDir);
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  if (!options.inMemory) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  const writes = new WriteGeneration();
  const statements = withStatementCache(sqlite);
  const kysely = new Kysely<DB>({
    dialect: new SqliteDialect({ database: statements }),
    plugins: [writeGenerationPlugin(writes, CALLER_STATE_TABLES)],
    ...queryLog(options),
  });
  allowDirectReads(kysely, directReads(sqlite, statements, options.onQuery));
  let closed = false;
  return {
    dialect: 'sqlite',
    // a keyed request's queries run in its open transaction (request-transaction.ts)
    get kysely() {
      return openTransactionOf(this) ?? kysely;
    },
    sqlite,
    writes,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy(); // also closes the sqlite handle
    },
  };
}

function openFile(dataDir: string): BetterSqlite3.Database {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'wip.db');
  // inside the single executable the addon comes from the data directory's cache (src/lib/executable.ts)
  const nativeBinding = sqliteNativeBinding(dataDir);
  const sqlite = new BetterSqlite3(file, nativeBinding ? { nativeBinding: nativeBinding as never } : {});
  // SQLite gives its -wal and -shm files the main file's mode: keep all of them private.
  fs.chmodSync(file, 0o600);
  return sqlite;
}

/**
 * compiledReads straight on the connection, through the same statement cache, giving the rows kysely's
 * driver would, counted in the query metrics as kysely's log counts them (errors too). While a
 * transaction is open on the connection (withTransaction holds it across awaits) a read goes through
 * kysely, which waits for the connection as before: a read never sees another request's uncommitted writes.
 */
function directReads(
  sqlite: BetterSqlite3.Database,
  statements: SqliteStatementSource,
  onQuery: OpenDatabaseOptions['onQuery'],
): DirectRead {
  return (sqlText, parameters) => {
    if (sqlite.inTransaction) return undefined;
    if (!onQuery) return statements.prepare(sqlText).all(parameters);
    const started = performance.now();
    try {
      return statements.prepare(sqlText).all(parameters);
    } finally {
      onQuery('select', (performance.now() - started) / 1000);
    }
  };
}

type SqliteStatementSource = ReturnType<typeof withStatementCache>;

function queryLog({ onQuery }: OpenDatabaseOptions): Pick<KyselyConfig, 'log'> {
  if (!onQuery) return {};
  // SelectQueryNode → select, RawNode → raw (named once per node kind)
  const kinds = new Map<string, string>();
  return {
    log(event) {
      const node = event.query.query.kind;
      let kind = kinds.get(node);
      if (kind === undefined) kinds.set(node, (kind = node.replace(/(Query)?Node$/, '').toLowerCase()));
      onQuery(kind, event.queryDurationMillis / 1000);
    },
  };
}

/**
 * PostgreSQL's 64-bit integers (count(*), sum(), bigint columns) and numerics
 * as JavaScript numbers, as SQLite gives them: every value the product stores
 * fits in 2^53. Per pool, so no global state of the pg module changes.
 */
type Pg = typeof import('pg');
let pgModule: Pg | undefined;

/** pg is loaded when a PostgreSQL database is opened: an appliance on SQLite never needs it at start-up. */
function loadPg(): Pg {
  pgModule ??= require('pg') as Pg;
  return pgModule;
}

const numberTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    const { types } = loadPg();
    if (oid === types.builtins.INT8 || oid === types.builtins.NUMERIC) return (value: string) => Number(value);
    return types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface OpenPostgresOptions extends OpenDatabaseOptions {
  poolSize?: number;
}

/**
 * Opens a pool on a PostgreSQL database (WIP_DATABASE_URL). Connections are
 * made on first use, so a database that is down at start-up is reported by
 * the first query (bootstrap), and a node recovers by itself when it returns.
 */
export function openPostgres(url: string, options: OpenPostgresOptions = {}): PostgresDatabase {
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: options.poolSize ?? 10,
    types: numberTypes,
    connectionTimeoutMillis: 5_000,
    // every node and the database agree on UTC text timestamps; the product never relies on the session time zone
    options: '-c TimeZone=UTC',
  });
  // an idle connection dropped by the server (restart, failover) must not crash the process: the pool replaces it
  pool.on('error', () => undefined);
  // nor one dropped while checked out between two queries (a killed backend, a
  // failover mid-transaction): the query in flight gets the error, the pool
  // discards the dead connection when it is released
  pool.on('connect', (client) => client.on('error', () => undefined));
  const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), ...queryLog(options) });
  let closed = false;
  return {
    dialect: 'postgres',
    // a keyed request's queries run in its open transaction (request-transaction.ts)
    get kysely() {
      return openTransactionOf(this) ?? kysely;
    },
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await kysely.destroy(); // also ends the pool
    },
  };
}

/** The raw SQLite handle, for the SQLite-only operations (file backup, pragmas). @throws in PostgreSQL mode */
export function sqliteHandle(db: Database): BetterSqlite3.Database {
  if (db.dialect !== 'sqlite') throw new Error('this operation needs the embedded SQLite database');
  return db.sqlite;
}
