import { AgreementStatus, MsaAccepted } from '#presenters/schemas';
import { defineRoute, type RouteSpec } from '../../../route';
import { hasAnyRole, SECURITY_ADMIN } from '#policies/roles';
import { acceptAgreement, eulaStatus, msaStatus, openMsaDocument } from '#services/agreements';
import { presentAgreementStatus, presentMsaAccepted } from '#presenters/agreements';
import { AcceptAgreement } from './schema';

const FIFTEEN_MINUTES = 15 * 60 * 1000;

export const clientAgreementRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/eula',
    operationId: 'getEula',
    response: AgreementStatus,
    summary: "The current EULA and the signed-in user's acceptance of it",
    auth: 'user',
    async handler({ deps, actor }) {
      return presentAgreementStatus(await eulaStatus(deps, actor));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/eula/accept',
    operationId: 'acceptEula',
    response: AgreementStatus,
    errors: ['CONFLICT'],
    summary: 'Accept the current EULA (recorded per user with time, IP, user agent and version)',
    auth: 'user',
    body: AcceptAgreement,
    async handler({ deps, actor, body, meta }) {
      return presentAgreementStatus(await acceptAgreement(deps, 'eula', actor, body.version, meta));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/agreement',
    operationId: 'getAgreement',
    response: AgreementStatus,
    summary: "The current master services agreement (MSA) and the client's acceptance of it",
    auth: 'user',
    async handler({ deps, actor }) {
      // the accepting administrator's IP and user agent are for Security Administrators only
      return presentAgreementStatus(await msaStatus(deps, actor.scope), hasAnyRole(actor.roles, [SECURITY_ADMIN]));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/accept-msa',
    operationId: 'acceptMsa',
    response: AgreementStatus,
    errors: ['CONFLICT'],
    summary: 'Security Administrator: accept the current MSA for the client',
    auth: 'user',
    permission: 'administerSecurity',
    body: AcceptAgreement,
    async handler({ deps, actor, body, meta }) {
      return presentAgreementStatus(await acceptAgreement(deps, 'msa', actor, body.version, meta));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/have-client-accepted-msa',
    operationId: 'getMsaAcceptance',
    response: MsaAccepted,
    summary: 'Whether the client has accepted the current MSA: {accepted, version, acceptedAt, acceptedBy}',
    auth: 'user',
    async handler({ deps, actor }) {
      return presentMsaAccepted(await msaStatus(deps, actor.scope));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/download-agreement',
    operationId: 'downloadAgreement',
    errors: ['NOT_FOUND'],
    produces: { type: 'application/pdf', attachment: true },
    summary: 'Download the current MSA as PDF (the uploaded file, or rendered from its Markdown); 20 requests per 15 minutes per user',
    auth: 'user',
    cacheControl: 'private, no-store',
    rateLimit: {
      max: 20,
      windowMs: FIFTEEN_MINUTES,
      key: (ctx) => (ctx.state.actor?.kind === 'user' ? `user:${ctx.state.actor.userId}` : `ip:${ctx.ip}`),
    },
    async handler({ deps, ctx }) {
      const document = await openMsaDocument(deps);
      ctx.attachment(document.fileName);
      ctx.type = 'application/pdf';
      if (document.size !== undefined) ctx.length = document.size;
      ctx.body = document.stream;
      return undefined;
    },
  }),
];
