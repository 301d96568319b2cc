import type { Profile, SAML } from '@node-saml/node-saml';
import type { Deps } from '#deps';
import type { SsoProviderRow } from '#db/schema';
import { tenantScope } from '#db/tenant';
import { notFound } from '#errors';
import { publicBaseUrl } from '#mail/templates';
import {
  deleteSsoPending,
  findSsoPendingStart,
  findSsoProviderByName,
  insertSsoPending,
  listEnabledSsoProvidersOfKind,
  rememberAssertion,
} from '#repos/sso';
import type { RequestMeta } from '../actor';
import type { SignInResult, TwoFactorChallenge } from '../auth';
import { assertSsoNotLocked, claimList, claimText, signInAssertedIdentity, ssoRefused } from './identities';
import { samlEntityId, toProvider } from './providers';

/**
 * SAML 2.0 sign-in (HTTP-POST binding; IdP-initiated, or SP-initiated with an AuthnRequest) through
 * `@node-saml/node-saml`, which checks the XML signature (response or
 * assertion, against the configured IdP certificates), the issuer, audience
 * and NotBefore/NotOnOrAfter. Its defaults leave these to us: Recipient and
 * Destination (our ACS URL), one-time use of the assertion ID (replay cache
 * in the database), and InResponseTo (a response that names one must answer
 * an AuthnRequest this server sent for the provider, within 10 minutes, once).
 */

export const SAML_ACS_PATH = '/api/client/auth/vendor-saml';
const CLOCK_SKEW_MS = 60_000;
/** how long an assertion id is remembered when the assertion names no end of validity */
const DEFAULT_REPLAY_WINDOW_MS = 60 * 60_000;

function acsUrlOf(deps: Deps, row: SsoProviderRow): string {
  return toProvider(row).settings.acsUrl ?? publicBaseUrl(deps) + SAML_ACS_PATH;
}

/** how long an AuthnRequest waits for its response */
const REQUEST_TTL_MS = 10 * 60_000;

/**
 * node-saml's request-id cache, kept in sso_pending (handle `saml:<request ID>`):
 * an AuthnRequest we sent is remembered for 10 minutes and answered once.
 */
function requestCache(deps: Deps, row: SsoProviderRow) {
  const scope = tenantScope(row.client_id);
  const handle = (id: string) => `saml:${id}`;
  return {
    saveAsync: async (id: string, instant: string) => {
      const now = deps.clock.now();
      await insertSsoPending(
        deps.db.kysely,
        scope,
        { provider_id: row.id, handle: handle(id), expires_at: new Date(now.getTime() + REQUEST_TTL_MS).toISOString() },
        now.toISOString(),
      );
      return { value: instant, createdAt: now.getTime() };
    },
    getAsync: async (id: string) =>
      (await findSsoPendingStart(deps.db.kysely, scope, row.id, handle(id), deps.clock.now().toISOString())) ?? null,
    removeAsync: async (id: string | null) => {
      if (id) await deleteSsoPending(deps.db.kysely, scope, row.id, handle(id));
      return id;
    },
  };
}

type NodeSaml = typeof import('@node-saml/node-saml');
let nodeSaml: NodeSaml | undefined;

/** node-saml (with xml-crypto, xmldom, xml2js: ≈ 8 % of the executable's start) is loaded at the first SAML request. */
function loadNodeSaml(): NodeSaml {
  nodeSaml ??= require('@node-saml/node-saml') as NodeSaml;
  return nodeSaml;
}

function samlFor(deps: Deps, row: SsoProviderRow): SAML {
  const { SAML, ValidateInResponseTo } = loadNodeSaml();
  const settings = toProvider(row).settings;
  const acsUrl = acsUrlOf(deps, row);
  return new SAML({
    callbackUrl: acsUrl,
    entryPoint: settings.entryPoint ?? acsUrl,
    issuer: samlEntityId(deps, row.name),
    audience: samlEntityId(deps, row.name),
    idpCert: settings.idpCertificates ?? [],
    idpIssuer: row.issuer,
    // either the response or the assertion must be signed (node-saml then requires the other only if the first is not)
    wantAuthnResponseSigned: false,
    wantAssertionsSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    // IdP-initiated responses carry no InResponseTo; one that does must answer a request we sent (SP-initiated), once
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: REQUEST_TTL_MS,
    cacheProvider: requestCache(deps, row),
    disableRequestedAuthnContext: true,
  });
}

/**
 * Starts an SP-initiated sign-in: an AuthnRequest (HTTP-Redirect binding) to
 * the provider's `entryPoint`, whose ID the response must name in InResponseTo.
 * @throws AppError NOT_FOUND (no such enabled SAML provider, or it has no entryPoint), TOO_MANY_ATTEMPTS
 */
export async function startSamlSignIn(deps: Deps, name: string, meta: RequestMeta): Promise<string> {
  const row = await findSsoProviderByName(deps.db.kysely, name);
  if (!row || row.kind !== 'saml' || row.enabled !== 1 || !toProvider(row).settings.entryPoint)
    throw notFound('SSO provider with a SAML sign-in URL (entryPoint)');
  await assertSsoNotLocked(deps, row.name, meta);
  return samlFor(deps, row).getAuthorizeUrlAsync('', undefined, {});
}

