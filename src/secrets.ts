import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type WebPush from 'web-push';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import { SecretBox } from '#lib/secret-box';
import { generateSigningKey, rotatedKeys, type SigningKey } from '#lib/signing-keys';

/** Secrets generated on first start and kept in <data-dir>/secrets.json (mode 0600). */
export interface Secrets {
  jwtSecret: string;
  cookieKeys: string[];
  /** the VAPID key pair web push is signed with (base64url: uncompressed P-256 point, raw private scalar) */
  vapid: { publicKey: string; privateKey: string };
  /**
   * the appliance's Ed25519 signing keys (they sign record bundles and chain
   * checkpoints), the active one last; retired ones keep only their public half.
   * Absent in a file written before records were signed, until the daemon's next start.
   */
  signingKeys?: SigningKey[];
}

export function secretsPath(dataDir: string): string {
  return path.join(dataDir, 'secrets.json');
}

/**
 * Reads the secrets, generating them when absent. A file written by an older
 * version gets the secrets it lacks added (the VAPID key pair, the signing key), keeping
 * every existing one. Returns whether the file was created now.
 */
export function loadOrCreateSecrets(dataDir: string): { secrets: Secrets; created: boolean } {
  const file = secretsPath(dataDir);
  let existing: Partial<Secrets> | undefined;
  try {
    existing = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Secrets>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (existing) {
    if (typeof existing.jwtSecret !== 'string' || !Array.isArray(existing.cookieKeys) || existing.cookieKeys.length === 0) {
      throw new Error(`${file} is incomplete`);
    }
    if (isVapidPair(existing.vapid) && hasSigningKeys(existing)) return { secrets: existing as Secrets, created: false };
    const added = {
      ...existing,
      vapid: isVapidPair(existing.vapid) ? existing.vapid : vapidKeys(),
      signingKeys: hasSigningKeys(existing) ? existing.signingKeys : [signingKey()],
    };
    return { secrets: upgradeSecrets(file, added as Secrets), created: false };
  }
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const secrets = generateSecrets();
  // 'wx': never overwrite secrets another process created a moment ago.
  try {
    fs.writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return loadOrCreateSecrets(dataDir);
    throw error;
  }
  return { secrets, created: true };
}

function hasSigningKeys(secrets: Partial<Secrets>): boolean {
  return Array.isArray(secrets.signingKeys) && secrets.signingKeys.length > 0;
}

function isVapidPair(value: unknown): value is Secrets['vapid'] {
  const pair = value as Secrets['vapid'] | undefined;
  return typeof pair?.publicKey === 'string' && typeof pair.privateKey === 'string';
}

/**
 * Rewrites the file with the added secrets: a temporary file renamed over it,
 * so a crash leaves the old file or the new one, never half of one. Two
 * processes upgrading at the same instant both rename; the file is then read
 * back so each uses what is on disk.
 */
function upgradeSecrets(file: string, secrets: Secrets): Secrets {
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(temporary, file);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Secrets;
}

function generateSecrets(): Secrets {
  return {
    jwtSecret: randomBytes(64).toString('base64url'),
    cookieKeys: [randomBytes(32).toString('base64url')],
    vapid: vapidKeys(),
    signingKeys: [signingKey()],
  };
}

function signingKey(): SigningKey {
  return generateSigningKey(new Date());
}

/**
 * `wip keys rotate` on a data directory (SQLite): the active signing key is
 * retired (its private half dropped, its public half still published) and a
 * new one made. The file is replaced whole (temporary file renamed over it);
 * the daemon reads the keys from the file each time it signs, so it signs with
 * the new key from the next bundle on, without a restart.
 */
export function rotateSigningKeyInFile(dataDir: string, now: Date): SigningKey[] {
  const { secrets } = loadOrCreateSecrets(dataDir);
  return upgradeSecrets(secretsPath(dataDir), { ...secrets, signingKeys: rotatedKeys(secrets.signingKeys, now) }).signingKeys!;
}

const SHARED_SECRETS_ROW = 'appliance';

/**
 * PostgreSQL mode: the secrets all nodes share, kept in the database sealed
 * with a key derived from the master key (WIP_MASTER_KEY). The first node
 * generates them; every later one (and every CLI command) reads the same row,
 * so a token one node issued is accepted by every other.
 * @throws Error when the master key does not open the stored secrets
 */
export async function loadOrCreateSharedSecrets(db: Kysely<DB>, masterKey: string, now: Date): Promise<Secrets> {
  const box = new SecretBox(masterKey, 'shared-secrets');
  // the first node's row wins: a concurrent start inserts nothing and reads that row
  await db
    .insertInto('shared_secrets')
    .values({ name: SHARED_SECRETS_ROW, sealed: box.seal(JSON.stringify(generateSecrets())), created_at: now.toISOString() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const secrets = (await readSharedSecrets(db, masterKey))!;
  if (hasSigningKeys(secrets)) return secrets;
  // a row written before records were signed: the first node to start adds the signing key
  return updateSharedSecrets(db, masterKey, (current) => (hasSigningKeys(current) ? current : { ...current, signingKeys: [signingKey()] }));
}

/**
 * Changes the shared secrets under a row lock, so two nodes (or a node and
 * `wip keys rotate`) never both write what each read: the second waits, then
 * sees the first one's change.
 */
export async function updateSharedSecrets(db: Kysely<DB>, masterKey: string, change: (current: Secrets) => Secrets): Promise<Secrets> {
  const box = new SecretBox(masterKey, 'shared-secrets');
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('shared_secrets')
      .select('sealed')
      .where('name', '=', SHARED_SECRETS_ROW)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw new Error('no shared secrets yet: start a node first');
    const next = change(JSON.parse(box.open(row.sealed)) as Secrets);
    await trx
      .updateTable('shared_secrets')
      .set({ sealed: box.seal(JSON.stringify(next)) })
      .where('name', '=', SHARED_SECRETS_ROW)
      .execute();
    return next;
  });
}

/** `wip keys rotate` on PostgreSQL: like rotateSigningKeyInFile, in the shared row every node reads. */
export async function rotateSharedSigningKey(db: Kysely<DB>, masterKey: string, now: Date): Promise<SigningKey[]> {
  const next = await updateSharedSecrets(db, masterKey, (current) => ({ ...current, signingKeys: rotatedKeys(current.signingKeys, now) }));
  return next.signingKeys!;
}

/** The shared secrets, or null before the first node created them. @throws Error when the master key does not open them */
export async function readSharedSecrets(db: Kysely<DB>, masterKey: string): Promise<Secrets | null> {
  const row = await db.selectFrom('shared_secrets').select('sealed').where('name', '=', SHARED_SECRETS_ROW).executeTakeFirst();
  if (!row) return null;
  try {
    return JSON.parse(new SecretBox(masterKey, 'shared-secrets').open(row.sealed)) as Secrets;
  } catch {
    throw new Error(
      'WIP_MASTER_KEY does not open the secrets stored in this database: every node (and the CLI) needs the master key the first node started with',
    );
  }
}

/** Writes given secrets (a move from SQLite: tokens issued before it keep working); refuses to replace existing ones. */
export async function storeSharedSecrets(db: Kysely<DB>, masterKey: string, secrets: Secrets, now: Date): Promise<void> {
  const box = new SecretBox(masterKey, 'shared-secrets');
  await db
    .insertInto('shared_secrets')
    .values({ name: SHARED_SECRETS_ROW, sealed: box.seal(JSON.stringify(secrets)), created_at: now.toISOString() })
    .execute();
}

/** A new VAPID key pair; web-push is loaded only when one is made (first start, or an upgrade adding it). */
function vapidKeys(): Secrets['vapid'] {
  return (require('web-push') as typeof WebPush).generateVAPIDKeys();
}
