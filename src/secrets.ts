import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type WebPush from 'web-push';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';
import { SecretBox } from '#lib/secret-box';

/** Secrets generated on first start and kept in <data-dir>/secrets.json (mode 0600). */
export interface Secrets {
  jwtSecret: string;
  cookieKeys: string[];
  /** the VAPID key pair web push is signed with (base64url: uncompressed P-256 point, raw private scalar) */
  vapid: { publicKey: string; privateKey: string };
}

export function secretsPath(dataDir: string): string {
  return path.join(dataDir, 'secrets.json');
}

/**
 * Reads the secrets, generating them when absent. A file written by an older
 * version gets the secrets it lacks added (today: the VAPID key pair), keeping
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
    if (isVapidPair(existing.vapid)) return { secrets: existing as Secrets, created: false };
    return { secrets: upgradeSecrets(file, { ...existing, vapid: vapidKeys() } as Secrets), created: false };
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
  };
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
  return (await readSharedSecrets(db, masterKey))!;
}

/** The shared secrets, or null before the first node created them. @throws Error when the master key does not open them */
export async function readSharedSecrets(db: Kysely<DB>, masterKey: string): Promise<Secrets | null> {
  const row = await db.selectFrom('shared_secrets').select('sealed').where('name', '=', SHARED_SECRETS_ROW).executeTakeFirst();
  if (!row) return null;
  try {
    return JSON.parse(new SecretBox(masterKey, 'shared-secrets').open(row.sealed)) as Secrets;
  } catch {
    throw new Error('WIP_MASTER_KEY does not open the secrets stored in this database: every node (and the CLI) needs the master key the first node started with');
  }
}

/** Writes given secrets (a move from SQLite: tokens issued before it keep working); refuses to replace existing ones. */
export async function storeSharedSecrets(db: Kysely<DB>, masterKey: string, secrets: Secrets, now: Date): Promise<void> {
  const box = new SecretBox(masterKey, 'shared-secrets');
  await db.insertInto('shared_secrets').values({ name: SHARED_SECRETS_ROW, sealed: box.seal(JSON.stringify(secrets)), created_at: now.toISOString() }).execute();
}

/** A new VAPID key pair; web-push is loaded only when one is made (first start, or an upgrade adding it). */
function vapidKeys(): Secrets['vapid'] {
  return (require('web-push') as typeof WebPush).generateVAPIDKeys();
}
