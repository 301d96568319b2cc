import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, LicenseRow } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import { tenantScope, type TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { conflict, notFound } from '#errors';
import type { LicenseType } from '#policies/roles';
import { findClientsByIds, getClientById } from '#repos/clients';
import {
  allocatedSeats,
  deleteLicense as deleteLicenseRow,
  findLicenseByIdAcrossClients,
  insertLicense,
  listLicenses as listLicenseRows,
  listLicensesAcrossClients,
  updateLicense as updateLicenseRow,
  usedSeats,
} from '#repos/licensing/seat-allocations';
import { assertAllocationsWithinLicense, currentLicense } from '.';
import { emitEvent, type EventTx } from '#events/emit';
import { presentLicense } from '#presenters';
import { recordChange, type ChangedBy } from '../security-log';

/** A seat allocation's security event (license.seats_allocated, _changed, _deleted) with its fields before and after. */
async function seatsRecorded(
  tx: EventTx,
  by: ChangedBy,
  event: string,
  message: (client: string) => string,
  before: LicenseRow | null,
  after: LicenseRow | null,
) {
  const row = (after ?? before)!;
  const fields = (l: LicenseRow | null) => (l ? { licenseType: l.license_type, seats: l.seats, expiresAt: l.expires_at } : null);
  // the client by name: an auditor reads "Acme", not "client 3"
  const client = await getClientById(tx.trx, row.client_id);
  await recordChange(tx, by, {
    event,
    message: message(`"${client.name}"`),
    clientId: row.client_id,
    target: { type: 'license', id: row.id },
    before: fields(before),
    after: fields(after),
  });
}

/** license.changed: the client sees its seat allocations move. */
function licenseChanged(tx: EventTx, change: 'created' | 'updated' | 'deleted', license: LicenseRow) {
  return emitEvent(tx, tenantScope(license.client_id), 'license.changed', { change, license: presentLicense(license) });
}

// Licenses are seat allocations of one license type for one client; a client's
// seats of a type are the sum of its unexpired licenses of that type.

export async function listLicenses(deps: Deps, clientId: number | undefined, page: PageInput): Promise<Page<LicenseRow>> {
  if (clientId === undefined) return listLicensesAcrossClients(deps.db.kysely, page);
  await getClientById(deps.db.kysely, clientId);
  return listLicenseRows(deps.db.kysely, tenantScope(clientId), page);
}

/** The names of the clients of a page of licenses (the console shows names, not ids). */
export async function clientNamesOf(deps: Deps, licenses: readonly LicenseRow[]): Promise<Map<number, string>> {
  const ids = [...new Set(licenses.map((license) => license.client_id))];
  if (ids.length === 0) return new Map();
  return new Map((await findClientsByIds(deps.db.kysely, ids)).map((client) => [client.id, client.name]));
}

export interface LicenseInput {
  clientId: number;
  licenseType: LicenseType;
  seats: number;
  expiresAt?: string | null;
}

/**
 * Allocates seats to a client; all clients' allocations together stay within the on-prem license.
 * @throws AppError NOT_FOUND for an unknown client, LICENSE_SEATS_EXHAUSTED
 */
export async function createLicense(deps: Deps, input: LicenseInput, by: ChangedBy): Promise<LicenseRow> {
  const nowIso = deps.clock.now().toISOString();
  const { terms } = await currentLicense(deps);
  return withTransaction(deps.db, async (trx, afterCommit) => {
    await getClientById(trx, input.clientId);
    const row = await insertLicense(
      trx,
      tenantScope(input.clientId),
      { license_type: input.licenseType, seats: input.seats, expires_at: input.expiresAt ?? null },
      nowIso,
    );
    await assertAllocationsWithinLicense(trx, terms, nowIso, input.seats > 0 ? [input.licenseType] : []);
    await licenseChanged({ deps, trx, afterCommit }, 'created', row);
    await seatsRecorded(
      { deps, trx, afterCommit },
      by,
      'license.seats_allocated',
      (client) => `${row.seats} ${row.license_type} seats allocated to client ${client}`,
      null,
      row,
    );
    return row;
  });
}

/**
 * Changes a license. Refuses a change that would leave fewer seats than users
 * holding them (delete or change those users first), or that takes all
 * clients' allocations past the on-prem license.
 * @throws AppError NOT_FOUND, CONFLICT, LICENSE_SEATS_EXHAUSTED
 */
export async function updateLicense(
  deps: Deps,
  id: number,
  changes: { licenseType?: LicenseType; seats?: number; expiresAt?: string | null },
  by: ChangedBy,
): Promise<LicenseRow> {
  const nowIso = deps.clock.now().toISOString();
  const { terms } = await currentLicense(deps);
  return withTransaction(deps.db, async (trx, afterCommit) => {
    const current = await findLicenseByIdAcrossClients(trx, id);
    if (!current) throw notFound('License');
    const scope = tenantScope(current.client_id);
    const updated = await updateLicenseRow(
      trx,
      scope,
      id,
      {
        ...(changes.licenseType !== undefined && { license_type: changes.licenseType }),
        ...(changes.seats !== undefined && { seats: changes.seats }),
        ...(changes.expiresAt !== undefined && { expires_at: changes.expiresAt }),
      },
      nowIso,
    );
    await assertSeatsCoverUsers(trx, scope, nowIso, [current.license_type, updated.license_type]);
    const counted = (row: LicenseRow) => (row.expires_at === null || row.expires_at > nowIso ? row.seats : 0);
    const grew = updated.license_type !== current.license_type ? counted(updated) > 0 : counted(updated) > counted(current);
    await assertAllocationsWithinLicense(trx, terms, nowIso, grew ? [updated.license_type] : []);
    await licenseChanged({ deps, trx, afterCommit }, 'updated', updated);
    await seatsRecorded(
      { deps, trx, afterCommit },
      by,
      'license.seats_changed',
      (client) => `Seat allocation ${id} of client ${client} changed`,
      current,
      updated,
    );
    return updated;
  });
}

/** @throws AppError NOT_FOUND, CONFLICT */
export async function deleteLicense(deps: Deps, id: number, by: ChangedBy): Promise<void> {
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, async (trx, afterCommit) => {
    const current = await findLicenseByIdAcrossClients(trx, id);
    if (!current) throw notFound('License');
    const scope = tenantScope(current.client_id);
    await deleteLicenseRow(trx, scope, id);
    await assertSeatsCoverUsers(trx, scope, nowIso, [current.license_type]);
    await licenseChanged({ deps, trx, afterCommit }, 'deleted', current);
    await seatsRecorded(
      { deps, trx, afterCommit },
      by,
      'license.seats_deleted',
      (client) => `Seat allocation ${id} of client ${client} (${current.seats} ${current.license_type}) deleted`,
      current,
      null,
    );
  });
}

async function assertSeatsCoverUsers(trx: Kysely<DB>, scope: TenantScope, nowIso: string, types: string[]): Promise<void> {
  const [allocated, used] = await Promise.all([allocatedSeats(trx, scope, nowIso), usedSeats(trx, scope)]);
  for (const type of new Set(types)) {
    const a = allocated.get(type) ?? 0;
    const u = used.get(type) ?? 0;
    if (u > a) {
      throw conflict(`${u} users hold "${type}" seats; the change would leave ${a}`, { licenseType: type, used: u, allocated: a });
    }
  }
}
