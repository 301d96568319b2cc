import type { PageInput } from '#db/pagination';
import { z } from 'zod';
import type { Deps } from '#deps';
import { withTransaction } from '#db/transaction';
import { notFound } from '#errors';
import { parseOrFail } from '#lib/parse-or-fail';
import { presentAsset, presentAssetClass, presentLocation, presentOrganization, presentSensor } from '#presenters/catalogue';
import { appendAudit } from '#repos/audit';
import {
  findCatalogueRow,
  insertCatalogueRow,
  pageCatalogue,
  type CatalogueRow,
  type CatalogueTable,
  type NewCatalogueRow,
} from '#repos/catalogue';
import type { UserActor } from './actor';
import { requirePermission } from '#policies/permissions';

/**
 * The client's catalogue. Everyone in the client reads it; creating entries
 * takes one of PERMISSIONS.manageCatalogue. A reference to another
 * client's row (parentId, locationId, assetClassId) is NOT_FOUND, exactly as
 * if the id did not exist: nothing reveals another tenant's ids.
 */

const Name = z.string().trim().min(1, 'must not be empty').max(200);
const OptionalText = (max: number) => z.string().trim().max(max).nullish();
const RefId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullish();

/** an organization or a location: a named node of an optional tree */
export const CreateOrganizationInput = z.object({ name: Name, parentId: RefId }).strict();
export const CreateAssetClassInput = z.object({ name: Name, description: OptionalText(2000) }).strict();
export const CreateAssetInput = z
  .object({ name: Name, serialNumber: OptionalText(200), locationId: RefId, assetClassId: RefId, anchorId: OptionalText(200) })
  .strict();
export const CreateSensorInput = z.object({ name: Name, unit: OptionalText(32), kind: OptionalText(64) }).strict();

export type CreateOrganizationInput = z.input<typeof CreateOrganizationInput>;
export type CreateAssetClassInput = z.input<typeof CreateAssetClassInput>;
export type CreateAssetInput = z.input<typeof CreateAssetInput>;
export type CreateSensorInput = z.input<typeof CreateSensorInput>;

const LABELS: Record<CatalogueTable, { entity: string; label: string }> = {
  organizations: { entity: 'organization', label: 'Organization' },
  asset_classes: { entity: 'asset_class', label: 'Asset class' },
  locations: { entity: 'location', label: 'Location' },
  assets: { entity: 'asset', label: 'Asset' },
  sensors: { entity: 'sensor', label: 'Sensor' },
};

interface Reference {
  table: CatalogueTable;
  id: number | null | undefined;
}

/**
 * One creation: role check, references checked inside the client, the row and
 * its audit entry in one transaction.
 */
async function createEntry<T extends CatalogueTable>(
  deps: Deps,
  actor: UserActor,
  table: T,
  values: Omit<NewCatalogueRow<T>, 'created_at' | 'updated_at'>,
  references: Reference[],
  present: (row: CatalogueRow<T>) => object,
): Promise<CatalogueRow<T>> {
  requirePermission(actor.roles, 'manageCatalogue');
  const nowIso = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    for (const ref of references) {
      if (ref.id != null && !(await findCatalogueRow(trx, actor.scope, ref.table, ref.id))) throw notFound(LABELS[ref.table].label);
    }
    const row = await insertCatalogueRow(trx, actor.scope, table, {
      ...values,
      created_at: nowIso,
      updated_at: nowIso,
    } as unknown as NewCatalogueRow<T>);
    await appendAudit(trx, actor.scope, {
      actor: { userId: actor.userId, email: actor.email },
      action: `${LABELS[table].entity}.created`,
      entityType: LABELS[table].entity,
      entityId: row.id,
      after: present(row),
      at: nowIso,
    });
    return row;
  });
}

/** Organizations and locations are trees: the parent must be a row of the same table in the client. */
function createTreeNode<T extends 'organizations' | 'locations'>(table: T, present: (row: CatalogueRow<T>) => object) {
  return async (deps: Deps, actor: UserActor, input: CreateOrganizationInput): Promise<CatalogueRow<T>> => {
    const data = parseOrFail(CreateOrganizationInput, input ?? {}, 'input');
    const values = { name: data.name, parent_id: data.parentId ?? null } as unknown as Omit<
      NewCatalogueRow<T>,
      'created_at' | 'updated_at'
    >;
    return createEntry(deps, actor, table, values, [{ table, id: data.parentId }], present);
  };
}

/** @throws AppError FORBIDDEN without a catalogue role; VALIDATION_ERROR; NOT_FOUND for a parent outside the client */
export const createOrganization = createTreeNode('organizations', presentOrganization);

/** @throws AppError FORBIDDEN without a catalogue role; VALIDATION_ERROR; NOT_FOUND for a parent outside the client */
export const createLocation = createTreeNode('locations', presentLocation);

/** @throws AppError FORBIDDEN without a catalogue role; VALIDATION_ERROR */
export async function createAssetClass(deps: Deps, actor: UserActor, input: CreateAssetClassInput) {
  const data = parseOrFail(CreateAssetClassInput, input ?? {}, 'input');
  return createEntry(deps, actor, 'asset_classes', { name: data.name, description: data.description ?? '' }, [], presentAssetClass);
}

/**
 * @throws AppError FORBIDDEN without a catalogue role; VALIDATION_ERROR; NOT_FOUND for a location or asset class outside the client
 */
export async function createAsset(deps: Deps, actor: UserActor, input: CreateAssetInput) {
  const data = parseOrFail(CreateAssetInput, input ?? {}, 'input');
  return createEntry(
    deps,
    actor,
    'assets',
    {
      name: data.name,
      serial_number: data.serialNumber ?? null,
      location_id: data.locationId ?? null,
      asset_class_id: data.assetClassId ?? null,
      anchor_id: data.anchorId ?? null,
    },
    [
      { table: 'locations', id: data.locationId },
      { table: 'asset_classes', id: data.assetClassId },
    ],
    presentAsset,
  );
}

/** @throws AppError FORBIDDEN without a catalogue role; VALIDATION_ERROR */
export async function createSensor(deps: Deps, actor: UserActor, input: CreateSensorInput) {
  const data = parseOrFail(CreateSensorInput, input ?? {}, 'input');
  return createEntry(deps, actor, 'sensors', { name: data.name, unit: data.unit ?? '', kind: data.kind ?? '' }, [], presentSensor);
}

/** Everyone in the client reads the catalogue: a page of one of its tables, in id order. */
export function listOrganizations(deps: Deps, actor: UserActor, page: PageInput) {
  return pageCatalogue(deps.db.kysely, actor.scope, 'organizations', page);
}
export function listAssetClasses(deps: Deps, actor: UserActor, page: PageInput) {
  return pageCatalogue(deps.db.kysely, actor.scope, 'asset_classes', page);
}
export function listLocations(deps: Deps, actor: UserActor, page: PageInput) {
  return pageCatalogue(deps.db.kysely, actor.scope, 'locations', page);
}
export function listAssets(deps: Deps, actor: UserActor, page: PageInput) {
  return pageCatalogue(deps.db.kysely, actor.scope, 'assets', page);
}
export function listSensors(deps: Deps, actor: UserActor, page: PageInput) {
  return pageCatalogue(deps.db.kysely, actor.scope, 'sensors', page);
}
