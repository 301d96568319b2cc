import { X509Certificate } from 'node:crypto';
import type { Deps } from '#deps';
import type { SsoProviderKind, SsoProviderRow } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { isUniqueViolation } from '#db/transaction';
import { conflict, notFound, validationFailed } from '#errors';
import { SecretBox } from '#lib/secret-box';
import { publicBaseUrl } from '#mail/templates';
import { rolesNotAllowed, type LicenseType, type Role } from '#policies/roles';
import { deleteSsoProvider, findSsoProvider, insertSsoProvider, listSsoProviders, updateSsoProvider } from '#repos/sso';
import { recordChange, type ChangedBy } from '../security-log';

/**
 * Per-client identity providers. One record per provider: its kind,
 * where it lives, the OAuth client or the SAML certificates, how claims map to
 * user fields, and just-in-time provisioning. Client secrets are sealed at rest
 * with a key derived from `<data-dir>/secrets.json` and never shown again.
 */

export const DYNAMICS_AUTHORITY_TEMPLATE = 'https://login.microsoftonline.com/{tenant}/v2.0';
export const DEFAULT_GRAPH_URL = 'https://graph.microsoft.com/v1.0/me';
export const DEFAULT_OIDC_SCOPES = ['openid', 'email', 'profile'];
export const DEFAULT_DIRECTORY_CACHE_SECONDS = 300;

export interface AttributeMapping {
  email?: string;
  firstName?: string;
  lastName?: string;
  roles?: string;
  organizations?: string;
}

/** The kind-specific part, kept as JSON in `settings`. */
export interface ProviderSettings {
  scopes?: string[];
  authorityUrlTemplate?: string;
  entryPoint?: string;
  idpCertificates?: string[];
  acsUrl?: string;
  graphUrl?: string;
  cacheSeconds?: number;
  /** apply the mapped roles and organisations at every sign-in, not only when provisioning (default off) */
  updateOnSignIn?: boolean;
}

