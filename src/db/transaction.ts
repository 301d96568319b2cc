import { sql, type Kysely } from 'kysely';
import { AppError, serviceUnavailable } from '#errors';
import type { Database, PostgresDatabase } from './connection';
import type { DB } from './schema';
import { currentUnit, type OpenTransaction } from './request-transaction';

export type AfterCommit = (effect: () => void | Promise<void>) => void;

const MAX_ATTEMPTS = 5;
/**
 * PostgreSQL detects conflicts at commit instead of queueing writers up front,
 * so transactions that do not name their client (`lockClient`) retry more
 * often: more attempts, with random jitter so they do not collide again in lockstep.
 */
const POSTGRES_MAX_ATTEMPTS = 12;

export type TransactionWork<T> = (trx: Kysely<DB>, afterCommit: AfterCommit) => Promise<T>;

export interface TransactionOptions {
  /**
   * The client whose data the transaction writes (its audit chain, seats,
   * jobs…). PostgreSQL: writers of one client queue for it — in this process,
   * then across nodes on a session advisory lock taken before BEGIN — so
   * they run one after the other as on SQLite instead of failing each
   * other's SERIALIZABLE commits and retrying. SQLite: ignored (BEGIN
   * IMMEDIATE already admits one writer at a time).
   */
  lockClient?: number;
}

/**
 * Runs `work` in a short write transaction. `work` must not await network,
 * disk or hashing: do that before, or register it with `afterCommit`, which
 * runs only once the data is durable.
 * - SQLite: BEGIN IMMEDIATE takes the write lock up front, so check-then-insert
 *   rules such as seat counts cannot race another process.
 * - PostgreSQL: SERIALIZABLE gives the same guarantee across nodes; the
 *   transaction that would break it fails with a serialization failure.
 *   Writers that name their client (`lockClient`) are queued per client first
 *   (see `TransactionOptions`), so such failures stay rare.
 * SQLITE_BUSY, serialization failures and deadlocks are retried with backoff,
 * then answered 503; an unreachable PostgreSQL is answered 503 at once.
 */
export async function withTransaction<T>(db: Database, work: TransactionWork<T>): Promise<T>;
export async function withTransaction<T>(db: Database, options: TransactionOptions, work: TransactionWork<T>): Promise<T>;
export async function withTransaction<T>(
  db: Database,
  ...args: [TransactionWork<T>] | [TransactionOptions, TransactionWork<T>]
): Promise<T> {
  const [options, work] = args.length === 1 ? [{}, args[0]] : args;
  const unit = currentUnit(db);
  if (unit?.open) return joinOpenTransaction(unit.open, work);
  for (let attempt = 1; ; attempt++) {
    const effects: (() => void | Promise<void>)[] = [];
    const afterCommit: AfterCommit = (effect) => effects.push(effect);
    try {
      if (unit) {
        // a keyed request (db/request-transaction.ts): the transaction stays open for its answer
        const open = await openTransaction(db, options.lockClient, effects);
        try {
          const value = await work(open.trx, afterCommit);
          unit.open = open;
          return value;
        } catch (error) {
          await open.end(false).catch(() => undefined);
          throw error;
        }
      }
      const result = await runTransaction(db, options.lockClient, (trx) => work(trx, afterCommit));
      for (const effect of effects) await effect();
      return result;
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw serviceUnavailable('The database is unavailable; try again');
      // PostgreSQL may report a serializable conflict as the unique violation it
      // caused (two transactions appending the same next number): retried once,
      // after which a real duplicate reaches the caller as before.
      if (db.dialect === 'postgres' && attempt === 1 && isUniqueViolation(error)) continue;
      if (!isBusy(error)) throw error;
      if (attempt >= (db.dialect === 'postgres' ? POSTGRES_MAX_ATTEMPTS : MAX_ATTEMPTS))
        throw serviceUnavailable('The database is busy; try again');
      const delay = db.dialect === 'postgres' ? Math.random() * Math.min(500, 5 * 2 ** attempt) : 20 * 2 ** attempt;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** One transaction, committed when `work` returns and rolled back when it throws. */
function runTransaction<T>(db: Database, lockClient: number | undefined, work: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  if (db.dialect === 'postgres') return postgresTransaction(db, lockClient, work);
  return db.kysely.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const value = await work(conn);
      await sql`commit`.execute(conn);
      return value;
    } catch (error) {
      if (db.sqlite.inTransaction) await sql`rollback`.execute(conn);
      throw error;
    }
  });
}

