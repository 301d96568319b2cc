import { createSecretKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '#config';
import type { Deps, Signals } from '#deps';
import { openDatabase, openPostgres } from '#db/connection';
import { migrateToLatest } from '#db/migrator';
import { tenantScope } from '#db/tenant';
import { ManualClock } from '#lib/clock';
import { createMetrics } from '#lib/metrics';
import { NetworkPolicy } from '#lib/network-policy';
import { PasswordHasher } from '#lib/password-hasher';
import { XliffPool } from '#lib/xliff-pool';
import { ImagePool } from '#lib/image-pool';
import { VerifiedTokenCache, type VerifiedClaims } from '#lib/verified-token-cache';
import { LicenseCache } from '#licensing/cache';
import { loadTrustedKeys } from '#licensing/trusted-keys';
import { createLogger } from '#logger';
import { createHotPath } from '#repos/hot-path';
import type { UserWithRoles } from '#repos/users';
import type { UserActor } from '#services/actor';
import { createClient } from '#services/clients';
import { createUser } from '#services/users';
import type { ChangedBy } from '#services/security-log';
import type { Role } from '#policies/roles';
import { createFileStore } from '#storage';
import { AppError } from '#errors';
import { approveVersion, createTemplate, publishVersion, submitVersion } from '#services/templates';
import { TEST_BACKEND, testPostgres } from './postgres';

/**
 * Services on their own, below any server: a Deps on a private database with
 * every migration applied, a manual clock, silent logs, and signals that wake
 * no worker (they are only counted, so a test can see that a service
 * announced its change). No data directory, secrets file, port or background
 * loop is involved.
 *
 * The database follows WIP_TEST_BACKEND, as test servers do
 * (test/helpers/server.ts): SQLite in memory (a copy of a database migrated
 * once per process: milliseconds), or with WIP_TEST_BACKEND=postgres a fresh
 * database of the test PostgreSQL server (test/helpers/postgres.ts; a copy of
 * its migrated template, a fraction of a second). `backend` forces one.
 * test/services runs on both (BOTH_BACKENDS in scripts/run-tests.ts); the
 * table-driven way to write those tests is test/helpers/scenarios.ts.
 *
 *   const deps = await serviceDeps();
 *   try { … services(deps, …) … } finally { await deps.close(); }
 */
export interface ServiceDeps extends Deps {
  clock: ManualClock;
  /** how often each signal was sent */
  signalled: Record<keyof Signals, number>;
  close(): Promise<void>;
}

export const PASSWORD = 'a long enough service-test password';

export async function serviceDeps(options: { env?: Record<string, string>; backend?: 'sqlite' | 'postgres' } = {}): Promise<ServiceDeps> {
  // never created unless a test stores a file (then under the OS temp folder)
  const dataDir = path.join(os.tmpdir(), `wip-service-test-${process.pid}-${randomBytes(4).toString('hex')}`);
  const config: Config = loadConfig({
    env: { WIP_ENV: 'test', WIP_DATA_DIR: dataDir, WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'silent', ...options.env },
  });
  const db =
    (options.backend ?? TEST_BACKEND) === 'postgres'
      ? openPostgres(await (await testPostgres()).freshDatabaseUrl(), { poolSize: 4 })
      : // every migration applied once per process; each Deps gets its own copy of the result
        openDatabase(dataDir, { inMemory: await migratedImage() });
  const secrets = {
    jwtSecret: randomBytes(64).toString('base64url'),
    cookieKeys: [randomBytes(32).toString('base64url')],
    vapid: { publicKey: '', privateKey: '' },
  };
  const signalled: ServiceDeps['signalled'] = {
    mailQueued: 0,
    deliverMail: 0,
    pushQueued: 0,
    webhooksDue: 0,
    clientEvent: 0,
    sessionEnded: 0,
    userEnded: 0,
    logWritten: 0,
    schedulesChanged: 0,
  };
  const count = (name: keyof Signals) => () => void signalled[name]++;
  const signals: Signals = {
    mailQueued: count('mailQueued'),
    deliverMail: async () => (signalled.deliverMail++, 0),
    pushQueued: count('pushQueued'),
    webhooksDue: count('webhooksDue'),
    clientEvent: count('clientEvent'),
    sessionEnded: count('sessionEnded'),
    userEnded: count('userEnded'),
    logWritten: count('logWritten'),
    schedulesChanged: count('schedulesChanged'),
  };
  const passwords = new PasswordHasher(config.bcryptCost, 1);
  const xliff = new XliffPool();
  const images = new ImagePool({ timeoutMs: config.imageJobTimeout, queueMax: config.imageQueueMax });
  return {
    config,
    db,
    clock: new ManualClock(),
    logger: createLogger({ logLevel: 'silent' }),
    passwords,
    xliff,
    images,
    secrets,
    jwtKey: createSecretKey(Buffer.from(secrets.jwtSecret, 'utf8')),
    hotPath: createHotPath(db),
    verifiedTokens: new VerifiedTokenCache<VerifiedClaims>(),
    licenseCache: new LicenseCache(loadTrustedKeys()),
    storage: createFileStore(dataDir),
    metrics: createMetrics(),
    webhookPolicy: new NetworkPolicy(config.webhookAllowedNetworks),
    signals,
    signalled,
    async close() {
      await passwords.close();
      await xliff.close();
      await images.close();
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

let image: Promise<Buffer> | undefined;

function migratedImage(): Promise<Buffer> {
  return (image ??= (async () => {
    const db = openDatabase('', { inMemory: true });
    await migrateToLatest(db);
    const bytes = db.sqlite.serialize();
    await db.close();
    return bytes;
  })());
}

/** The caller as authentication would build it from a session of this user (no session row is needed by services). */
export function actorOf(user: UserWithRoles): UserActor {
  const roles = user.roles;
  return {
    kind: 'user',
    userId: user.id,
    clientId: user.client_id,
    scope: tenantScope(user.client_id),
    email: user.email,
    roles,
    licenseType: user.license_type,
    sessionId: 0,
    via: 'bearer',
    user,
  };
}

let clients = 0;

/** Who made a change in these tests, for the security log. */
export const BY_TEST: ChangedBy = { actor: { kind: 'system', id: null, name: 'service test' } };

/** A client (evaluation license) with enough full seats, and a helper to add users of given roles to it. */
export async function seedClient(deps: Deps, seats = 10) {
  const n = ++clients;
  const { client, owner } = await createClient(deps, {
    name: `Service test client ${n}`,
    owner: { email: `owner${n}@example.com`, password: PASSWORD },
    seats: { full: seats },
  });
  const scope = tenantScope(client.id);
  let users = 0;
  const user = async (roles: Role[]): Promise<UserActor> => {
    const made = await createUser(
      deps,
      scope,
      {
        email: `${roles.join('-')}${++users}.c${n}@example.com`,
        roles,
        licenseType: 'full',
        firstName: roles[0],
        lastName: `User ${users}`,
        password: PASSWORD,
      },
      BY_TEST,
    );
    return actorOf(made);
  };
  return { client, scope, owner: actorOf(owner), user };
}

/** The AppError a service call is refused with (fails the test when it resolves or throws anything else). */
export async function refusal(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused with an AppError, but it succeeded');
}

/**
 * A template with `content` whose first version is PUBLISHED: written by an author, approved and published by two
 * others (separation of duties), each e-signing with PASSWORD. Jobs can be created from it.
 */
export async function publishedTemplate(
  deps: Deps,
  by: { author: UserActor; approver: UserActor; publisher: UserActor },
  content: unknown,
  title = 'Pump check',
): Promise<{ templateId: number; versionId: number }> {
  const meta = { ip: null, userAgent: null };
  const template = await createTemplate(deps, by.author, { title, content });
  const { id: versionId } = await deps.db.kysely
    .selectFrom('template_versions')
    .select('id')
    .where('template_id', '=', template.id)
    .executeTakeFirstOrThrow();
  await submitVersion(deps, by.author, versionId);
  await approveVersion(deps, by.approver, versionId, { password: PASSWORD }, meta);
  await publishVersion(deps, by.publisher, versionId, { password: PASSWORD }, meta);
  return { templateId: template.id, versionId };
}
