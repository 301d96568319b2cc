import type { Deps } from '../deps';
import type { ClientRow, LicenseRow } from '../db/schema';
import type { Page, PageInput } from '../db/pagination';
import { tenantScope } from '../db/tenant';
import { withTransaction } from '../db/transaction';
import { fieldError, notFound } from '../errors';
import { SECURITY_ADMIN, type LicenseType } from '../policies/roles';
import {
  deleteClient as deleteClientRow,
  getClientById,
  insertClient,
  listClients as listClientRows,
  updateClient as updateClientRow,
} from '../repos/clients';
import { insertLicense } from '../repos/licenses';
import { getUserById, insertUser, normalizeEmail, setUserRoles, type UserWithRoles } from '../repos/users';
import { sendInvitation } from './mail';
import { assertPasswordAllowed, DEFAULT_SECURITY_SETTINGS } from './security-settings';
import { assertAllocationsWithinLicense, assertClientAllowed, currentLicense } from './licensing';
import { emitEvent } from '../events/emit';
import { presentClient } from '../presenters';

export interface CreateClientInput {
  name: string;
  owner: { email: string; firstName?: string; lastName?: string; password?: string };
  seats?: Partial<Record<LicenseType, number>>;
  /** where a password-policy failure points (self-service create-account names its own field) */
  passwordField?: string;
}

export interface CreatedClient {
  client: ClientRow;
  owner: UserWithRoles;
  licenses: LicenseRow[];
}

/**
 * Creates a client with a seat allocation per license type given (default one
 * full seat) and its owner: a Security Administrator on a full seat, within
 * the on-prem license (max clients, total seats).
 * @throws AppError VALIDATION_ERROR when no full seat is allocated for the owner,
 *   LICENSE_CLIENTS_EXHAUSTED, LICENSE_SEATS_EXHAUSTED
 */
export async function createClient(deps: Deps, input: CreateClientInput): Promise<CreatedClient> {
  const seats = input.seats ?? { full: 1 };
  if ((seats.full ?? 0) < 1) throw fieldError('seats.full', 'at least one full seat is needed for the owner');
  if (input.owner.password !== undefined) {
    assertPasswordAllowed(DEFAULT_SECURITY_SETTINGS, input.owner.password, input.passwordField ?? 'body.owner.password', input.owner.email);
  }
  const passwordHash = input.owner.password === undefined ? null : await deps.passwords.hash(input.owner.password);
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const { terms } = await currentLicense(deps);
  return withTransaction(deps.db, async (trx, afterCommit) => {
    await assertClientAllowed(trx, terms);
    const client = await insertClient(trx, input.name.trim(), nowIso);
    const scope = tenantScope(client.id);
    const licenses: LicenseRow[] = [];
    for (const [licenseType, count] of Object.entries(seats)) {
      if (count === undefined || count === 0) continue;
      licenses.push(await insertLicense(trx, scope, { license_type: licenseType, seats: count, expires_at: null }, nowIso));
    }
    await assertAllocationsWithinLicense(trx, terms, nowIso, licenses.map((l) => l.license_type));
    const ownerRow = await insertUser(trx, scope, {
      email: input.owner.email.trim(),
      email_normalized: normalizeEmail(input.owner.email),
      first_name: input.owner.firstName ?? '',
      last_name: input.owner.lastName ?? '',
      title: '',
      license_type: 'full',
      status: passwordHash ? 'active' : 'invited',
      password_hash: passwordHash,
      available_to_org: '[]',
      created_at: nowIso,
      updated_at: nowIso,
    });
    await setUserRoles(trx, scope, ownerRow.id, [SECURITY_ADMIN]);
    if (!passwordHash) await sendInvitation(deps, trx, afterCommit, { scope, user: ownerRow, clientName: client.name, now });
    await emitEvent({ deps, trx, afterCommit }, null, 'client.created', presentClient(client));
    return { client, owner: await getUserById(trx, scope, ownerRow.id), licenses };
  });
}

export async function listClients(deps: Deps, page: PageInput & { search?: string }): Promise<Page<ClientRow>> {
  return listClientRows(deps.db.kysely, page);
}

export async function getClient(deps: Deps, id: number): Promise<ClientRow> {
  return getClientById(deps.db.kysely, id);
}

export async function updateClient(deps: Deps, id: number, changes: { name?: string }): Promise<ClientRow> {
  return updateClientRow(deps.db.kysely, id, { ...(changes.name !== undefined && { name: changes.name.trim() }) }, deps.clock.now().toISOString());
}

/** Deletes the client with its users, sessions and data. @throws AppError NOT_FOUND */
export async function deleteClient(deps: Deps, id: number): Promise<void> {
  await withTransaction(deps.db, async (trx, afterCommit) => {
    const client = await getClientById(trx, id);
    if (!(await deleteClientRow(trx, id))) throw notFound('Client');
    await emitEvent({ deps, trx, afterCommit }, null, 'client.deleted', presentClient(client));
  });
}
