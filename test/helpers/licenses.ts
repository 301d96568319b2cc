import fs from 'node:fs';
import path from 'node:path';
import { signLicense } from '#licensing/key';
import { FEATURES, type LicensePayload } from '#licensing/terms';

// License keys for tests, signed with the repository's development key (or a
// key no build trusts), exactly as scripts/issue-license signs them.

const fixtures = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures');
export const DEV_PRIVATE_KEY = fs.readFileSync(path.join(fixtures, 'dev-license-private-key.pem'), 'utf8');
export const FOREIGN_PRIVATE_KEY = fs.readFileSync(path.join(fixtures, 'foreign-license-private-key.pem'), 'utf8');
export const DEV_KID = 'dev-2026-11';
export const DAY = 86_400_000;

export function licensePayload(overrides: Partial<LicensePayload> = {}, now = new Date()): LicensePayload {
  return {
    v: 1,
    kid: DEV_KID,
    licenseId: `L-${Math.random().toString(36).slice(2, 10)}`,
    licensee: { name: 'Example Works', email: 'it@example.test' },
    installationId: null,
    issuedAt: new Date(now.getTime() - DAY).toISOString(),
    expiresAt: new Date(now.getTime() + 365 * DAY).toISOString(),
    seats: { full: 50, connect: 100 },
    maxClients: 10,
    features: [...FEATURES],
    ...overrides,
  };
}

export function issueTestLicense(overrides: Partial<LicensePayload> = {}, options: { now?: Date; privateKey?: string } = {}): string {
  return signLicense(licensePayload(overrides, options.now), options.privateKey ?? DEV_PRIVATE_KEY);
}
