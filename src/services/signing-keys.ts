import type { Deps } from '#deps';
import { loadOrCreateSecrets, readSharedSecrets, rotateSharedSigningKey, rotateSigningKeyInFile } from '#secrets';
import { activeSigningKey, publishedKeys, signJws, type PublishedKey, type SigningKey } from '#lib/signing-keys';
import type { FlattenedJWS } from 'jose';

/**
 * The appliance's signing keys as the running process must see them: read
 * from where they are kept (secrets.json, or the shared row on PostgreSQL)
 * each time, not from what this process read at start, because `wip keys
 * rotate` runs in another process (and on PostgreSQL, other nodes sign too).
 * Signing is rare (a bundle, a checkpoint): one small read is nothing.
 */
export async function currentSigningKeys(deps: Deps): Promise<SigningKey[]> {
  const secrets =
    deps.db.dialect === 'postgres'
      ? await readSharedSecrets(deps.db.kysely, deps.config.masterKey!)
      : loadOrCreateSecrets(deps.config.dataDir).secrets;
  const keys = secrets?.signingKeys ?? [];
  deps.secrets.signingKeys = keys;
  return keys;
}

/** @throws Error when no key can sign (a data directory whose daemon never started since the upgrade) */
export async function signWithApplianceKey(deps: Deps, payload: string, typ: string): Promise<{ jws: FlattenedJWS; kid: string }> {
  const key = activeSigningKey(await currentSigningKeys(deps));
  if (!key) throw new Error('the appliance has no signing key yet: start the daemon once (it creates one) or run "wip keys rotate"');
  return { jws: await signJws(key, payload, typ), kid: key.kid };
}

/** The JWKS published at /.well-known/wip-signing-keys.json: every key, retired ones too, so old bundles stay verifiable. */
export async function signingKeySet(deps: Deps): Promise<{ keys: PublishedKey[] }> {
  return { keys: publishedKeys(await currentSigningKeys(deps)) };
}

/** `wip keys rotate`: retires the active key (its public half stays published) and makes a new one. */
export async function rotateApplianceKey(deps: Deps): Promise<{ keys: PublishedKey[]; active: string }> {
  const now = deps.clock.now();
  const keys =
    deps.db.dialect === 'postgres'
      ? await rotateSharedSigningKey(deps.db.kysely, deps.config.masterKey!, now)
      : rotateSigningKeyInFile(deps.config.dataDir, now);
  deps.secrets.signingKeys = keys;
  return { keys: publishedKeys(keys), active: activeSigningKey(keys)!.kid };
}