/** The SP metadata of a provider, for the IdP administrator. @throws AppError NOT_FOUND */
export async function samlMetadata(deps: Deps, name: string): Promise<string> {
  const row = await findSsoProviderByName(deps.db.kysely, name);
  if (!row || row.kind !== 'saml') throw notFound('SSO provider');
  return samlFor(deps, row).generateServiceProviderMetadata(null);
}

/**
 * Validates a base64 SAML response and signs its subject in.
 * @throws AppError SSO_FAILED (anything refused: 401, nothing provisioned), TOO_MANY_ATTEMPTS, LICENSE_SEATS_EXHAUSTED, ACCOUNT_DISABLED
 */
export async function samlSignIn(
  deps: Deps,
  input: { samlResponse: string; provider?: string },
  meta: RequestMeta,
): Promise<SignInResult | TwoFactorChallenge> {
  const unknown = { name: input.provider ?? 'saml' };
  await assertSsoNotLocked(deps, unknown.name, meta);
  const xml = Buffer.from(input.samlResponse, 'base64').toString('utf8');
  // a document type can declare entities (XXE, billion laughs): SAML never needs one
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw await ssoRefused(deps, unknown, 'the response carries a document type declaration', meta);
  const issuer = /<(?:[\w-]+:)?Issuer\b[^>]*>([^<]+)</.exec(xml)?.[1]?.trim();
  const candidates = (await listEnabledSsoProvidersOfKind(deps.db.kysely, 'saml')).filter(
    (row) => row.issuer === issuer && (input.provider === undefined || row.name === input.provider),
  );
  if (candidates.length !== 1) {
    throw await ssoRefused(
      deps,
      unknown,
      candidates.length === 0 ? 'no SAML provider for this issuer' : 'several providers share this issuer: send provider',
      meta,
    );
  }
  const row = candidates[0];
  if (input.provider === undefined) await assertSsoNotLocked(deps, row.name, meta);
  let profile: Profile;
  try {
    const result = await samlFor(deps, row).validatePostResponseAsync({ SAMLResponse: input.samlResponse });
    if (!result.profile) throw new Error('no assertion');
    profile = result.profile;
  } catch (error) {
    throw await ssoRefused(deps, row, `the response was refused: ${(error as Error).message}`, meta);
  }
  const acsUrl = acsUrlOf(deps, row);
  const assertion = (profile.getAssertion?.() as { Assertion?: SamlAssertion } | undefined)?.Assertion;
  const assertionId = assertion?.$?.ID;
  const confirmations = (assertion?.Subject?.[0]?.SubjectConfirmation ?? []).map((c) => c.SubjectConfirmationData?.[0]?.$ ?? {});
  const destination = /^[^>]*?<(?:[\w-]+:)?Response\b[^>]*\bDestination="([^"]*)"/s.exec(xml)?.[1];
  const problem = !assertionId
    ? 'the assertion has no ID'
    : confirmations.length === 0 || confirmations.some((data) => data.Recipient !== acsUrl)
      ? 'the assertion is not for this recipient'
      : destination !== undefined && destination !== acsUrl
        ? 'the response is for another destination'
        : undefined;
  if (problem) throw await ssoRefused(deps, row, problem, meta);
  const notOnOrAfter = [assertion?.Conditions?.[0]?.$?.NotOnOrAfter, ...confirmations.map((data) => data.NotOnOrAfter)]
    .map((text) => (text ? Date.parse(text) : NaN))
    .filter((ms) => !Number.isNaN(ms));
  const now = deps.clock.now();
  const keepUntil = notOnOrAfter.length > 0 ? Math.max(...notOnOrAfter) + CLOCK_SKEW_MS : now.getTime() + DEFAULT_REPLAY_WINDOW_MS;
  const fresh = await rememberAssertion(
    deps.db.kysely,
    tenantScope(row.client_id),
    {
      provider_id: row.id,
      assertion_id: assertionId!,
      expires_at: new Date(Math.max(keepUntil, now.getTime() + CLOCK_SKEW_MS)).toISOString(),
    },
    now.toISOString(),
  );
  if (!fresh) throw await ssoRefused(deps, row, 'the assertion was used before (replay)', meta);

  const mapping = toProvider(row).attributeMapping;
  const attribute = (name: string | undefined) => (name ? (profile as Record<string, unknown>)[name] : undefined);
  const emailFormat = profile.nameIDFormat === 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
  const email = mapping.email
    ? claimText(attribute(mapping.email))
    : (claimText(attribute('email')) ??
      claimText(attribute('mail')) ??
      claimText(attribute('http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress')) ??
      (emailFormat ? claimText(profile.nameID) : undefined));
  return signInAssertedIdentity(
    deps,
    row,
    {
      subject: profile.nameID,
      email,
      firstName: claimText(attribute(mapping.firstName ?? 'firstName')),
      lastName: claimText(attribute(mapping.lastName ?? 'lastName')),
      roles: mapping.roles ? claimList(attribute(mapping.roles)) : undefined,
      organizations: mapping.organizations ? claimList(attribute(mapping.organizations)) : undefined,
    },
    meta,
  );
}

interface SamlAssertion {
  $?: { ID?: string };
  Conditions?: { $?: { NotOnOrAfter?: string } }[];
  Subject?: { SubjectConfirmation?: { SubjectConfirmationData?: { $?: { Recipient?: string; NotOnOrAfter?: string } }[] }[] }[];
}
