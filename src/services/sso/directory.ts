import type { Deps } from '#deps';
import type { SsoProviderRow } from '#db/schema';
import { tenantScope } from '#db/tenant';
import { AppError, tokenExpired } from '#errors';
import { hashToken } from '#lib/tokens';
import { listEnabledSsoProvidersOfKind } from '#repos/sso';
import type { RequestMeta, UserActor } from '../actor';
import { actorFromDirectorySession, startDirectorySession } from '../auth';
import { assertSsoNotLocked, claimList, claimText, ssoRefused, userForIdentity, type AssertedIdentity } from './identities';
import { idpFetch, isUnreachableError } from './outbound';
import { DEFAULT_DIRECTORY_CACHE_SECONDS, DEFAULT_GRAPH_URL, toProvider } from './providers';

/**
 * Directory bearer tokens: power-automation integrations call
 * client routes with `Authorization: Bearer <token the directory issued for
 * its graph API>`. We cannot check such a token's signature (it is meant for
 * the graph), so the graph decides: its "who am I" endpoint answers with the
 * user the token stands for, or refuses it. The returned user (email/UPN) is
 * mapped to a user of the client whose provider names the token's directory
 * tenant (`tid`), and a session is opened for it that ends with the token.
 *
 * A positive answer is cached for `cacheSeconds` (default 300), never past the
 * token's own expiry, keyed by the token's SHA-256 (the token itself is never
 * kept); after that the graph is asked again. Refusals are not cached; they
 * count toward the IP lockout like wrong passwords.
 */

/** seconds the graph API may take */
const GRAPH_TIMEOUT_MS = 10_000;
/** tokens remembered at most (the oldest is forgotten first) */
const MAX_CACHED = 10_000;

export interface DirectoryClaims {
  tid: string;
  /** seconds since the epoch */
  exp: number;
  multiFactor: boolean;
}

/**
 * The claims of a bearer token the client's directory issued, read without
 * verification (the graph verifies it), or undefined when the token is not
 * one: our own access tokens are JWTs with issuer `wip`; a directory token is a
 * JWT with another issuer, a tenant (`tid`) and an expiry. Decided by format
 * and issuer, so a token is never tried both ways.
 */
export function directoryClaims(token: string): DirectoryClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || token.length > 16_384) return undefined;
  let payload: Record<string, unknown>;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (typeof payload !== 'object' || payload === null || payload.iss === 'wip') return undefined;
  if (typeof payload.iss !== 'string' || typeof payload.tid !== 'string' || typeof payload.exp !== 'number') return undefined;
  return { tid: payload.tid, exp: payload.exp, multiFactor: Array.isArray(payload.amr) && payload.amr.includes('mfa') };
}

interface CachedToken {
  sessionId: number;
  providerId: number;
  userId: number;
  /** ms: the graph is asked again after this */
  checkedUntil: number;
  /** ms: the token's expiry */
  expiresAt: number;
}

// per Deps (tests run many servers in one process): token hash → what the graph said
const caches = new WeakMap<Deps, { entries: Map<string, CachedToken>; inFlight: Map<string, Promise<CachedToken>> }>();

function cacheOf(deps: Deps) {
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = { entries: new Map(), inFlight: new Map() }));
  return cache;
}

/**
 * The caller a directory token stands for.
 * @throws AppError TOKEN_EXPIRED, SSO_FAILED (401: no provider for its tenant, refused by the graph, unknown user, a second factor the token does not attest), SSO_UNAVAILABLE (503: graph unreachable), TOO_MANY_ATTEMPTS, ACCOUNT_DISABLED, UNAUTHORIZED (session revoked)
 */
export async function actorFromDirectoryToken(deps: Deps, token: string, claims: DirectoryClaims, meta: RequestMeta): Promise<UserActor> {
  const now = deps.clock.now().getTime();
  if (claims.exp * 1000 <= now) throw tokenExpired();
  const key = hashToken(token);
  const { entries, inFlight } = cacheOf(deps);
  let entry = entries.get(key);
  if (!entry || entry.checkedUntil <= now) {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = verifyAtGraph(deps, token, claims, meta, entry).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    entry = await pending;
    entries.delete(key);
    entries.set(key, entry);
    if (entries.size > MAX_CACHED) entries.delete(entries.keys().next().value!);
  }
  return actorFromDirectorySession(deps, entry.sessionId);
}

