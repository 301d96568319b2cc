import { sql, type DeleteQueryBuilder, type DeleteResult, type Kysely, type SelectQueryBuilder, type UpdateQueryBuilder, type UpdateResult } from 'kysely';
import type { DB, TenantTable } from './schema';

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
