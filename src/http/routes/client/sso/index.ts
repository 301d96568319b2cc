import { SignInData } from '../auth/responses';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import type { AppContext } from '../../../state';
import type { Deps } from '#deps';
import type { RequestMeta } from '#services/actor';
import { completeOidcSignIn, exchangeSsoCode, findOidcProvider, OIDC_CALLBACK_PATH, startOidcSignIn } from '#services/sso/oidc';
import { samlMetadata, samlSignIn, SAML_ACS_PATH, startSamlSignIn } from '#services/sso/saml';
import { signInLimit } from '../auth';
import { signInResponse } from '../auth/responses';

// Single sign-on (docs/api/contract.md 4.2). The start routes redirect (302) to the
// provider; the callback redirects to the provider's post-login URL with a
// one-time `code` (or `error`), which the web app exchanges for the sign-in.

/** The browser-binding cookie of a started OIDC sign-in: only the callback reads it. */
const SSO_COOKIE = 'wip_sso';

const ProviderName = z.string().min(1).max(64);

async function redirectToProvider(
  deps: Deps,
  ctx: AppContext,
  kind: 'oidc' | 'dynamics',
  name: string | undefined,
  meta: RequestMeta,
): Promise<undefined> {
  const row = await findOidcProvider(deps, kind, name);
  const { location, browserToken } = await startOidcSignIn(deps, row, meta);
  ctx.cookies.set(SSO_COOKIE, browserToken, {
    httpOnly: true,
    // Lax: sent on the provider's top-level redirect back to the callback
    sameSite: 'lax',
    secure: ctx.secure,
    path: OIDC_CALLBACK_PATH,
    signed: true,
    maxAge: 10 * 60_000,
    overwrite: true,
  });
  ctx.redirect(location);
  return undefined;
}

const startLimit = { max: 60, windowMs: 60_000 };

export const clientSsoRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/auth/oidc',
    operationId: 'startOidcSignIn',
    produces: { redirect: true },
    errors: ['NOT_FOUND'],
    summary:
      'Start an OpenID Connect sign-in: 302 to the provider named by ?provider= (authorization code + PKCE, state, nonce). Unknown provider → 404; provider unreachable → 503 SSO_UNAVAILABLE',
    auth: 'public',
    feature: 'sso',
    query: z.object({ provider: ProviderName }),
    rateLimit: startLimit,
    async handler({ deps, ctx, query, meta }) {
      return redirectToProvider(deps, ctx, 'oidc', query.provider, meta);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/vendor-dynamics',
    operationId: 'startVendorDynamicsSignIn',
    produces: { redirect: true },
    errors: ['NOT_FOUND'],
    summary:
      "Start a sign-in with the business-application vendor's identity platform (an OpenID Connect preset): 302 to the tenant's authority; ?provider= may be omitted when exactly one such provider exists",
    auth: 'public',
    feature: 'sso',
    query: z.object({ provider: ProviderName.optional() }),
    rateLimit: startLimit,
    async handler({ deps, ctx, query, meta }) {
      return redirectToProvider(deps, ctx, 'dynamics', query.provider, meta);
    },
  }),
  defineRoute({
    method: 'get',
    path: OIDC_CALLBACK_PATH,
    operationId: 'completeOidcSignIn',
    errors: ['SSO_FAILED', 'NOT_FOUND'],
    produces: { redirect: true },
    summary:
      "The OpenID Connect redirect URI (enter it at the provider): checks state, browser, code and ID token, then 302 to the provider's post-login URL with ?code= (one-time, 60 s, for POST /api/client/auth/sso/exchange) or ?error=<code>",
    auth: 'public',
    query: z.looseObject({
      code: z.string().max(4096).optional(),
      state: z.string().max(512).optional(),
      error: z.string().max(512).optional(),
      error_description: z.string().max(4096).optional(),
      iss: z.string().max(2000).optional(),
    }),
    rateLimit: signInLimit,
    async handler({ deps, ctx, meta }) {
      const browserToken = ctx.cookies.get(SSO_COOKIE, { signed: true });
      ctx.cookies.set(SSO_COOKIE, null, { path: OIDC_CALLBACK_PATH, secure: ctx.secure, signed: true, overwrite: true });
      const outcome = await completeOidcSignIn(deps, new URLSearchParams(ctx.querystring), browserToken, meta);
      const target = new URL(outcome.postLoginUrl);
      if ('code' in outcome) target.searchParams.set('code', outcome.code);
      else target.searchParams.set('error', outcome.error.code);
      ctx.redirect(target.href);
      return undefined;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/sso/exchange',
    operationId: 'exchangeSsoCode',
    response: SignInData,
    errors: ['SSO_FAILED'],
    summary:
      'Exchange the one-time code of an SSO callback for the sign-in: the answer of POST /api/client/auth/sign-in (tokens, session and CSRF cookies, or a two-factor challenge). Unknown, used or expired code → 400 TOKEN_INVALID',
    auth: 'public',
    createsSession: true,
    body: z.object({ code: z.string().min(1).max(512) }),
    rateLimit: signInLimit,
    async handler({ deps, ctx, body, meta }) {
      return signInResponse(ctx, await exchangeSsoCode(deps, body.code, meta), 'v1');
    },
  }),
  defineRoute({
    method: 'post',
    path: SAML_ACS_PATH,
    operationId: 'receiveSamlAssertion',
    response: SignInData,
    errors: ['SSO_FAILED'],
    summary:
      'SAML sign-in: {samlResponse} (base64 Response from the IdP, IdP- or SP-initiated; provider only when several share one IdP issuer) → the answer of POST /api/client/auth/sign-in. Anything refused → 401 SSO_FAILED',
    auth: 'public',
    feature: 'sso',
    createsSession: true,
    body: z.object({
      samlResponse: z
        .string()
        .min(1)
        .max(1_000_000)
        .regex(/^[A-Za-z0-9+/=\s]+$/, 'base64'),
      provider: ProviderName.optional(),
    }),
    rateLimit: signInLimit,
    async handler({ deps, ctx, body, meta }) {
      return signInResponse(ctx, await samlSignIn(deps, body, meta), 'v1');
    },
  }),
  defineRoute({
    method: 'get',
    path: SAML_ACS_PATH,
    operationId: 'startSamlSignIn',
    produces: { redirect: true },
    errors: ['NOT_FOUND', 'SSO_UNAVAILABLE'],
    summary:
      "Start an SP-initiated SAML sign-in: 302 to the provider's entryPoint with an AuthnRequest (HTTP-Redirect binding); the response must name it in InResponseTo (10 minutes, once). No such provider or no entryPoint → 404",
    auth: 'public',
    feature: 'sso',
    query: z.object({ provider: ProviderName }),
    rateLimit: startLimit,
    async handler({ deps, ctx, query, meta }) {
      ctx.redirect(await startSamlSignIn(deps, query.provider, meta));
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: `${SAML_ACS_PATH}/metadata`,
    operationId: 'getSamlMetadata',
    produces: { type: 'application/samlmetadata+xml' },
    errors: ['NOT_FOUND'],
    summary: "The service provider's SAML metadata for ?provider= (entity id, ACS URL), for the IdP administrator",
    auth: 'public',
    query: z.object({ provider: ProviderName }),
    envelope: false,
    cacheControl: 'public, max-age=300',
    async handler({ deps, ctx, query }) {
      ctx.type = 'application/samlmetadata+xml';
      ctx.body = await samlMetadata(deps, query.provider);
      return undefined;
    },
  }),
];