export interface SsoProvider {
  id: number;
  clientId: number;
  name: string;
  kind: SsoProviderKind;
  enabled: boolean;
  /** oidc: issuer URL; saml: IdP entity id; dynamics: the directory tenant */
  issuer: string;
  oauthClientId: string;
  hasClientSecret: boolean;
  settings: ProviderSettings;
  attributeMapping: AttributeMapping;
  jit: { enabled: boolean; roles: Role[]; licenseType: LicenseType };
  postLoginUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a create or update may set; an update keeps what it omits (`clientSecret: null` removes the secret). */
export interface SsoProviderInput {
  name?: string;
  kind?: SsoProviderKind;
  enabled?: boolean;
  issuer?: string;
  tenant?: string;
  clientId?: string;
  clientSecret?: string | null;
  scopes?: string[];
  authorityUrlTemplate?: string;
  entryPoint?: string;
  idpCertificates?: string[];
  acsUrl?: string;
  graphUrl?: string;
  cacheSeconds?: number;
  updateOnSignIn?: boolean;
  attributeMapping?: AttributeMapping;
  jit?: { enabled: boolean; roles?: Role[]; licenseType?: LicenseType };
  postLoginUrl?: string | null;
}

export const ssoSecretBox = (deps: Pick<Deps, 'secrets'>) => new SecretBox(deps.secrets.jwtSecret, 'sso-secrets');

export function toProvider(row: SsoProviderRow): SsoProvider {
  return {
    id: row.id,
    clientId: row.client_id,
    name: row.name,
    kind: row.kind,
    enabled: row.enabled === 1,
    issuer: row.issuer,
    oauthClientId: row.oauth_client_id,
    hasClientSecret: row.client_secret !== null,
    settings: JSON.parse(row.settings) as ProviderSettings,
    attributeMapping: JSON.parse(row.attribute_mapping) as AttributeMapping,
    jit: { enabled: row.jit_enabled === 1, roles: JSON.parse(row.jit_roles) as Role[], licenseType: row.jit_license_type as LicenseType },
    postLoginUrl: row.post_login_url,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The sealed client secret, opened; undefined when none is set. */
export function clientSecretOf(deps: Pick<Deps, 'secrets'>, row: SsoProviderRow): string | undefined {
  return row.client_secret === null ? undefined : ssoSecretBox(deps).open(row.client_secret);
}

/** The URLs an IdP administrator enters for this provider (shown with the provider, documented in docs/operating/sso.md). */
export function endpointsOf(deps: Pick<Deps, 'config' | 'served'>, provider: Pick<SsoProvider, 'kind' | 'name' | 'settings'>) {
  const base = publicBaseUrl(deps);
  const name = encodeURIComponent(provider.name);
  switch (provider.kind) {
    case 'oidc':
      return { signInUrl: `${base}/api/client/auth/oidc?provider=${name}`, redirectUri: `${base}/api/client/auth/oidc/callback` };
    case 'dynamics':
      return {
        signInUrl: `${base}/api/client/auth/vendor-dynamics?provider=${name}`,
        redirectUri: `${base}/api/client/auth/oidc/callback`,
      };
    case 'saml':
      return {
        signInUrl: `${base}/api/client/auth/vendor-saml?provider=${name}`,
        entityId: samlEntityId(deps, provider.name),
        metadataUrl: samlEntityId(deps, provider.name),
        acsUrl: provider.settings.acsUrl ?? `${base}/api/client/auth/vendor-saml`,
      };
    case 'directory':
      return { graphUrl: provider.settings.graphUrl ?? DEFAULT_GRAPH_URL };
  }
}

/** The SP entity id of a SAML provider: its metadata URL (unique per provider, so audiences never cross). */
export function samlEntityId(deps: Pick<Deps, 'config' | 'served'>, name: string): string {
  return `${publicBaseUrl(deps)}/api/client/auth/vendor-saml/metadata?provider=${encodeURIComponent(name)}`;
}

export async function listProviders(deps: Deps, scope: TenantScope): Promise<SsoProvider[]> {
  return (await listSsoProviders(deps.db.kysely, scope)).map(toProvider);
}

type By = ChangedBy;

/** @throws AppError VALIDATION_ERROR (settings the kind needs are missing or malformed), CONFLICT (name taken) */
export async function createProvider(
  deps: Deps,
  scope: TenantScope,
  input: SsoProviderInput & { name: string; kind: SsoProviderKind },
  by: By,
): Promise<SsoProvider> {
  const values = rowValues(deps, input, undefined);
  const nowIso = deps.clock.now().toISOString();
  let row: SsoProviderRow;
  try {
    row = await insertSsoProvider(deps.db.kysely, scope, {
      ...values,
      name: input.name,
      kind: input.kind,
      created_at: nowIso,
      updated_at: nowIso,
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
  await changed(deps, scope, 'created', null, row, by);
  return toProvider(row);
}

/** @throws AppError NOT_FOUND, VALIDATION_ERROR, CONFLICT */
export async function updateProvider(deps: Deps, scope: TenantScope, id: number, input: SsoProviderInput, by: By): Promise<SsoProvider> {
  const current = await findSsoProvider(deps.db.kysely, scope, id);
  if (!current) throw notFound('SSO provider');
  if (input.kind !== undefined && input.kind !== current.kind) {
    throw validationFailed({ fields: [{ path: 'body.kind', message: 'cannot change; delete the provider and create another' }] });
  }
  const values = rowValues(deps, input, current);
  try {
    await updateSsoProvider(deps.db.kysely, scope, id, {
      ...values,
      ...(input.name !== undefined && { name: input.name }),
      updated_at: deps.clock.now().toISOString(),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw nameTaken();
    throw error;
  }
  const row = (await findSsoProvider(deps.db.kysely, scope, id))!;
  await changed(deps, scope, 'updated', current, row, by);
  return toProvider(row);
}

/** Deleting a provider also forgets the identities it linked (users keep their accounts). @throws AppError NOT_FOUND */
export async function deleteProvider(deps: Deps, scope: TenantScope, id: number, by: By): Promise<void> {
  const row = await findSsoProvider(deps.db.kysely, scope, id);
  if (!row || !(await deleteSsoProvider(deps.db.kysely, scope, id))) throw notFound('SSO provider');
  await changed(deps, scope, 'deleted', row, null, by);
}

const nameTaken = () =>
  conflict('An SSO provider with this name exists already (names are unique across the appliance: they appear in sign-in URLs)');

/**
 * The provider as its security event records it: the presented fields, and
 * the sealed secret under a credential key (the event records only that it
 * changed, never a value).
 */
function audited(row: SsoProviderRow | null) {
  if (!row) return null;
  const { id: _id, clientId: _client, ...fields } = toProvider(row);
  return { ...fields, clientSecret: row.client_secret };
}

/** Written right after the change, which is one statement (not a transaction). */
async function changed(
  deps: Deps,
  scope: TenantScope,
  what: string,
  before: SsoProviderRow | null,
  after: SsoProviderRow | null,
  by: By,
): Promise<void> {
  const row = (after ?? before)!;
  await recordChange({ deps }, by, {
    event: 'security.sso_provider_changed',
    message: `SSO provider "${row.name}" ${what}`,
    clientId: scope.clientId,
    target: { type: 'sso_provider', id: row.id },
    before: audited(before),
    after: audited(after),
    data: { providerId: row.id, name: row.name, kind: row.kind, change: what },
  });
}

/**
 * The row values of a create (current undefined) or update: the input merged
 * over the current record, then checked as a whole for the kind.
 */
function rowValues(deps: Deps, input: SsoProviderInput, current: SsoProviderRow | undefined) {
  const kind = (current?.kind ?? input.kind)!;
  const before = current ? toProvider(current) : undefined;
  const settings: ProviderSettings = { ...before?.settings };
  for (const key of ['scopes', 'authorityUrlTemplate', 'entryPoint', 'acsUrl', 'graphUrl', 'cacheSeconds', 'updateOnSignIn'] as const) {
    if (input[key] !== undefined) (settings as Record<string, unknown>)[key] = input[key];
  }
  if (input.idpCertificates !== undefined) settings.idpCertificates = input.idpCertificates.map(normalizeCertificate);
  const issuer = (kind === 'dynamics' || kind === 'directory' ? input.tenant : input.issuer) ?? before?.issuer ?? '';
  const oauthClientId = input.clientId ?? before?.oauthClientId ?? '';
  const hasSecret = input.clientSecret === undefined ? (before?.hasClientSecret ?? false) : input.clientSecret !== null;
  const jit = { ...(before?.jit ?? { enabled: false, roles: ['viewer'] as Role[], licenseType: 'connect' as LicenseType }), ...input.jit };

  const problems: { path: string; message: string }[] = [];
  const need = (ok: boolean, path: string, message: string) => ok || problems.push({ path: `body.${path}`, message });
  if (kind === 'oidc') {
    need(isHttpUrl(issuer), 'issuer', 'required for oidc: the issuer URL (discovery is at <issuer>/.well-known/openid-configuration)');
    need(oauthClientId !== '', 'clientId', 'required for oidc');
  }
  if (kind === 'dynamics') {
    need(/^[A-Za-z0-9.-]{1,253}$/.test(issuer), 'tenant', 'required for dynamics: the directory tenant id or domain');
    need(oauthClientId !== '', 'clientId', 'required for dynamics: the application (client) id');
    need(hasSecret, 'clientSecret', 'required for dynamics');
    if (settings.authorityUrlTemplate !== undefined) {
      need(settings.authorityUrlTemplate.includes('{tenant}'), 'authorityUrlTemplate', 'must contain {tenant}');
    }
  }
  if (kind === 'directory') {
    need(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(issuer),
      'tenant',
      'required for directory: the directory tenant id (a GUID: the tid of its tokens)',
    );
  }
  if (kind === 'saml') {
    need(issuer !== '', 'issuer', "required for saml: the IdP's entity id (the Issuer of its responses)");
    need((settings.idpCertificates ?? []).length > 0, 'idpCertificates', "required for saml: the IdP's signing certificate(s), PEM");
  }
  for (const [index, pem] of (settings.idpCertificates ?? []).entries()) {
    try {
      new X509Certificate(pem);
    } catch {
      problems.push({ path: `body.idpCertificates.${index}`, message: 'not an X.509 certificate (PEM or base64 DER)' });
    }
  }
  const notAllowed = rolesNotAllowed(jit.licenseType, jit.roles);
  need(notAllowed.length === 0, 'jit.roles', `not allowed with license type ${jit.licenseType}: ${notAllowed.join(', ')}`);
  if (problems.length > 0) throw validationFailed({ fields: problems });

  return {
    enabled: (input.enabled ?? before?.enabled ?? true) ? 1 : 0,
    issuer,
    oauth_client_id: oauthClientId,
    client_secret:
      input.clientSecret === undefined
        ? (current?.client_secret ?? null)
        : input.clientSecret === null
          ? null
          : ssoSecretBox(deps).seal(input.clientSecret),
    settings: JSON.stringify(settings),
    attribute_mapping: JSON.stringify(input.attributeMapping ?? before?.attributeMapping ?? {}),
    jit_enabled: jit.enabled ? 1 : 0,
    jit_roles: JSON.stringify(jit.roles),
    jit_license_type: jit.licenseType,
    post_login_url: input.postLoginUrl === undefined ? (before?.postLoginUrl ?? null) : input.postLoginUrl,
  };
}

function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/** PEM as given, or base64 DER (what IdP metadata holds) wrapped into PEM. */
function normalizeCertificate(text: string): string {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) return trimmed;
  const body = trimmed.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----`;
}
