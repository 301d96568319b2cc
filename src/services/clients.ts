import type { Deps } from '#deps';
import type { Kysely } from 'kysely';
import type { ClientRow, DB, LicenseRow } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import { tenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { fieldError, notFound } from '#errors';
import { appendAudit } from '#repos/audit';
import { findCatalogueRow, setOrganizationLogo } from '#repos/catalogue';
import { findSystemFileById } from '#repos/files';
import { LOGO_CONTENT_TYPES } from './branding';
import { SECURITY_ADMIN, type LicenseType } from '#policies/roles';
import {
  deleteClient as deleteClientRow,
  getClientById,
  insertClient,
  listClients as listClientRows,
  updateClient as updateClientRow,
} from '#repos/clients';
import { insertLicense } from '#repos/licensing/seat-allocations';
import { getUserById, insertUser, normalizeEmail, setUserRoles, type UserWithRoles } from '#repos/users';
import { sendInvitation } from './mail';
import { assertPasswordAllowed, DEFAULT_SECURITY_SETTINGS } from './security-settings';
import { assertAllocationsWithinLicense, assertClientAllowed, currentLicense } from './licensing';
import { emitEvent } from '#events/emit';
import { presentClient } from '#presenters';
import { recordChange, type ChangedBy } from './security-log';

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
export async function createClient(deps: Deps, input: CreateClientInput, by?: ChangedBy): Promise<CreatedClient> {
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
    await assertAllocationsWithinLicense(
      trx,
      terms,
      nowIso,
      licenses.map((l) => l.license_type),
    );
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
    // a system administrator's creation (self-service records account.created instead)
    if (by) {
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'client.created',
        message: `Client "${client.name}" created with owner ${ownerRow.email}`,
        clientId: client.id,
        target: { type: 'client', id: client.id },
        after: { name: client.name, owner: ownerRow.email, seats: Object.fromEntries(licenses.map((l) => [l.license_type, l.seats])) },
      });
    }
    return { client, owner: await getUserById(trx, scope, ownerRow.id), licenses };
  });
}

export async function listClients(deps: Deps, page: PageInput & { search?: string }): Promise<Page<ClientRow>> {
  return listClientRows(deps.db.kysely, page);
}

export async function getClient(deps: Deps, id: number): Promise<ClientRow> {
  return getClientById(deps.db.kysely, id);
}

export interface BrandingChanges {
  name?: string;
  /** a system file (POST /api/admin/upload); null removes the logo */
  logoFileId?: number | null;
  /** per organization of the client: a system file, or null to fall back to the client's logo */
  organizationLogos?: { organizationId: number; logoFileId: number | null }[];
  /** the IANA time zone the client's schedules recur in */
  timeZone?: string;
}

/**
 * Updates a client's name and logos (PUT /api/admin/client/:id), in one
 * transaction with an audit entry per logo change. A logo must be an uploaded
 * system file of a raster image type; an organization must be the client's.
 * @throws AppError NOT_FOUND (client), VALIDATION_ERROR (file or organization)
 */
export async function updateClient(deps: Deps, clientId: number, changes: BrandingChanges, by: ChangedBy): Promise<ClientRow> {
  const nowIso = deps.clock.now().toISOString();
  const scope = tenantScope(clientId);
  const actor = { label: `${by.actor.kind}:${by.actor.id ?? by.actor.name}` };
  return withTransaction(deps.db, { lockClient: scope.clientId }, async (trx, afterCommit) => {
    const before = await getClientById(trx, clientId);
    if (changes.logoFileId != null) await assertLogoFile(trx, changes.logoFileId, 'body.logoFileId');
    const client = await updateClientRow(
      trx,
      clientId,
      {
        ...(changes.name !== undefined && { name: changes.name.trim() }),
        ...(changes.logoFileId !== undefined && { logo_file_id: changes.logoFileId }),
        ...(changes.timeZone !== undefined && { time_zone: changes.timeZone }),
      },
      nowIso,
    );
    if (changes.logoFileId !== undefined && changes.logoFileId !== before.logo_file_id) {
      await appendAudit(trx, scope, {
        actor,
        action: 'client.logo.set',
        entityType: 'client',
        entityId: clientId,
        before: { logoFileId: before.logo_file_id },
        after: { logoFileId: changes.logoFileId },
        at: nowIso,
      });
    }
    if (changes.timeZone !== undefined && changes.timeZone !== before.time_zone) {
      // schedules recur in this zone: their next occurrences move with it
      await appendAudit(trx, scope, {
        actor,
        action: 'client.time_zone.set',
        entityType: 'client',
        entityId: clientId,
        before: { timeZone: before.time_zone },
        after: { timeZone: changes.timeZone },
        at: nowIso,
      });
    }
    for (const [index, { organizationId, logoFileId }] of (changes.organizationLogos ?? []).entries()) {
      const organization = await findCatalogueRow(trx, scope, 'organizations', organizationId);
      if (!organization)
        throw fieldError(`body.organizationLogos.${index}.organizationId`, `organization ${organizationId} does not exist in this client`);
      if (logoFileId !== null) await assertLogoFile(trx, logoFileId, `body.organizationLogos.${index}.logoFileId`);
      await setOrganizationLogo(trx, scope, organizationId, logoFileId, nowIso);
      await appendAudit(trx, scope, {
        actor,
        action: 'organization.logo.set',
        entityType: 'organization',
        entityId: organizationId,
        before: { logoFileId: organization.logo_file_id },
        after: { logoFileId },
        at: nowIso,
      });
    }
    await recordChange({ deps, trx, afterCommit }, by, {
      event: 'client.updated',
      message: `Client "${client.name}" changed`,
      clientId,
      target: { type: 'client', id: clientId },
      before: presentClient(before),
      after: presentClient(client),
      ...(changes.organizationLogos?.length && { data: { organizationLogos: changes.organizationLogos } }),
    });
    return client;
  });
}

async function assertLogoFile(trx: Kysely<DB>, fileId: number, field: string): Promise<void> {
  const file = await findSystemFileById(trx, fileId);
  if (!file) throw fieldError(field, `file ${fileId} does not exist (upload logos with POST /api/admin/upload)`);
  if (!(LOGO_CONTENT_TYPES as readonly string[]).includes(file.content_type)) {
    throw fieldError(field, `a logo must be one of ${LOGO_CONTENT_TYPES.join(', ')}; file ${fileId} is ${file.content_type}`);
  }
}

/** Deletes the client with its users, sessions and data. @throws AppError NOT_FOUND */
export async function deleteClient(deps: Deps, id: number, by: ChangedBy): Promise<void> {
  await withTransaction(deps.db, { lockClient: id }, async (trx, afterCommit) => {
    const client = await getClientById(trx, id);
    if (!(await deleteClientRow(trx, id))) throw notFound('Client');
    await emitEvent({ deps, trx, afterCommit }, null, 'client.deleted', presentClient(client));
    await recordChange({ deps, trx, afterCommit }, by, {
      level: 'warn',
      event: 'client.deleted',
      message: `Client "${client.name}" deleted with its users and data`,
      clientId: id,
      target: { type: 'client', id },
      before: presentClient(client),
    });
  });
}