/** Asks the graph who the token stands for; keeps the session of an earlier check of the same token when it is the same user. */
async function verifyAtGraph(
  deps: Deps,
  token: string,
  claims: DirectoryClaims,
  meta: RequestMeta,
  earlier: CachedToken | undefined,
): Promise<CachedToken> {
  const candidates = (await listEnabledSsoProvidersOfKind(deps.db.kysely, 'directory')).filter(
    (row) => row.issuer.toLowerCase() === claims.tid.toLowerCase(),
  );
  if (candidates.length !== 1) {
    const reason =
      candidates.length === 0
        ? `no directory provider for tenant ${claims.tid}`
        : `several clients' directory providers name tenant ${claims.tid}`;
    throw await ssoRefused(deps, { name: 'directory' }, reason, meta);
  }
  const row = candidates[0];
  await assertSsoNotLocked(deps, row.name, meta);
  const me = await whoAmI(deps, row, token, meta);
  const identity = identityFromGraph(row, me);
  if (identity.subject === '') throw await ssoRefused(deps, row, 'the graph API named no user id', meta);
  const scope = tenantScope(row.client_id);
  const userId = await userForIdentity(deps, scope, row, identity, meta);
  const settings = toProvider(row).settings;
  const now = deps.clock.now().getTime();
  const expiresAt = claims.exp * 1000;
  const checkedUntil = Math.min(now + (settings.cacheSeconds ?? DEFAULT_DIRECTORY_CACHE_SECONDS) * 1000, expiresAt);
  if (earlier && earlier.providerId === row.id && earlier.userId === userId) return { ...earlier, checkedUntil };
  const started = await startDirectorySession(deps, scope, userId, meta, {
    expiresAt: new Date(expiresAt),
    multiFactor: claims.multiFactor,
  });
  if (started === 'SECOND_FACTOR_NEEDED') {
    throw await ssoRefused(
      deps,
      row,
      'the user has a second factor and the directory token does not attest a multi-factor sign-in (amr mfa)',
      meta,
    );
  }
  return { sessionId: started.sessionId, providerId: row.id, userId, checkedUntil, expiresAt };
}

/** GET the provider's "who am I" URL with the token. */
async function whoAmI(deps: Deps, row: SsoProviderRow, token: string, meta: RequestMeta): Promise<Record<string, unknown>> {
  const url = toProvider(row).settings.graphUrl ?? DEFAULT_GRAPH_URL;
  let response: Response;
  try {
    response = await idpFetch(deps)(url, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
      signal: AbortSignal.timeout(GRAPH_TIMEOUT_MS),
    });
  } catch (error) {
    if (!isUnreachableError(error)) throw error;
    deps.logger.warn({ provider: row.name, error: (error as Error).message }, 'directory graph API unreachable');
    throw graphUnavailable();
  }
  if (response.status >= 500 || response.status === 429) {
    deps.logger.warn({ provider: row.name, status: response.status }, 'directory graph API failed');
    throw graphUnavailable();
  }
  if (response.status !== 200) throw await ssoRefused(deps, row, `the graph API refused the token (HTTP ${response.status})`, meta);
  try {
    const body = await response.json();
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // not JSON: refused below
  }
  throw await ssoRefused(deps, row, 'the graph API answered something other than a JSON object', meta);
}

const graphUnavailable = () => new AppError('SSO_UNAVAILABLE', "The organisation's directory cannot be reached; try again later");

/**
 * The graph's user → identity. The directory vouches for its own users'
 * addresses: `mail`, else the sign-in name (`userPrincipalName`), unless the
 * mapping names another field.
 */
function identityFromGraph(row: SsoProviderRow, me: Record<string, unknown>): AssertedIdentity {
  const mapping = toProvider(row).attributeMapping;
  return {
    subject: claimText(me.id) ?? '',
    email: mapping.email ? claimText(me[mapping.email]) : (claimText(me.mail) ?? claimText(me.userPrincipalName)),
    firstName: claimText(me[mapping.firstName ?? 'givenName']),
    lastName: claimText(me[mapping.lastName ?? 'surname']),
    roles: mapping.roles ? claimList(me[mapping.roles]) : undefined,
    organizations: mapping.organizations ? claimList(me[mapping.organizations]) : undefined,
  };
}
