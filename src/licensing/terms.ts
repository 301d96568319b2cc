import { z } from 'zod';
import { LICENSE_TYPES, type LicenseType } from '#policies/roles';

/**
 * What a license key grants: the signed payload. Fields are checked with zod
 * after the signature is verified; unknown fields are kept out (strict), so a
 * payload means exactly what the vendor signed.
 */
export const FEATURES = ['sso', 'graphql', 'push', 'reports', 'import-export', 'collaboration', 'integrations'] as const;
export type Feature = (typeof FEATURES)[number];

const Iso = z.iso.datetime({ offset: true });
const Count = z.number().int().min(0).max(10_000_000);

export const LicensePayloadSchema = z
  .object({
    /** payload format version */
    v: z.literal(1),
    /** names the vendor public key (config/license-keys/<kid>.pem) */
    kid: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/),
    licenseId: z.string().min(1).max(128),
    licensee: z.object({ name: z.string().min(1).max(200), email: z.string().max(254).optional() }).strict(),
    /** binds the key to one installation (GET /api/admin/license-on-prem shows the id); null: any */
    installationId: z.string().max(128).nullable(),
    issuedAt: Iso,
    expiresAt: Iso,
    seats: z.object({ full: Count, connect: Count }).strict(),
    maxClients: Count,
    /** feature flags; names this build does not know are kept and ignored */
    features: z.array(z.string().min(1).max(64)).max(100),
  })
  .strict();

export type LicensePayload = z.infer<typeof LicensePayloadSchema>;

/** The terms the appliance enforces, from a key or from the evaluation allowance. */
export interface LicenseTerms {
  evaluation: boolean;
  licenseId: string | null;
  licensee: { name: string; email?: string } | null;
  installationId: string | null;
  issuedAt: string | null;
  expiresAt: string | null;
  seats: Record<LicenseType, number>;
  maxClients: number;
  features: string[];
}

/** Without an installed key: a small allowance, every feature on, never expires. */
export const EVALUATION_TERMS: LicenseTerms = Object.freeze({
  evaluation: true,
  licenseId: null,
  licensee: null,
  installationId: null,
  issuedAt: null,
  expiresAt: null,
  seats: Object.freeze({ full: 25, connect: 25 }),
  maxClients: 5,
  features: [...FEATURES],
});

export function termsFromPayload(payload: LicensePayload): LicenseTerms {
  return {
    evaluation: false,
    licenseId: payload.licenseId,
    licensee: payload.licensee,
    installationId: payload.installationId,
    issuedAt: payload.issuedAt,
    expiresAt: payload.expiresAt,
    seats: Object.fromEntries(LICENSE_TYPES.map((t) => [t, payload.seats[t]])) as Record<LicenseType, number>,
    maxClients: payload.maxClients,
    features: payload.features,
  };
}
