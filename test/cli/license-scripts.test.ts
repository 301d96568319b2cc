import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { verifyLicenseKey } from '#licensing/key';
import { loadTrustedKeys } from '#licensing/trusted-keys';

const root = path.resolve(__dirname, '..', '..', '..');
const script = (name: string) => path.join(root, 'dist', 'scripts', `${name}.js`);

const scripts = suite('scripts/license-keygen and scripts/issue-license');

scripts('a vendor key pair signs keys that a build trusting its public key accepts, with the terms given', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-keys-'));
  try {
    const publicDir = path.join(dir, 'license-keys');
    const privateKey = path.join(dir, 'acme-2031.private.pem');
    const keygen = spawnSync(process.execPath, [
      script('license-keygen'),
      '--kid',
      'acme-2031',
      '--public-dir',
      publicDir,
      '--private-out',
      privateKey,
    ]);
    assert.is(keygen.status, 0, keygen.stderr.toString());
    assert.is(fs.statSync(privateKey).mode & 0o777, 0o600);
    const out = path.join(dir, 'customer.lic');
    const issue = spawnSync(process.execPath, [
      script('issue-license'),
      '--private-key',
      privateKey,
      '--licensee',
      'Example GmbH',
      '--expires',
      '2031-12-31',
      '--full',
      '12',
      '--connect',
      '34',
      '--max-clients',
      '3',
      '--features',
      'sso,graphql',
      '--installation-id',
      'inst-9',
      '--out',
      out,
    ]);
    assert.is(issue.status, 0, issue.stderr.toString());
    const key = fs.readFileSync(out, 'utf8').trim();
    assert.is(issue.stdout.toString().trim(), key);
    const payload = verifyLicenseKey(key, {
      trustedKeys: loadTrustedKeys(publicDir),
      allowDevelopmentKeys: false,
      installationId: 'inst-9',
    });
    assert.equal(
      [payload.kid, payload.licensee.name, payload.expiresAt, payload.seats, payload.maxClients, payload.features],
      ['acme-2031', 'Example GmbH', '2031-12-31T00:00:00.000Z', { full: 12, connect: 34 }, 3, ['sso', 'graphql']],
    );
    // the shipped build does not know this vendor key
    assert.throws(
      () => verifyLicenseKey(key, { trustedKeys: loadTrustedKeys(), allowDevelopmentKeys: true, installationId: 'inst-9' }),
      /does not trust/,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

scripts('issue-license refuses incomplete terms with exit 1', () => {
  const res = spawnSync(process.execPath, [
    script('issue-license'),
    '--private-key',
    path.join(root, 'test', 'fixtures', 'dev-license-private-key.pem'),
    '--licensee',
    'X',
  ]);
  assert.is(res.status, 1);
  assert.match(res.stderr.toString(), /issue-license:/);
});

scripts.run();
