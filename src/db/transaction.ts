import { sql, type Kysely } from 'kysely';
import { serviceUnavailable } from '../errors';
import type { Database } from './connection';
import type { DB } from './schema';

export type AfterCommit = (effect: () => void | Promise<void>) => void;

const MAX_ATTEMPTS = 5;

/**
 * Runs `work` in a short write transaction (BEGIN IMMEDIATE: takes the write
 * lock up front, so check-then-insert rules such as seat counts cannot race
 * another process). `work` must not await network, disk or hashing: do that
 * before, or register it with `afterCommit`, which runs only once the data is
 * durable. SQLITE_BUSY is retried with backoff, then answered 503.
 */
export async function withTransaction<T>(
  db: Database,
  work: (trx: Kysely<DB>, afterCommit: AfterCommit) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const effects: (() => void | Promise<void>)[] = [];
    try {
      const result = await db.kysely.connection().execute(async (conn) => {
        await sql`begin immediate`.execute(conn);
        try {
          const value = await work(conn, (effect) => effects.push(effect));
          await sql`commit`.execute(conn);
          return value;
        } catch (error) {
          if (db.sqlite.inTransaction) await sql`rollback`.execute(conn);
          throw error;
        }
      });
      for (const effect of effects) await effect();
      return result;
    } catch (error) {
      if (!isBusy(error)) throw error;
      if (attempt >= MAX_ATTEMPTS) throw serviceUnavailable('The database is busy; try again');
      await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt));
    }
  }
}

export function isBusy(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT' || code === 'SQLITE_LOCKED';
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
