import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { FlattenedSign, type FlattenedJWS, type JWK } from 'jose';

/**
 * The appliance signing keys: Ed25519 key pairs made by node:crypto,
 * kept with the other secrets (secrets.json; on PostgreSQL the sealed shared
 * row), used through jose for JWS (RFC 7515, alg EdDSA of RFC 8037). Each
 * key's id is its RFC 7638 JWK thumbprint, which is also the fingerprint an
 * auditor notes: anyone can recompute it from the public key.
 *
 * Times are epoch milliseconds and the key type is implied, not written: the
 * log scrubber replaces every string of the secrets file in logs, and neither
 * a timestamp nor the word Ed25519 is a secret.
 */
export interface SigningKey {
  kid: string;
  /** the Ed25519 public key, base64url (the JWK's `x`; kty OKP, crv Ed25519 are implied) */
  x: string;
  /** PKCS#8 PEM; removed when the key is retired, so a retired key can never sign again */
  privateKey?: string;
  createdAt: number;
  retiredAt?: number;
}

/** A published key: the JWK with its id and use, and when it signed. */
export interface PublishedKey extends JWK {
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
  /** ISO time the key was made, and retired (absent: the active key) */
  createdAt: string;
  retiredAt?: string;
}

/**
 * RFC 7638 thumbprint of an Ed25519 public JWK: SHA-256 of its required
 * members in lexicographic order without whitespace, base64url. Synchronous
 * (secrets are made at start, before anything awaits); the verifier recomputes
 * it with jose's calculateJwkThumbprint, so the two cannot drift apart unseen.
 */
export function jwkThumbprint(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }), 'utf8')
    .digest('base64url');
}

/** The public key as a JWK. */
export const publicJwk = (key: SigningKey) => ({ kty: 'OKP' as const, crv: 'Ed25519' as const, x: key.x });

export function generateSigningKey(now: Date): SigningKey {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' }) as { x: string };
  return {
    kid: jwkThumbprint(x),
    x,
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    createdAt: now.getTime(),
  };
}

/** The key that signs now: the newest one not retired that still has its private half. */
export function activeSigningKey(keys: readonly SigningKey[] | undefined): SigningKey | undefined {
  return [...(keys ?? [])].reverse().find((k) => k.retiredAt === undefined && k.privateKey);
}

/** The keys after a rotation: the active one retired (its private key dropped), a new one active. */
export function rotatedKeys(keys: readonly SigningKey[] | undefined, now: Date): SigningKey[] {
  const retired = (keys ?? []).map(({ privateKey: _dropped, ...key }) => ({ ...key, retiredAt: key.retiredAt ?? now.getTime() }));
  return [...retired, generateSigningKey(now)];
}

/** Every key, active and retired, as the JWKS published at /.well-known/wip-signing-keys.json. */
export function publishedKeys(keys: readonly SigningKey[] | undefined): PublishedKey[] {
  return (keys ?? []).map((k) => ({
    ...publicJwk(k),
    kid: k.kid,
    alg: 'EdDSA',
    use: 'sig',
    createdAt: new Date(k.createdAt).toISOString(),
    ...(k.retiredAt === undefined ? {} : { retiredAt: new Date(k.retiredAt).toISOString() }),
  }));
}

/**
 * Signs `payload` (already serialized, usually canonical JSON) as a flattened
 * JWS. The protected header names the key (kid) and carries its public JWK,
 * so a verifier without the key set can still check integrity and show the
 * fingerprint to compare with the published one.
 */
export async function signJws(key: SigningKey, payload: string, typ: string): Promise<FlattenedJWS> {
  if (!key.privateKey) throw new Error(`signing key ${key.kid} has no private key (retired)`);
  return new FlattenedSign(new TextEncoder().encode(payload))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ, jwk: publicJwk(key) })
    .sign(createPrivateKey(key.privateKey));
}
