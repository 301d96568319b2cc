import { z } from 'zod';
import { Deleted, License, Page } from '#presenters/schemas';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { mapPage } from '#db/pagination';
import { clientNamesOf, createLicense, deleteLicense, listLicenses, updateLicense } from '#services/licensing/seat-allocations';
import { presentLicense } from '#presenters';
import { changedBy } from '#services/security-log';
import { CreateLicense, ListLicenses, UpdateLicense } from './schema';

export const adminLicenseRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/license',
    operationId: 'listLicenses',
    response: Page(License.extend({ clientName: z.string().nullable() })),
    summary: 'List seat licenses (each with its clientName), of one client with ?clientId= or of all',
    auth: 'admin',
    query: ListLicenses,
    async handler({ deps, query }) {
      const page = await listLicenses(deps, query.clientId, query);
      const names = await clientNamesOf(deps, page.items);
      return mapPage(page, (license) => ({ ...presentLicense(license), clientName: names.get(license.client_id) ?? null }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/license',
    operationId: 'createLicense',
    response: License,
    errors: ['LICENSE_SEATS_EXHAUSTED', 'CONFLICT'],
    summary: 'Allocate seats of a license type to a client',
    auth: 'admin',
    body: CreateLicense,
    status: 201,
    async handler({ deps, body, actor, meta }) {
      return presentLicense(await createLicense(deps, body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/license/:id',
    operationId: 'updateLicense',
    response: License,
    errors: ['LICENSE_SEATS_EXHAUSTED', 'CONFLICT'],
    summary: 'Change a seat license; refused when fewer seats would remain than users hold',
    auth: 'admin',
    params: IdParams,
    body: UpdateLicense,
    async handler({ deps, params, body, actor, meta }) {
      return presentLicense(await updateLicense(deps, params.id, body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/license/:id',
    operationId: 'deleteLicense',
    response: Deleted,
    errors: ['CONFLICT'],
    summary: 'Delete a seat license; refused when its seats are in use',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params, actor, meta }) {
      await deleteLicense(deps, params.id, changedBy(actor, meta));
      return { id: params.id, deleted: true };
    },
  }),
];
