import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { checkInstallable, decodeLicenseKey, LicenseKeyError, verifyLicenseKey, type VerifyContext } from '#licensing/key';
import { evaluateLicense } from '#licensing/state';
import { loadTrustedKeys } from '#licensing/trusted-keys';
import { EVALUATION_TERMS } from '#licensing/terms';
import { DAY, DEV_KID, FOREIGN_PRIVATE_KEY, issueTestLicense, licensePayload } from '../helpers/licenses';

const trustedKeys = loadTrustedKeys();
const context: VerifyContext = { trustedKeys, allowDevelopmentKeys: true, installationId: 'install-1' };

function reason(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.instance(error, LicenseKeyError);
    return (error as LicenseKeyError).reason;
  }
  throw new assert.Assertion({ message: 'expected a LicenseKeyError', generated: true, operator: 'throws' } as never);
}

const verify = suite('verifyLicenseKey');

verify('the build trusts the development public key under its kid', () => {
  assert.ok(trustedKeys.get(DEV_KID)?.developmentOnly);
});

verify('a key signed with the development key verifies and yields its payload', () => {
  const key = issueTestLicense({ licenseId: 'L-1', seats: { full: 7, connect: 3 } });
  const payload = verifyLicenseKey(key, context);
  assert.is(payload.licenseId, 'L-1');
  assert.equal(payload.seats, { full: 7, connect: 3 });
});

verify('line breaks inside a pasted key are ignored', () => {
  const key = issueTestLicense();
  const wrapped = key.match(/.{1,64}/g)!.join('\n');
  assert.is(verifyLicenseKey(`\n${wrapped}\n`, context).kid, DEV_KID);
});

verify('a key signed with a foreign key under the trusted kid: bad_signature', () => {
  assert.is(
    reason(() => verifyLicenseKey(issueTestLicense({}, { privateKey: FOREIGN_PRIVATE_KEY }), context)),
    'bad_signature',
  );
});

verify('a key naming a kid the build does not know: unknown_key_id', () => {
  const key = issueTestLicense({ kid: 'vendor-2031' }, { privateKey: FOREIGN_PRIVATE_KEY });
  assert.is(
    reason(() => verifyLicenseKey(key, context)),
    'unknown_key_id',
  );
});

verify('the development key is not trusted outside development and test', () => {
  assert.is(
    reason(() => verifyLicenseKey(issueTestLicense(), { ...context, allowDevelopmentKeys: false })),
    'unknown_key_id',
  );
});

verify('a tampered payload (more seats, same signature): bad_signature', () => {
  const [body, signature] = issueTestLicense({ seats: { full: 5, connect: 5 } }).split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  payload.seats.full = 5000;
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(payload).sort(([a], [b]) => (a < b ? -1 : 1))));
  // keys of nested objects are already in order; the payload stays canonical
  const forged = `${Buffer.from(canonical).toString('base64url')}.${signature}`;
  assert.is(decodeLicenseKey(forged).payload.seats.full, 5000);
  assert.is(
    reason(() => verifyLicenseKey(forged, context)),
    'bad_signature',
  );
});

verify('a tampered signature: bad_signature', () => {
  const [body, signature] = issueTestLicense().split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[10] = bytes[10] ^ 0xff;
  assert.is(
    reason(() => verifyLicenseKey(`${body}.${bytes.toString('base64url')}`, context)),
    'bad_signature',
  );
});

verify('garbage, a missing signature, non-JSON and invalid fields: malformed', () => {
  assert.is(
    reason(() => verifyLicenseKey('hello', context)),
    'malformed',
  );
  assert.is(
    reason(() => verifyLicenseKey(issueTestLicense().split('.')[0], context)),
    'malformed',
  );
  assert.is(
    reason(() => verifyLicenseKey(`${Buffer.from('not json').toString('base64url')}.AAAA`, context)),
    'malformed',
  );
  const bad = Buffer.from(JSON.stringify({ ...licensePayload(), seats: { full: -1, connect: 0 } })).toString('base64url');
  assert.is(
    reason(() => verifyLicenseKey(`${bad}.AAAA`, context)),
    'malformed',
  );
});

