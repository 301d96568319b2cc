import { z } from 'zod';
import { Deleted } from '#presenters/schemas';
import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { tenantScope, type TenantScope } from '#db/tenant';
import { notFound } from '#errors';
import { getClient } from '#services/clients';
import { createProvider, deleteProvider, endpointsOf, listProviders, updateProvider, type SsoProvider } from '#services/sso/providers';
import type { Actor } from '#services/actor';
import type { Deps } from '#deps';
import { changedBy } from '#services/security-log';
import { CreateSsoProvider, SsoProviderParams, UpdateSsoProvider } from './schema';

// SSO providers of a client: its Security Administrator (own client
// only; another client's id is 404) or a system administrator.

async function clientScope(deps: Deps, actor: Actor, clientId: number): Promise<TenantScope> {
  if (actor.kind === 'user') {
    if (actor.clientId !== clientId) throw notFound('Client');
    return actor.scope;
  }
  return tenantScope((await getClient(deps, clientId)).id);
}

/** The API shape: never the secret, only whether one is set; the URLs to enter at the IdP. */
function present(deps: Deps, provider: SsoProvider) {
  const { oauthClientId, settings, issuer, ...rest } = provider;
  return {
    ...rest,
    ...(provider.kind === 'dynamics' || provider.kind === 'directory' ? { tenant: issuer } : { issuer }),
    clientId: oauthClientId,
    ...settings,
    endpoints: endpointsOf(deps, provider),
  };
}

/** `present`'s shape: the provider's settings vary by kind, so beyond these its fields are open. */
const SsoProviderData = z
  .object({
    id: z.number().int(),
    kind: z.string(),
    name: z.string(),
    clientId: z.string().nullable().optional(),
    endpoints: z.record(z.string(), z.unknown()),
  })
  .loose()
  .meta({ id: 'SsoProvider' });

export const adminSsoRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/client/:id/sso',
    operationId: 'listSsoProviders',
    response: z.array(SsoProviderData),
    summary:
      "The client's SSO providers (its Security Administrator, or a system administrator); client secrets are never shown, only hasClientSecret",
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    params: IdParams,
    async handler({ deps, actor, params }) {
      return (await listProviders(deps, await clientScope(deps, actor, params.id))).map((p) => present(deps, p));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/client/:id/sso',
    operationId: 'createSsoProvider',
    response: SsoProviderData,
    errors: ['CONFLICT'],
    summary:
      'Add an SSO provider (kind oidc, saml, dynamics or directory) with its issuer/tenant, client id and secret (sealed at rest), attribute mapping, just-in-time provisioning and post-login URL',
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    feature: 'sso',
    params: IdParams,
    body: CreateSsoProvider,
    status: 201,
    async handler({ deps, actor, params, body, meta }) {
      return present(deps, await createProvider(deps, await clientScope(deps, actor, params.id), body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/client/:id/sso/:providerId',
    operationId: 'updateSsoProvider',
    response: SsoProviderData,
    errors: ['CONFLICT'],
    summary: 'Change an SSO provider; omitted fields keep their values, clientSecret null removes the secret, the kind cannot change',
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    params: SsoProviderParams,
    body: UpdateSsoProvider,
    async handler({ deps, actor, params, body, meta }) {
      return present(
        deps,
        await updateProvider(deps, await clientScope(deps, actor, params.id), params.providerId, body, changedBy(actor, meta)),
      );
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/client/:id/sso/:providerId',
    operationId: 'deleteSsoProvider',
    response: Deleted,
    summary: 'Remove an SSO provider and the identity links it made (the users stay)',
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    params: SsoProviderParams,
    async handler({ deps, actor, params, meta }) {
      await deleteProvider(deps, await clientScope(deps, actor, params.id), params.providerId, changedBy(actor, meta));
      return { id: params.providerId, deleted: true };
    },
  }),
];
