import { sql, type Kysely } from 'kysely';
import { AppError, serviceUnavailable } from '../errors';
import type { Database } from './connection';
import type { DB } from './schema';

export type AfterCommit = (effect: () => void | Promise<void>) => void;

const MAX_ATTEMPTS = 5;
/**
 * PostgreSQL detects conflicts at commit instead of queueing writers up front
 * (a client's audit chain head is written by every domain change of that
 * client), so concurrent writers of one client retry more often: more
 * attempts, with random jitter so they do not collide again in lockstep.
 */
const POSTGRES_MAX_ATTEMPTS = 12;

/**
 * Runs `work` in a short write transaction. `work` must not await network,
 * disk or hashing: do that before, or register it with `afterCommit`, which
 * runs only once the data is durable.
 * - SQLite: BEGIN IMMEDIATE takes the write lock up front, so check-then-insert
 *   rules such as seat counts cannot race another process.
 * - PostgreSQL: SERIALIZABLE gives the same guarantee across nodes; the
 *   transaction that would break it fails with a serialization failure.
 * SQLITE_BUSY, serialization failures and deadlocks are retried with backoff,
 * then answered 503; an unreachable PostgreSQL is answered 503 at once.
 */
export async function withTransaction<T>(
  db: Database,
  work: (trx: Kysely<DB>, afterCommit: AfterCommit) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const effects: (() => void | Promise<void>)[] = [];
    const afterCommit: AfterCommit = (effect) => effects.push(effect);
    try {
      const result = db.dialect === 'postgres'
        ? await db.kysely.transaction().setIsolationLevel('serializable').execute((trx) => work(trx, afterCommit))
        : await db.kysely.connection().execute(async (conn) => {
            await sql`begin immediate`.execute(conn);
            try {
              const value = await work(conn, afterCommit);
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
      if (isDatabaseUnavailable(error)) throw serviceUnavailable('The database is unavailable; try again');
      // PostgreSQL may report a serializable conflict as the unique violation it
      // caused (two transactions appending the same next number): retried once,
      // after which a real duplicate reaches the caller as before.
      if (db.dialect === 'postgres' && attempt === 1 && isUniqueViolation(error)) continue;
      if (!isBusy(error)) throw error;
      if (attempt >= (db.dialect === 'postgres' ? POSTGRES_MAX_ATTEMPTS : MAX_ATTEMPTS)) throw serviceUnavailable('The database is busy; try again');
      const delay = db.dialect === 'postgres' ? Math.random() * Math.min(500, 5 * 2 ** attempt) : 20 * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** A conflict with a concurrent transaction that a retry resolves. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return (
    code === 'SQLITE_BUSY' ||
    code === 'SQLITE_BUSY_SNAPSHOT' ||
    code === 'SQLITE_LOCKED' ||
    code === '40001' || // PostgreSQL serialization_failure
    code === '40P01' // PostgreSQL deadlock_detected
  );
}

/**
 * PostgreSQL cannot be reached or is failing over: refused or dropped
 * connections, pool timeouts, a server shutting down or still starting.
 * Answered 503 (never 500); the pool reconnects by itself once it is back.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code && /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EHOSTUNREACH|EPIPE|08...|57P0[123]|53300)$/.test(code)) return true;
  return typeof message === 'string' && /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message);
}

/**
 * Runs `work` inside a savepoint of the current transaction, so a statement
 * that fails (a unique violation the caller answers) leaves the transaction
 * usable: PostgreSQL aborts the whole transaction at the first error
 * otherwise. SAVEPOINT is the same SQL in both dialects.
 */
export async function withSavepoint<T>(trx: Kysely<DB>, work: () => Promise<T>): Promise<T> {
  await sql`savepoint wip_step`.execute(trx);
  try {
    const value = await work();
    await sql`release savepoint wip_step`.execute(trx);
    return value;
  } catch (error) {
    await sql`rollback to savepoint wip_step`.execute(trx);
    await sql`release savepoint wip_step`.execute(trx);
    throw error;
  }
}

/**
 * PostgreSQL refused a value (class 22, data exception): a NUL character in
 * text, which SQLite stores, or a number out of range. Only a client can send
 * such a value, so it is answered 400, never 500.
 */
export function isInvalidValue(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return typeof code === 'string' && /^22...$/.test(code) && (error as { severity?: string }).severity !== undefined;
}

/** The answer for a database error a client may meet (REST and GraphQL alike); undefined for a real fault. */
export function databaseErrorAnswer(error: unknown): AppError | undefined {
  if (isDatabaseUnavailable(error)) return serviceUnavailable('The database is unavailable; try again');
  if (isInvalidValue(error)) return new AppError('BAD_REQUEST', 'A value in the request cannot be stored (e.g. a NUL character)');
  return undefined;
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