verify('a payload not in canonical form (same content, other key order): malformed', () => {
  const [body, signature] = issueTestLicense().split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  const reordered = Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(payload).reverse()))).toString('base64url');
  assert.is(
    reason(() => verifyLicenseKey(`${reordered}.${signature}`, context)),
    'malformed',
  );
});

verify('a key bound to another installation: wrong_deployment; bound to this one: valid', () => {
  assert.is(
    reason(() => verifyLicenseKey(issueTestLicense({ installationId: 'install-2' }), context)),
    'wrong_deployment',
  );
  assert.is(verifyLicenseKey(issueTestLicense({ installationId: 'install-1' }), context).installationId, 'install-1');
});

verify('the repository ships the development key pair, the private half labelled DEVELOPMENT ONLY', () => {
  const root = path.resolve(__dirname, '..', '..', '..');
  assert.match(fs.readFileSync(path.join(root, 'test', 'fixtures', 'dev-license-private-key.pem'), 'utf8'), /DEVELOPMENT ONLY/);
  assert.match(fs.readFileSync(path.join(root, 'config', 'license-keys', `${DEV_KID}.pem`), 'utf8'), /DEVELOPMENT ONLY/);
});

verify.run();

const installable = suite('checkInstallable');

installable('refuses an expired key (expired) and one issued in the future (not_yet_valid)', () => {
  const now = new Date('2030-06-01T00:00:00Z');
  assert.is(
    reason(() => checkInstallable(licensePayload({ expiresAt: '2030-05-31T23:59:59.000Z' }), now)),
    'expired',
  );
  assert.is(
    reason(() => checkInstallable(licensePayload({ issuedAt: '2030-06-03T00:00:00.000Z' }, now), now)),
    'not_yet_valid',
  );
  checkInstallable(licensePayload({}, now), now);
});

installable.run();

const evaluate = suite('evaluateLicense');
const options = { graceMs: 14 * DAY, toleranceMs: 60 * 60 * 1000, newestSeen: null };
const expiresAt = '2030-01-31T00:00:00.000Z';
const at = (iso: string) => new Date(iso);

evaluate('no key: evaluation allowance of 5 clients and 25 seats per type, every feature, never read-only', () => {
  const state = evaluateLicense(null, new Date(), options);
  assert.is(state.status, 'evaluation');
  assert.is(state.evaluation, true);
  assert.is(state.readOnly, false);
  assert.is(state.terms.maxClients, 5);
  assert.equal(state.terms.seats, { full: 25, connect: 25 });
  assert.equal(state.terms.features, EVALUATION_TERMS.features);
});

evaluate('active before expiry, grace (warning) for the grace period, then read-only', () => {
  const payload = licensePayload({ expiresAt }, at('2029-06-01T00:00:00Z'));
  const active = evaluateLicense(payload, at('2030-01-21T00:00:00Z'), options);
  assert.equal([active.status, active.readOnly, active.warning, active.daysToExpiry], ['active', false, false, 10]);
  const grace = evaluateLicense(payload, at('2030-02-10T00:00:00Z'), options);
  assert.equal([grace.status, grace.readOnly, grace.warning], ['grace', false, true]);
  assert.is(grace.readOnlyAt, '2030-02-14T00:00:00.000Z');
  const expired = evaluateLicense(payload, at('2030-02-14T00:00:00Z'), options);
  assert.equal([expired.status, expired.readOnly], ['expired', true]);
});

evaluate('a clock earlier than the newest time seen (beyond the tolerance) counts as expired', () => {
  const payload = licensePayload({ expiresAt }, at('2029-06-01T00:00:00Z'));
  const small = evaluateLicense(payload, at('2030-01-01T00:00:00Z'), { ...options, newestSeen: '2030-01-01T00:30:00.000Z' });
  assert.is(small.status, 'active');
  const back = evaluateLicense(payload, at('2030-01-01T00:00:00Z'), { ...options, newestSeen: '2030-01-03T00:00:00.000Z' });
  assert.equal([back.status, back.readOnly, back.clockRollback], ['clock_rollback', true, true]);
});

evaluate.run();
