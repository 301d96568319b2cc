import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely } from 'kysely';
import type { DB } from './schema';

// One request's writes and its stored answer in one transaction
// (docs/reliability.md "The answer is part of the write"). The Idempotency-Key
// middleware runs its request in a RequestUnit. The request's first
// withTransaction opens the unit's transaction and leaves it open; later ones
// join it (each in a savepoint); the middleware writes the answer into it and
// commits. A crash before that commit loses the write and its answer
// together; after it, both are there. While the transaction is open, the
// request's own queries (`db.kysely`, see connection.ts) run in it: they see
// its writes, and on SQLite they would otherwise wait for the connection it holds.

/** An open transaction of a unit: its builder, the effects due after its commit, and how it ends. */
export interface OpenTransaction {
  trx: Kysely<DB>;
  effects: (() => void | Promise<void>)[];
  /** commits (true) or rolls back (false); resolves once the transaction has ended, rejects if the commit failed */
  end(commit: boolean): Promise<void>;
}

export interface RequestUnit {
  /** the Database (connection.ts) whose transactions the unit takes: by identity, so connection.ts can ask without a cycle */
  db: object;
  /** set by the request's first withTransaction, cleared when the unit ends */
  open?: OpenTransaction;
}

const units = new AsyncLocalStorage<RequestUnit>();

/** Runs `work` (the rest of a request) in `unit`: the request's transactions become the unit's. */
export function runInUnit<T>(unit: RequestUnit, work: () => Promise<T>): Promise<T> {
  return units.run(unit, work);
}

/** The unit of the request running now, when it works on `db`. */
export function currentUnit(db: object): RequestUnit | undefined {
  const unit = units.getStore();
  return unit?.db === db ? unit : undefined;
}

/** The open transaction a query on `db` of the request running now belongs to, if any (connection.ts). */
export function openTransactionOf(db: object): Kysely<DB> | undefined {
  const unit = units.getStore();
  return unit?.db === db ? unit.open?.trx : undefined;
}

/** Ends the unit's transaction (when one was opened), then runs its effects after a commit. */
export async function endUnit(unit: RequestUnit, commit: boolean): Promise<void> {
  const open = unit.open;
  if (!open) return;
  unit.open = undefined;
  await open.end(commit);
  if (commit) for (const effect of open.effects) await effect();
}

/**
 * Runs `work` outside any request's unit: what the background workers do when
 * a request signals them (deliver mail now, send webhooks) is theirs, never
 * part of the request's open transaction (composition.ts wraps the signals).
 */
export function outsideRequestUnit<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  return (...args) => units.exit(() => work(...args));
}