/** What ends an open transaction that is rolled back on purpose (the request failed). */
class RolledBack extends Error {}
const ROLLED_BACK = new RolledBack('rolled back');

/**
 * A transaction begun (locks taken as runTransaction takes them) and left open
 * until `end`: the Idempotency-Key middleware commits it with the answer.
 */
function openTransaction(db: Database, lockClient: number | undefined, effects: (() => void | Promise<void>)[]): Promise<OpenTransaction> {
  return new Promise((resolve, reject) => {
    let decide: (commit: boolean) => void = () => undefined;
    const decision = new Promise<boolean>((settle) => (decide = settle));
    let begun = false;
    const ended = runTransaction(db, lockClient, async (trx) => {
      begun = true;
      resolve({
        trx,
        effects,
        end: async (commit) => {
          decide(commit);
          await ended.catch((error: unknown) => {
            if (error !== ROLLED_BACK) throw error;
          });
        },
      });
      if (!(await decision)) throw ROLLED_BACK;
    });
    ended.catch((error: unknown) => {
      if (!begun) reject(error instanceof Error ? error : new Error(String(error)));
    });
  });
}

/**
 * A transaction of a request whose transaction is already open: a savepoint
 * in it, so a failure undoes this one's writes only, as if it had been a
 * transaction of its own; its effects wait for the request's commit.
 */
async function joinOpenTransaction<T>(open: OpenTransaction, work: TransactionWork<T>): Promise<T> {
  const effects: (() => void | Promise<void>)[] = [];
  try {
    await sql`savepoint wip_request_step`.execute(open.trx);
    const value = await work(open.trx, (effect) => effects.push(effect));
    await sql`release savepoint wip_request_step`.execute(open.trx);
    open.effects.push(...effects);
    return value;
  } catch (error) {
    await sql`rollback to savepoint wip_request_step`
      .execute(open.trx)
      .then(() => sql`release savepoint wip_request_step`.execute(open.trx))
      .catch(() => undefined);
    if (isDatabaseUnavailable(error)) throw serviceUnavailable('The database is unavailable; try again');
    // no retry inside another transaction: the request's client retries (its key is released)
    if (isBusy(error)) throw serviceUnavailable('The database is busy; try again');
    throw error;
  }
}

/**
 * The advisory-lock space of per-client write locks (two-key form: never
 * collides with kysely's one-key migration lock). The second key is the client
 * id (wrapped to 32 bits: two clients sharing a lock only queue together).
 */
export const CLIENT_WRITE_LOCK_SPACE = 0x77697001;

/**
 * One SERIALIZABLE transaction; with a client, queued behind that client's
 * other writers. The advisory lock must be taken BEFORE `BEGIN`: a
 * transaction-scoped lock taken by the first statement comes too late, since
 * that statement has already fixed the snapshot the transaction would then
 * commit against (and fail on). The session lock is released on the same
 * connection whatever happens; a connection that dies takes it with it.
 * No deadlock between locks: a transaction holds at most one, taken before
 * any row lock.
 */
async function postgresTransaction<T>(
  db: PostgresDatabase,
  clientId: number | undefined,
  work: (trx: Kysely<DB>) => Promise<T>,
): Promise<T> {
  if (clientId === undefined) return db.kysely.transaction().setIsolationLevel('serializable').execute(work);
  const key = clientId | 0;
  return inClientQueue(db, key, () =>
    db.kysely.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${CLIENT_WRITE_LOCK_SPACE}, ${key})`.execute(conn);
      try {
        return await conn.transaction().setIsolationLevel('serializable').execute(work);
      } finally {
        // Fails only with the connection, which releases the lock as it ends:
        // never hide the transaction's own outcome (a commit already durable) behind it.
        await sql`select pg_advisory_unlock(${CLIENT_WRITE_LOCK_SPACE}, ${key})`.execute(conn).catch(() => undefined);
      }
    }),
  );
}

/**
 * Per-process queue of each client's locked transactions: one of them at a
 * time per node waits on the advisory lock, holding one pooled connection,
 * instead of a burst of one client's writers taking the whole pool from the
 * node's other requests.
 */
const clientQueues = new WeakMap<PostgresDatabase, Map<number, Promise<unknown>>>();

async function inClientQueue<T>(db: PostgresDatabase, key: number, run: () => Promise<T>): Promise<T> {
  let queues = clientQueues.get(db);
  if (!queues) clientQueues.set(db, (queues = new Map()));
  const current = (queues.get(key) ?? Promise.resolve()).then(run);
  const settled = current.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return current;
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
  return (
    typeof message === 'string' &&
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/.test(message)
  );
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
