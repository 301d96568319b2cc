import { paginateCounted, type CountedPage, type PageInput } from '#db/pagination';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AssetRow, AssetClassRow, DB, LocationRow, OrganizationRow, SensorRow } from '#db/schema';
import { inTenant, type TenantScope } from '#db/tenant';

/**
 * The client's catalogue: organizations, asset classes, locations, assets and
 * sensor definitions. Five small tables of one shape (a tenant row with a
 * name), so one set of functions serves all of them; each is a handful of
 * rows per client, listed whole in name order.
 */
export type CatalogueTable = 'organizations' | 'asset_classes' | 'locations' | 'assets' | 'sensors';

export type CatalogueRow<T extends CatalogueTable> = Selectable<DB[T]> & { id: number; name: string };
export type NewCatalogueRow<T extends CatalogueTable> = Omit<Insertable<DB[T]>, 'client_id'>;

export type { AssetRow, AssetClassRow, LocationRow, OrganizationRow, SensorRow };

/** Every row of one catalogue table of the client, by name then id. */
export async function listCatalogue<T extends CatalogueTable>(db: Kysely<DB>, scope: TenantScope, table: T): Promise<CatalogueRow<T>[]> {
  const query = inTenant(db, scope).selectFrom(table).selectAll() as any;
  return query.orderBy('name').orderBy('id').execute();
}

/** A page of one catalogue table of the client, in id (creation) order, with its total on demand (GraphQL's connections). */
export function pageCatalogue<T extends CatalogueTable>(
  db: Kysely<DB>,
  scope: TenantScope,
  table: T,
  page: PageInput,
): Promise<CountedPage<CatalogueRow<T>>> {
  return paginateCounted(inTenant(db, scope).selectFrom(table).selectAll() as any, page);
}

/** Rows by id (for loaders); ids of another client are simply not found. */
export async function loadCatalogueByIds<T extends CatalogueTable>(
  db: Kysely<DB>,
  scope: TenantScope,
  table: T,
  ids: readonly number[],
): Promise<CatalogueRow<T>[]> {
  if (ids.length === 0) return [];
  const query = inTenant(db, scope).selectFrom(table).selectAll() as any;
  return query.where('id', 'in', [...ids]).execute();
}

export async function findCatalogueRow<T extends CatalogueTable>(
  db: Kysely<DB>,
  scope: TenantScope,
  table: T,
  id: number,
): Promise<CatalogueRow<T> | undefined> {
  const [row] = await loadCatalogueByIds(db, scope, table, [id]);
  return row;
}

export async function insertCatalogueRow<T extends CatalogueTable>(
  db: Kysely<DB>,
  scope: TenantScope,
  table: T,
  values: NewCatalogueRow<T>,
): Promise<CatalogueRow<T>> {
  // the scope supplies client_id: a row can only be created inside the caller's client
  return (db.insertInto(table) as any)
    .values({ ...values, client_id: scope.clientId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Sets (or clears) an organization's logo (a system file id). */
export async function setOrganizationLogo(
  db: Kysely<DB>,
  scope: TenantScope,
  organizationId: number,
  logoFileId: number | null,
  now: string,
): Promise<void> {
  await inTenant(db, scope)
    .updateTable('organizations')
    .set({ logo_file_id: logoFileId, updated_at: now })
    .where('id', '=', organizationId)
    .execute();
}
