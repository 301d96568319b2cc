import { constants, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { LicensePayloadSchema, type LicensePayload } from './terms';
import { canonicalJson } from '#lib/canonical-json';

/**
 * License key format: base64url(canonical JSON payload) "." base64url(signature).
 * The signature is RSASSA-PSS (SHA-256, MGF1-SHA-256, 32-byte salt) over the
 * payload bytes, made with the vendor's RSA private key (3072 bits) and checked
 * with the public key the payload's `kid` names. Everything here is pure: no
 * clock, no disk, no database.
 */

export type LicenseKeyProblem = 'malformed' | 'unknown_key_id' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'wrong_deployment';

export class LicenseKeyError extends Error {
  constructor(
    readonly reason: LicenseKeyProblem,
    message: string,
    /** what the administrator can do about it (shown with the refusal) */
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'LicenseKeyError';
  }
}

export interface TrustedKey {
  kid: string;
  publicKey: KeyObject;
  /** the repository's development key: trusted only in development and test */
  developmentOnly: boolean;
}

export type TrustedKeys = ReadonlyMap<string, TrustedKey>;

export { canonicalJson };

/**
 * RSASSA-PSS with the runtime's crypto (OpenSSL: MGF1 uses the signature's hash). Not node-forge: its
 * modules and a pure-JavaScript parse of each trusted key were a measurable part of every start.
 */
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 };

/** Signs a payload with a vendor private key (PEM). Used by scripts/issue-license and the tests. */
export function signLicense(payload: LicensePayload, privateKeyPem: string): string {
  const parsed = LicensePayloadSchema.parse(payload);
  const bytes = Buffer.from(canonicalJson(parsed), 'utf8');
  const signature = sign('sha256', bytes, { key: privateKeyPem, ...PSS });
  return `${bytes.toString('base64url')}.${signature.toString('base64url')}`;
}

export interface DecodedKey {
  payload: LicensePayload;
  payloadBytes: Buffer;
  signature: Buffer;
}

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Splits and decodes a key without checking the signature.
 * Whitespace (line breaks from e-mail or a .lic file) is ignored.
 * @throws LicenseKeyError malformed
 */
export function decodeLicenseKey(text: string): DecodedKey {
  const compact = text.replace(/\s+/g, '');
  const parts = compact.split('.');
  if (parts.length !== 2 || !B64URL.test(parts[0]) || !B64URL.test(parts[1])) {
    throw new LicenseKeyError('malformed', 'not a license key (expected two base64url parts joined by ".")');
  }
  const payloadBytes = Buffer.from(parts[0], 'base64url');
  const signature = Buffer.from(parts[1], 'base64url');
  let json: unknown;
  try {
    json = JSON.parse(payloadBytes.toString('utf8'));
  } catch {
    throw new LicenseKeyError('malformed', 'the license payload is not JSON');
  }
  const result = LicensePayloadSchema.safeParse(json);
  if (!result.success) {
    const fields = result.error.issues.map((i) => i.path.join('.') || '(payload)').join(', ');
    throw new LicenseKeyError('malformed', `the license payload has invalid fields: ${fields}`);
  }
  if (canonicalJson(result.data) !== payloadBytes.toString('utf8')) {
    throw new LicenseKeyError('malformed', 'the license payload is not in canonical form');
  }
  return { payload: result.data, payloadBytes, signature };
}

/** How to go on after a development key is refused. */
export const DEVELOPMENT_KEY_HINT =
  'For a trial or a test, start the appliance with WIP_ENV=development; a production appliance needs a license key from the vendor (tell them your installation id).';

export interface VerifyContext {
  trustedKeys: TrustedKeys;
  /** development and test trust the repository's development key */
  allowDevelopmentKeys: boolean;
  /** this appliance's installation id, for keys bound to one installation */
  installationId: string;
}

/**
 * Decodes a key and checks its signature against the trusted key its `kid`
 * names, then its binding. Dates are not checked here (see evaluateLicense and
 * checkInstallable): an installed key that expires keeps its terms for the
 * grace period.
 * @throws LicenseKeyError malformed, unknown_key_id, bad_signature, wrong_deployment
 */
export function verifyLicenseKey(text: string, context: VerifyContext): LicensePayload {
  const decoded = decodeLicenseKey(text);
  const trusted = context.trustedKeys.get(decoded.payload.kid);
  if (trusted?.developmentOnly && !context.allowDevelopmentKeys) {
    // the reason stays unknown_key_id (this build does not trust it here); the message says how to go on
    throw new LicenseKeyError(
      'unknown_key_id',
      `the license is signed with the development key "${decoded.payload.kid}", which is accepted only when the appliance runs with WIP_ENV=development`,
      DEVELOPMENT_KEY_HINT,
    );
  }
  if (!trusted) {
    throw new LicenseKeyError('unknown_key_id', `the license is signed with key "${decoded.payload.kid}", which this build does not trust`);
  }
  let valid = false;
  try {
    valid = verify('sha256', decoded.payloadBytes, { key: trusted.publicKey, ...PSS }, decoded.signature);
  } catch {
    valid = false;
  }
  if (!valid) throw new LicenseKeyError('bad_signature', 'the license signature does not match its contents');
  const bound = decoded.payload.installationId;
  if (bound !== null && bound !== context.installationId) {
    throw new LicenseKeyError(
      'wrong_deployment',
      `the license is bound to installation ${bound}, not to this one (${context.installationId})`,
    );
  }
  return decoded.payload;
}

/**
 * Refuses to install a key that is not valid now: not yet issued or past its
 * expiry (the grace period is for keys that expire while installed).
 * @throws LicenseKeyError expired, not_yet_valid
 */
export function checkInstallable(payload: LicensePayload, now: Date): void {
  if (Date.parse(payload.expiresAt) <= now.getTime()) {
    throw new LicenseKeyError('expired', `the license expired on ${payload.expiresAt}`);
  }
  // a day of slack for clocks and time zones of the issuing side
  if (Date.parse(payload.issuedAt) > now.getTime() + 86_400_000) {
    throw new LicenseKeyError('not_yet_valid', `the license is issued for ${payload.issuedAt}, which is in the future`);
  }
}

/** Parses a PEM RSA public key; a development key is named `dev-*`. */
export function trustedKeyFromPem(kid: string, pem: string): TrustedKey {
  const publicKey = createPublicKey(pem);
  if (publicKey.asymmetricKeyType !== 'rsa')
    throw new Error(`trusted license key ${kid} is not an RSA public key (${publicKey.asymmetricKeyType})`);
  return { kid, publicKey, developmentOnly: kid.startsWith('dev-') };
}
