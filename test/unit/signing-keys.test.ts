import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { calculateJwkThumbprint } from 'jose';
import { activeSigningKey, generateSigningKey, publishedKeys, publicJwk, rotatedKeys } from '#lib/signing-keys';
import { loadOrCreateSecrets, rotateSigningKeyInFile } from '#secrets';

// The appliance signing keys: the synchronous fingerprint is the
// RFC 7638 thumbprint jose computes; secrets files from before the feature get
// a key added, keeping every other secret; rotation retires without losing.

test('a key id is the RFC 7638 thumbprint of its public JWK (as jose computes it)', async () => {
  for (let i = 0; i < 5; i++) {
    const key = generateSigningKey(new Date());
    assert.is(key.kid, await calculateJwkThumbprint(publicJwk(key), 'sha256'));
    assert.match(key.privateKey!, /^-----BEGIN PRIVATE KEY-----/);
  }
});

test('rotation: the active key retired without its private half, a new one active, both published', () => {
  const first = generateSigningKey(new Date('2026-01-01T00:00:00Z'));
  const keys = rotatedKeys([first], new Date('2026-06-01T00:00:00Z'));
  assert.is(keys.length, 2);
  assert.is(keys[0].kid, first.kid);
  assert.is(keys[0].privateKey, undefined);
  assert.is(activeSigningKey(keys)!.kid, keys[1].kid);
  const published = publishedKeys(keys);
  assert.equal(
    published.map((k) => [k.kid, k.retiredAt ?? null]),
    [
      [first.kid, '2026-06-01T00:00:00.000Z'],
      [keys[1].kid, null],
    ],
  );
  assert.ok(published.every((k) => !('d' in k) && !('privateKey' in k)));
});

test('a secrets file written before records were signed gets a signing key, every other secret kept; rotation rewrites it', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-keys-'));
  try {
    const old = { jwtSecret: 'j'.repeat(64), cookieKeys: ['c'.repeat(32)], vapid: { publicKey: 'pub', privateKey: 'priv' } };
    fs.writeFileSync(path.join(dir, 'secrets.json'), JSON.stringify(old), { mode: 0o600 });
    const { secrets } = loadOrCreateSecrets(dir);
    assert.equal([secrets.jwtSecret, secrets.cookieKeys, secrets.vapid], [old.jwtSecret, old.cookieKeys, old.vapid]);
    assert.is(secrets.signingKeys?.length, 1);
    assert.is(loadOrCreateSecrets(dir).secrets.signingKeys![0].kid, secrets.signingKeys![0].kid, 'made once, then read');
    const rotated = rotateSigningKeyInFile(dir, new Date());
    assert.is(rotated.length, 2);
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8'));
    assert.equal(
      onDisk.signingKeys.map((k: any) => k.kid),
      rotated.map((k) => k.kid),
    );
    assert.is(onDisk.jwtSecret, old.jwtSecret);
    assert.is(fs.statSync(path.join(dir, 'secrets.json')).mode & 0o777, 0o600);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
