import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

const MAX_CACHED_STATEMENTS = 1000;

/**
 * Gives kysely's SQLite driver cached prepared statements. The driver prepares
 * every query afresh, and preparing costs more than running a small indexed
 * query; the SQL kysely compiles is stable per query shape (values are bound
 * parameters), so a cache keyed by SQL text serves nearly every request.
 * A statement still being iterated (a streamed query) is not reused.
 *
 * Rows are better-sqlite3's own: since 13 it builds each row object with a
 * function made for the statement's columns (in JavaScript, one shape per
 * statement). This cache used to do that itself — from the arguments of a
 * `wip_row(…)` SQL function, or from rows read as arrays — to avoid
 * better-sqlite3 12's value-by-value V8 calls on Node 20; on Node 24 with 13
 * that gained nothing (docs/performance.md), so it went.
 */
export function withStatementCache(sqlite: BetterSqlite3.Database): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare(sql: string) {
      const cached = cache.get(sql);
      if (cached && !cached.busy) return cached;
      const statement = sqlite.prepare(sql);
      if (!cached) {
        if (cache.size >= MAX_CACHED_STATEMENTS) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
