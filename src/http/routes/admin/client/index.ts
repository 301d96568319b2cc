import { z } from 'zod';
import { Client, Deleted, License, Page, UserWithInvitation } from '#presenters/schemas';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { mapPage } from '#db/pagination';
import { createClient, deleteClient, getClient, listClients, updateClient } from '#services/clients';
import { presentClient, presentLicense, presentUser } from '#presenters';
import { changedBy } from '#services/security-log';
import { ClientListQuery, CreateClient, UpdateClient } from './schema';
import { invitationNotice } from '#services/invitation-links';
import type { Deps } from '#deps';
import type { UserWithRoles } from '#repos/users';

/**
 * An owner created without a password is invited: the answer says where the invitation went. Nobody of
 * the new client can take its link out of the outbox yet (that is a Security Administrator's), so without
 * a mail server the console suggests giving the owner a password instead.
 */
function ownerAnswer(deps: Deps, owner: UserWithRoles) {
  if (owner.status !== 'invited') return presentUser(owner);
  return { ...presentUser(owner), invitation: { ...invitationNotice(deps), linkRevealable: false } };
}

export const adminClientRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/client',
    operationId: 'listClients',
    response: Page(Client),
    summary: 'List clients (tenants), oldest first; `search` keeps those whose name contains it',
    auth: 'admin',
    query: ClientListQuery,
    async handler({ deps, query }) {
      return mapPage(await listClients(deps, query), presentClient);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/client/:id',
    operationId: 'getClient',
    response: Client,
    summary: 'Get a client by id (the console names it on its pages)',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params }) {
      return presentClient(await getClient(deps, params.id));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/client',
    operationId: 'createClient',
    response: Client.extend({ owner: UserWithInvitation, licenses: z.array(License) }).meta({ id: 'CreatedClient' }),
    errors: ['CONFLICT', 'LICENSE_CLIENTS_EXHAUSTED', 'LICENSE_SEATS_EXHAUSTED'],
    summary: 'Create a client with its seat licenses and its owner (a Security Administrator)',
    auth: 'admin',
    body: CreateClient,
    status: 201,
    async handler({ deps, body, actor, meta }) {
      const created = await createClient(deps, body, changedBy(actor, meta));
      return {
        ...presentClient(created.client),
        owner: ownerAnswer(deps, created.owner),
        licenses: created.licenses.map(presentLicense),
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/client/:id',
    operationId: 'updateClient',
    response: Client,
    errors: ['CONFLICT', 'LICENSE_SEATS_EXHAUSTED'],
    summary:
      'Update a client: {name?, logoFileId? (a system file from POST /api/admin/upload: PNG, JPEG, GIF or WebP; null removes it), organizationLogos? [{organizationId, logoFileId|null}], timeZone? (IANA, the zone its schedules recur in)}; logos are served by GET /api/client/get-logo-by-owner',
    auth: 'admin',
    params: IdParams,
    body: UpdateClient,
    async handler({ deps, params, body, actor, meta }) {
      return presentClient(await updateClient(deps, params.id, body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/client/:id',
    operationId: 'deleteClient',
    response: Deleted,
    summary: 'Delete a client with its users, sessions and data',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params, actor, meta }) {
      await deleteClient(deps, params.id, changedBy(actor, meta));
      return { id: params.id, deleted: true };
    },
  }),
];
