import type * as OpenId from 'openid-client';
import type { Deps } from '#deps';
import type { SsoProviderRow } from '#db/schema';
import { tenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { AppError, notFound } from '#errors';
import { hashToken, randomToken, safeEqual } from '#lib/tokens';
import { LruCache } from '#lib/lru';
import { publicBaseUrl } from '#mail/templates';
import { findSsoProvider, findSsoProviderByName, insertSsoPending, listEnabledSsoProvidersOfKind, takeSsoPending } from '#repos/sso';
import type { RequestMeta } from '../actor';
import { issueUserToken } from '../user-tokens';
import { idpFetch, isLoopbackHttp, isUnreachableError } from './outbound';
import { assertSsoNotLocked, claimList, claimText, ssoRefused, userForIdentity, type AssertedIdentity } from './identities';
import { clientSecretOf, DEFAULT_OIDC_SCOPES, DYNAMICS_AUTHORITY_TEMPLATE, ssoSecretBox, toProvider } from './providers';
import { signInWithVerifiedIdentity, type SignInResult, type TwoFactorChallenge } from '../auth';
import { consumeUserToken, findValidUserToken } from '../user-tokens';

/**
 * OpenID Connect sign-in (authorization code + PKCE, state and nonce) through
 * `openid-client`: discovery, the token exchange and every ID-token check
 * (issuer, audience, expiry, nonce, and — non-repudiation checks on — the JWS
 * signature against the provider's JWKS). The business-application vendor's
 * identity platform is the same protocol with a tenant-specific authority
 * (kind `dynamics`).
 */

export const OIDC_CALLBACK_PATH = '/api/client/auth/oidc/callback';
/** how long a started sign-in may take at the provider */
const PENDING_TTL_MS = 10 * 60_000;
/** how long the one-time code handed to the web app lives */
export const SSO_CODE_TTL_MS = 60_000;
/** discovery documents and keys are reread after this long (or when the provider record changes) */
const CONFIGURATION_TTL_MS = 60 * 60_000;
/** seconds openid-client waits for the provider */
const PROVIDER_TIMEOUT_S = 10;

type OidcKind = 'oidc' | 'dynamics';

/** openid-client is loaded with the first OpenID sign-in: its modules are a measurable part of every start otherwise */
let openIdClient: typeof OpenId | undefined;
const oidc = (): typeof OpenId => (openIdClient ??= require('openid-client') as typeof OpenId);

/**
 * configurations kept at most (the oldest is forgotten first, and rediscovered if used again): a provider's entry
 * holds its discovery document, whose size the provider chooses, and providers come and go (a deleted one's id is
 * never asked for again, so only a bound frees it)
 */
const MAX_CONFIGURATIONS = 100;

// per Deps (tests run many servers in one process): provider id → discovered configuration
const configurations = new WeakMap<Deps, LruCache<number, { version: string; at: number; config: Promise<OpenId.Configuration> }>>();

/** The issuer URL discovery starts from. */
export function issuerUrlOf(row: SsoProviderRow): URL {
  if (row.kind === 'dynamics') {
    const template = toProvider(row).settings.authorityUrlTemplate ?? DYNAMICS_AUTHORITY_TEMPLATE;
    return new URL(template.replace('{tenant}', encodeURIComponent(row.issuer)));
  }
  return new URL(row.issuer);
}

const unavailable = (cause?: unknown) =>
  new AppError('SSO_UNAVAILABLE', 'The identity provider cannot be reached; try again later', undefined, { cause });

async function configurationFor(deps: Deps, row: SsoProviderRow): Promise<OpenId.Configuration> {
  let perDeps = configurations.get(deps);
  if (!perDeps) configurations.set(deps, (perDeps = new LruCache(MAX_CONFIGURATIONS)));
  const cached = perDeps.get(row.id);
  const now = Date.now();
  if (cached && cached.version === row.updated_at && now - cached.at < CONFIGURATION_TTL_MS) return cached.config;
  const issuer = issuerUrlOf(row);
  const secret = clientSecretOf(deps, row);
  const config = oidc()
    .discovery(
      issuer,
      row.oauth_client_id,
      secret ?? { token_endpoint_auth_method: 'none' },
      secret === undefined ? oidc().None() : undefined,
      {
        // idpFetch refuses plain http except on loopback, and addresses outside ssoAllowedNetworks
        execute: [...(isLoopbackHttp(issuer) ? [oidc().allowInsecureRequests] : []), oidc().enableNonRepudiationChecks],
        timeout: PROVIDER_TIMEOUT_S,
        [oidc().customFetch]: idpFetch(deps),
      },
    )
    .catch((error: unknown) => {
      perDeps.delete(row.id);
      deps.logger.warn({ provider: row.name, error: describe(error) }, 'OIDC discovery failed');
      throw unavailable(error);
    });
  perDeps.set(row.id, { version: row.updated_at, at: now, config });
  return config;
}

/** The enabled provider of this kind by name; `dynamics` may omit the name when there is exactly one. @throws AppError NOT_FOUND */
export async function findOidcProvider(deps: Deps, kind: OidcKind, name: string | undefined): Promise<SsoProviderRow> {
  let row: SsoProviderRow | undefined;
  if (name !== undefined) row = await findSsoProviderByName(deps.db.kysely, name);
  else if (kind === 'dynamics') {
    const all = await listEnabledSsoProvidersOfKind(deps.db.kysely, 'dynamics');
    row = all.length === 1 ? all[0] : undefined;
  }
  if (!row || row.kind !== kind || row.enabled !== 1) throw notFound('SSO provider');
  return row;
}

/**
 * Starts a sign-in: a pending record (hash of `state`, the PKCE verifier and
 * nonce sealed) bound to the browser by a random value the route sets as a
 * cookie, and the provider's authorization URL to redirect to.
 * @throws AppError NOT_FOUND, SSO_UNAVAILABLE, TOO_MANY_ATTEMPTS
 */
export async function startOidcSignIn(
  deps: Deps,
  row: SsoProviderRow,
  meta: RequestMeta,
): Promise<{ location: string; browserToken: string }> {
  await assertSsoNotLocked(deps, row.name, meta);
  const config = await configurationFor(deps, row);
  const codeVerifier = oidc().randomPKCECodeVerifier();
  const state = oidc().randomState();
  const nonce = oidc().randomNonce();
  const browserToken = randomToken();
  const now = deps.clock.now();
  await insertSsoPending(
    deps.db.kysely,
    tenantScope(row.client_id),
    {
      provider_id: row.id,
      handle: hashToken(state),
      browser_hash: hashToken(browserToken),
      secrets: ssoSecretBox(deps).seal(JSON.stringify({ codeVerifier, nonce })),
      expires_at: new Date(now.getTime() + PENDING_TTL_MS).toISOString(),
    },
    now.toISOString(),
  );
  const scopes = toProvider(row).settings.scopes ?? DEFAULT_OIDC_SCOPES;
  const url = oidc().buildAuthorizationUrl(config, {
    redirect_uri: publicBaseUrl(deps) + OIDC_CALLBACK_PATH,
    scope: [...new Set(['openid', ...scopes])].join(' '),
    code_challenge: await oidc().calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { location: url.href, browserToken };
}

export type CallbackOutcome = { postLoginUrl: string } & ({ code: string } | { error: AppError });

/**
 * Completes a sign-in at the callback: the state must name a pending sign-in
 * started by this browser (used once, within 10 minutes); the code is
 * exchanged with the PKCE verifier and the ID token checked. The user is found
 * or provisioned, and a one-time code (60 s) for the web app is issued —
 * tokens never travel in a URL. Errors after the pending sign-in is known come
 * back as an outcome, for a redirect to the post-login URL with `error=`.
 * @throws AppError SSO_FAILED (no, unknown, used or expired state)
 */
export async function completeOidcSignIn(
  deps: Deps,
  query: URLSearchParams,
  browserToken: string | undefined,
  meta: RequestMeta,
): Promise<CallbackOutcome> {
  const state = query.get('state');
  const pending = state ? await takeSsoPending(deps.db.kysely, hashToken(state)) : undefined;
  if (!pending || pending.expires_at <= deps.clock.now().toISOString()) {
    throw await ssoRefused(deps, { name: 'oidc-callback' }, state ? 'unknown, used or expired state' : 'no state', meta);
  }
  const scope = tenantScope(pending.client_id);
  const row = await findSsoProvider(deps.db.kysely, scope, pending.provider_id);
  if (!row) throw notFound('SSO provider');
  const postLoginUrl = postLoginUrlOf(deps, row);
  try {
    if (!browserToken || !pending.browser_hash || !safeEqual(hashToken(browserToken), pending.browser_hash)) {
      throw await ssoRefused(deps, row, 'the callback came to another browser than the one that started the sign-in', meta);
    }
    const { codeVerifier, nonce } = JSON.parse(ssoSecretBox(deps).open(pending.secrets!)) as { codeVerifier: string; nonce: string };
    const config = await configurationFor(deps, row);
    const currentUrl = new URL(publicBaseUrl(deps) + OIDC_CALLBACK_PATH);
    currentUrl.search = query.toString();
    let claims: Record<string, unknown>;
    try {
      const tokens = await oidc().authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: codeVerifier,
        expectedState: state!,
        expectedNonce: nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims() as Record<string, unknown>;
    } catch (error) {
      if (isUnreachable(error)) {
        deps.logger.warn({ provider: row.name, error: describe(error) }, 'OIDC provider unreachable');
        throw unavailable(error);
      }
      throw await ssoRefused(deps, row, `the provider's answer was refused: ${(error as Error).message}`, meta);
    }
    const identity = identityFromClaims(row, claims);
    const userId = await userForIdentity(deps, scope, row, identity, meta);
    const code = await withTransaction(deps.db, { lockClient: scope.clientId }, (trx) =>
      issueUserToken(trx, scope, userId, 'sso_code', deps.clock.now(), SSO_CODE_TTL_MS, `${row.kind}.`),
    );
    return { postLoginUrl, code };
  } catch (error) {
    if (error instanceof AppError) return { postLoginUrl, error };
    throw error;
  }
}

/**
 * Exchanges the one-time code of a callback for the sign-in itself: the same
 * checks and answer as a password sign-in (a challenge when 2FA is on).
 * @throws AppError TOKEN_INVALID (unknown, used or expired code), ACCOUNT_DISABLED, TOO_MANY_ATTEMPTS
 */
export async function exchangeSsoCode(deps: Deps, code: string, meta: RequestMeta): Promise<SignInResult | TwoFactorChallenge> {
  const token = await findValidUserToken(deps, code, 'sso_code');
  await withTransaction(deps.db, (trx) => consumeUserToken(trx, token, deps.clock.now().toISOString()));
  const method = code.split('.')[0] ?? 'sso';
  return signInWithVerifiedIdentity(deps, token.scope, token.userId, method, meta, 'v1');
}

/** Network failures, addresses the network policy refuses, and the provider's own 5xx: unavailable, not a refusal. */
function isUnreachable(error: unknown): boolean {
  if (error instanceof oidc().ResponseBodyError) return error.status >= 500;
  return isUnreachableError(error);
}

/** An error and its causes, for the log (the provider's address and why it was refused or failed). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) parts.push(current.message);
  return parts.join(': ');
}

/**
 * Claims → identity. `email` only when vouched for: a plain OIDC provider must
 * say `email_verified: true`; the business-application platform's tenant
 * authority vouches for its own users' sign-in names (preferred_username). A
 * mapped claim name is the administrator's statement that the claim is trusted.
 */
export function identityFromClaims(row: SsoProviderRow, claims: Record<string, unknown>): AssertedIdentity {
  const mapping = toProvider(row).attributeMapping;
  let email: string | undefined;
  if (mapping.email) email = claimText(claims[mapping.email]);
  else if (row.kind === 'dynamics') email = claimText(claims.email) ?? claimText(claims.preferred_username) ?? claimText(claims.upn);
  else if (claims.email_verified === true) email = claimText(claims.email);
  return {
    subject: String(claims.sub),
    email,
    firstName: claimText(claims[mapping.firstName ?? 'given_name']),
    lastName: claimText(claims[mapping.lastName ?? 'family_name']),
    roles: mapping.roles ? claimList(claims[mapping.roles]) : undefined,
    organizations: mapping.organizations ? claimList(claims[mapping.organizations]) : undefined,
  };
}

/** Where the browser goes after the callback: the provider's post-login URL (absolute, or a path on this server), else this server's root. */
export function postLoginUrlOf(deps: Deps, row: SsoProviderRow): string {
  return new URL(row.post_login_url ?? '/', publicBaseUrl(deps) + '/').href;
}
