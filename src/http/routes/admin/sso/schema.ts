import { z } from 'zod';
import { PositiveId } from '../../../schemas';
import { LICENSE_TYPES, ROLES } from '#policies/roles';

const HttpUrl = z
  .string()
  .max(2000)
  .refine((text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol), 'must be an http(s) URL');

/** A claim or attribute name (OIDC claims, SAML attribute names are URIs). */
const ClaimName = z.string().min(1).max(300);

const AttributeMapping = z
  .object({ email: ClaimName, firstName: ClaimName, lastName: ClaimName, roles: ClaimName, organizations: ClaimName })
  .partial()
  .strict();

/** Where the browser lands after an OIDC sign-in: an absolute http(s) URL, or a path on this server. */
const PostLoginUrl = z
  .string()
  .max(2000)
  .refine(
    (text) =>
      (text.startsWith('/') && !text.startsWith('//')) || (URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol)),
    'must be an http(s) URL or a path starting with /',
  );

const providerFields = {
  name: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, 'lower-case letters, digits, . _ - (at most 64); unique across the appliance'),
  enabled: z.boolean(),
  issuer: z.string().min(1).max(2000),
  tenant: z.string().min(1).max(253),
  clientId: z.string().min(1).max(500),
  clientSecret: z.string().min(1).max(4000).nullable(),
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/, 'a scope token')).max(20),
  authorityUrlTemplate: HttpUrl,
  entryPoint: HttpUrl,
  idpCertificates: z.array(z.string().min(1).max(20_000)).min(1).max(5),
  acsUrl: HttpUrl,
  graphUrl: HttpUrl,
  cacheSeconds: z.number().int().min(0).max(3600),
  updateOnSignIn: z.boolean(),
  attributeMapping: AttributeMapping,
  jit: z
    .object({ enabled: z.boolean(), roles: z.array(z.enum(ROLES)).min(1).optional(), licenseType: z.enum(LICENSE_TYPES).optional() })
    .strict(),
  postLoginUrl: PostLoginUrl.nullable(),
};

export const CreateSsoProvider = z
  .object({ ...providerFields, kind: z.enum(['oidc', 'saml', 'dynamics', 'directory']) })
  .partial()
  .required({ name: true, kind: true })
  .strict();

/** Omitted fields keep their values; `clientSecret: null` removes the secret. The kind cannot change. */
export const UpdateSsoProvider = z.object(providerFields).partial().strict();

export const SsoProviderParams = z.object({ id: PositiveId, providerId: PositiveId });
