import { createQueryId, type CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { DB } from './schema';

/** Stands for the i-th value while a compiledRead is compiled. */
class Slot {
  constructor(readonly index: number) {}
}

interface Compiled {
  query: CompiledQuery;
  /** for each parameter: the index of the value it takes, or -1 for a constant kept from the compilation */
  slots: number[];
}

/**
 * Runs a compiled read on the database a query builder stands for, without the builder's executor;
 * undefined when the read must go through the builder (see allowDirectReads).
 */
export type DirectRead = (sql: string, parameters: readonly unknown[]) => unknown[] | undefined;

const directReads = new WeakMap<Kysely<DB>, DirectRead>();

/**
 * Lets compiledReads on `kysely` (the top-level builder only: a transaction's builder is another object and
 * keeps the executor) run through `read`. For SQLite (openDatabase): kysely's executor (connection lock,
 * plugin hooks, a chain of promises) gives the rows the same statement gives; skipping it made a page of the
 * user list (two reads) about 30 µs of CPU cheaper in the daemon under load (482 → 449 µs a page, paired
 * cycles), though only ~5 µs in a tight loop: little code run per request pays twice when caches are cold.
 */
export function allowDirectReads(kysely: Kysely<DB>, read: DirectRead): void {
  directReads.set(kysely, read);
}

/**
 * A read the query builder builds and compiles once per database handle, then runs with new values.
 *
 * kysely builds an immutable node tree and compiles it to SQL on every call: for the short reads a busy
 * route makes per request that costs as much as a tenth of the request (a page of the user list: about
 * 60 µs of 600). Here `build` runs once, with stand-ins for its values, and returns the query as it
 * would for real ones — tenant scope through inTenant included; each call binds its values where the
 * stand-ins were compiled. The SQL is exactly what kysely compiles (values are always bound parameters,
 * never part of the text), so nothing about the query changes but its cost.
 *
 * `build` must hand its values to the builder as they are (a where, a limit, a tenant scope): a value it
 * computes with (`limit + 1`) would not be a stand-in any more, which the first compilation refuses.
 * Reads only (SELECT): writes go through the builder, which the caller-state cache watches. Where the
 * database allows it (allowDirectReads: SQLite outside a transaction) the read skips kysely's executor.
 * `arity`: how many values `build` takes, for a build taking them as a rest parameter.
 */
export function compiledRead<A extends unknown[], R>(
  build: (db: Kysely<DB>, ...values: A) => Compilable<R>,
  arity = build.length - 1,
): (db: Kysely<DB>, ...values: A) => Promise<R[]> {
  const byDatabase = new WeakMap<Kysely<DB>, Compiled>();
  const compile = (db: Kysely<DB>): Compiled => {
    const stand = Array.from({ length: arity }, (_, i) => new Slot(i));
    const query = build(db, ...(stand as A)).compile() as CompiledQuery;
    if (query.query.kind !== 'SelectQueryNode') throw new Error('compiledRead is for SELECT statements');
    const slots = query.parameters.map((p) => (p instanceof Slot ? p.index : -1));
    for (let i = 0; i < arity; i++)
      if (!slots.includes(i)) throw new Error(`compiledRead: value ${i} is not a parameter of the query (computed with?)`);
    return { query, slots };
  };
  return async (db, ...values) => {
    let compiled = byDatabase.get(db);
    if (!compiled) byDatabase.set(db, (compiled = compile(db)));
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot < 0 ? query.parameters[i] : values[slot]));
    const rows = readDirectly<R>(db, query.sql, parameters);
    if (rows !== undefined) return rows;
    const result = await db.executeQuery<R>({ query: query.query, sql: query.sql, parameters, queryId: createQueryId() });
    return result.rows;
  };
}

/** The rows of a compiled SELECT run straight on the connection where allowDirectReads allows it, else undefined (run it through kysely). */
export function readDirectly<R>(db: Kysely<DB>, sql: string, parameters: readonly unknown[]): R[] | undefined {
  return directReads.get(db)?.(sql, parameters) as R[] | undefined;
}

/** The IN-list sizes compiledListRead compiles: a list is padded up to the next one. */
const LIST_SIZES = [8, 16, 32, 64, 128, 256];

/**
 * A compiledRead whose query takes a list (`where x in values`) of any length. A compiled statement has a
 * fixed number of parameters, so the list is padded with `pad` (a value that matches no row) up to the next
 * of a few sizes, each compiled once — the "IN-clause parameter padding" ORMs use for their statement caches.
 * Longer lists are read in pieces of the largest size. `fixed` are the query's other values, ahead of the list.
 * Without this, a page of the user list built and compiled two such queries per request (measured with
 * npm run bench: the list's server CPU a page doubled when they came in).
 */
export function compiledListRead<F extends unknown[], V, R>(
  build: (db: Kysely<DB>, fixed: F, values: V[]) => Compilable<R>,
  fixedArity: number,
  pad: V,
): (db: Kysely<DB>, fixed: F, values: readonly V[]) => Promise<R[]> {
  const bySize = new Map(
    LIST_SIZES.map((size) => [
      size,
      compiledRead((db, ...all: unknown[]) => build(db, all.slice(0, fixedArity) as F, all.slice(fixedArity) as V[]), fixedArity + size),
    ]),
  );
  const largest = LIST_SIZES[LIST_SIZES.length - 1];
  return async (db, fixed, values) => {
    const rows: R[] = [];
    for (let start = 0; start < values.length; start += largest) {
      const piece = values.slice(start, start + largest);
      const size = LIST_SIZES.find((s) => s >= piece.length)!;
      const padded = [...piece, ...Array.from({ length: size - piece.length }, () => pad)];
      rows.push(...(await bySize.get(size)!(db, ...fixed, ...padded)));
    }
    return rows;
  };
}
