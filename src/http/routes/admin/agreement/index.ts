import { Agreement, Page } from '#presenters/schemas';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { mapPage } from '#db/pagination';
import { createAgreement, listAgreements, updateAgreement } from '#services/agreements';
import { presentAgreement } from '#presenters/agreements';
import { changedBy } from '#services/security-log';
import { CreateAgreement, ListAgreements, UpdateAgreement } from './schema';

export const adminAgreementRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/agreement',
    operationId: 'listAgreements',
    response: Page(Agreement),
    summary: 'List agreement versions (EULA and MSA), oldest first; ?kind=eula|msa',
    auth: 'admin',
    query: ListAgreements,
    async handler({ deps, query }) {
      return mapPage(await listAgreements(deps, query.kind, query), presentAgreement);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/agreement',
    operationId: 'createAgreement',
    response: Agreement,
    errors: ['CONFLICT'],
    summary:
      'Publish an agreement version: Markdown body and/or a PDF (fileId from POST /api/admin/upload, or pdfBase64), effective date, re-acceptance flag',
    auth: 'admin',
    body: CreateAgreement,
    status: 201,
    async handler({ deps, body, actor, meta }) {
      return presentAgreement(await createAgreement(deps, body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/agreement/:id',
    operationId: 'updateAgreement',
    response: Agreement,
    errors: ['CONFLICT'],
    summary: "Change an agreement version's title, body, PDF, effective date or re-acceptance flag",
    auth: 'admin',
    params: IdParams,
    body: UpdateAgreement,
    async handler({ deps, params, body, actor, meta }) {
      return presentAgreement(await updateAgreement(deps, params.id, body, changedBy(actor, meta)));
    },
  }),
];
