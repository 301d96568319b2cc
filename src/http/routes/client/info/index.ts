import { Client } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { getClient } from '#services/clients';
import { currentLicense } from '#services/licensing/index';
import { findLogo, LOGO_PATH, logoUrl } from '#services/branding';
import { openContent } from '#services/files';
import { customerPortalLink, PORTAL_LINK_TTL_SECONDS } from '#services/integrations/customer-portal';
import { presentClient } from '#presenters';
import { FEATURES } from '#licensing/terms';
import { sendFile } from '../../../send-file';

export const clientInfoRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/client-info',
    operationId: 'getClientInfo',
    response: Client.extend({
      onPremise: z.boolean(),
      evaluation: z.boolean(),
      readOnly: z.boolean(),
      branding: z.object({ displayName: z.string(), licensee: z.string().nullable(), logoUrl: z.string().nullable() }),
      featureFlags: z.record(z.string(), z.boolean()),
      features: z.array(z.string()),
    }).meta({ id: 'ClientInfo' }),
    summary:
      "The signed-in user's client and its configuration: branding {displayName, licensee, logoUrl}, feature flags {sso, graphql, push, reports, import-export, collaboration, integrations: boolean} from the license key (a route of a feature the key lacks answers 403 FEATURE_NOT_LICENSED), features (the key's list), evaluation and read-only flags",
    auth: 'user',
    async handler({ deps, actor, ctx }) {
      const [client, license] = await Promise.all([getClient(deps, actor.clientId), ctx.state.license ?? currentLicense(deps)]);
      return {
        ...presentClient(client),
        onPremise: true,
        evaluation: license.evaluation,
        readOnly: license.readOnly,
        branding: {
          displayName: client.name,
          licensee: license.terms.licensee?.name ?? null,
          logoUrl: logoUrl(client.logo_file_id),
        },
        featureFlags: Object.fromEntries(FEATURES.map((feature) => [feature, license.terms.features.includes(feature)])),
        features: license.terms.features,
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: LOGO_PATH,
    operationId: 'getLogoByOwner',
    errors: ['NOT_FOUND'],
    produces: { type: ['image/png', 'image/jpeg', 'image/svg+xml', 'image/webp', 'image/gif'], etag: true, ranges: true },
    summary:
      "The client's logo, or with ?organizationId= that organization's (its own, else the client's): the image bytes with a strong ETag (If-None-Match → 304); 404 when none is set (set with PUT /api/admin/client/:id)",
    auth: 'user',
    query: z.object({ organizationId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional() }),
    // revalidate every time (a changed logo shows at once), but cheaply: 304 by ETag
    cacheControl: 'private, no-cache',
    async handler({ deps, actor, query, ctx }) {
      const file = await findLogo(deps, actor.scope, query.organizationId);
      await sendFile(ctx, file, (range) => openContent(deps, file, range));
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/customer-portal',
    operationId: 'getCustomerPortal',
    response: z.object({ url: z.string(), expiresAt: z.string() }),
    errors: ['INTEGRATION_NOT_CONFIGURED'],
    summary: `A signed link into the vendor's customer portal for the caller's client (Security Administrators): {url, expiresAt}; the url carries ?token= (JWT HS256 with customerPortalSecret, valid ${PORTAL_LINK_TTL_SECONDS / 60} minutes, single-use jti); 503 INTEGRATION_NOT_CONFIGURED without customerPortalUrl and customerPortalSecret`,
    auth: 'user',
    permission: 'administerSecurity',
    rateLimit: principalBudget('customer-portal', 30, 60_000),
    async handler({ deps, actor }) {
      return customerPortalLink(deps, actor);
    },
  }),
];
