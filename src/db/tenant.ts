import {
  CompiledQuery,
  sql,
  type DeleteQueryBuilder,
  type DeleteResult,
  type Kysely,
  type SelectQueryBuilder,
  type UpdateQueryBuilder,
  type UpdateResult,
} from 'kysely';
import type { DB, TenantTable } from './schema';
import { LruCache } from '#lib/lru';
import { readDirectly } from './compiled-query';

declare const tenantBrand: unique symbol;

/**
 * Proof that a request (or the CLI) is acting inside one client. Only the
 * authenticate middleware, the CLI and services that create clients make one.
 */
export interface TenantScope {
  readonly clientId: number;
  readonly [tenantBrand]: true;
}

export function tenantScope(clientId: number): TenantScope {
  return { clientId } as TenantScope;
}

/**
 * The one place tenant filtering happens: every read, update and delete of a
 * tenant table built from here carries `where <table>.client_id = ?`.
 */
export function inTenant(db: Kysely<DB>, scope: TenantScope) {
  const clientFilter = (table: TenantTable) => sql<boolean>`${sql.ref(`${table}.client_id`)} = ${scope.clientId}`;
  return {
    // The casts only widen kysely's generics, which cannot resolve a filter on a
    // table chosen by a type parameter; the returned builders are fully typed.
    selectFrom<T extends TenantTable>(table: T): SelectQueryBuilder<DB, T, {}> {
      return (db.selectFrom(table) as any).where(clientFilter(table));
    },
    updateTable<T extends TenantTable>(table: T): UpdateQueryBuilder<DB, T, T, UpdateResult> {
      return (db.updateTable(table) as any).where(clientFilter(table));
    },
    deleteFrom<T extends TenantTable>(table: T): DeleteQueryBuilder<DB, T, DeleteResult> {
      return (db.deleteFrom(table) as any).where(clientFilter(table));
    },
  };
}

const MAX_REUSED_BATCH = 1000;
/** names carry a column set (GraphQL reads what a query selects): the shapes a client can ask for are many, the SQL kept is bounded */
const MAX_KEPT_BATCH_SQL = 2000;
const batchSql = new WeakMap<Kysely<DB>, LruCache<string, string>>();

/**
 * A batch read by a list of ids (what DataLoaders send): `build(ids)` is a
 * tenant query whose only parameters are the client id and then the ids, e.g.
 * `inTenant(db, scope).selectFrom('users').select(…).where('id', 'in', ids)`.
 * Its SQL is compiled once per (name, number of ids) and run again with the
 * next batch's values: the same few shapes repeat on every request, and
 * building and compiling the query cost about a third of running it. A query
 * whose compiled parameters are not exactly (client id, ids…) is never reused.
 * A reused one runs straight on the connection where compiledRead's do (readDirectly).
 */
export async function selectByIds<R>(
  db: Kysely<DB>,
  scope: TenantScope,
  name: string,
  ids: readonly number[],
  build: (ids: number[]) => { compile(): CompiledQuery<R> },
): Promise<R[]> {
  if (ids.length === 0) return [];
  let cache = batchSql.get(db);
  if (!cache) batchSql.set(db, (cache = new LruCache(MAX_KEPT_BATCH_SQL)));
  const key = `${name}:${ids.length}`;
  const parameters = [scope.clientId, ...ids];
  const known = cache.get(key);
  if (known !== undefined)
    return readDirectly<R>(db, known, parameters) ?? (await db.executeQuery<R>(CompiledQuery.raw(known, parameters))).rows;
  const compiled = build([...ids]).compile();
  const reusable = compiled.parameters.length === parameters.length && compiled.parameters.every((value, i) => value === parameters[i]);
  if (reusable && ids.length <= MAX_REUSED_BATCH) cache.set(key, compiled.sql);
  return (await db.executeQuery<R>(compiled)).rows;
}
