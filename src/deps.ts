import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { Config } from './config';
import { openDatabase, openPostgres, type Database } from './db/connection';
import { systemClock, type Clock } from './lib/clock';
import { createMetrics, type Metrics } from './lib/metrics';
import { PasswordHasher } from './lib/password-hasher';
import { createLogger, type Logger } from './logger';
import { Mailer } from './mail/mailer';
import { PushSender } from './push/sender';
import { createHotPath, type HotPathLookups } from './repos/hot-path';
import { VerifiedTokenCache } from './lib/verified-token-cache';
import type { VerifiedClaims } from './services/auth';
import { loadOrCreateSecrets, loadOrCreateSharedSecrets, type Secrets } from './secrets';
import { LicenseCache } from './licensing/cache';
import { loadTrustedKeys } from './licensing/trusted-keys';
import { createFileStore, type FileStore } from './storage';
import { createS3FileStore } from './storage/s3';
import { WebhookSender } from './events/webhook-sender';
import { EventStreams } from './events/streams';
import { LogTail } from './events/log-tail';
import { BackupJobs } from './ops/backup-jobs';

/**
 * Everything a request, a service or a CLI command needs, built once and passed
 * down. No module-level singletons: tests start many servers in one process.
 */
export interface Deps {
  config: Config;
  db: Database;
  clock: Clock;
  logger: Logger;
  passwords: PasswordHasher;
  secrets: Secrets;
  /** the JWT signing key as a KeyObject: a plain string makes jsonwebtoken try to parse a PEM on every verify */
  jwtKey: KeyObject;
  /** prepared statements for what every request reads (session, roles, license state) */
  hotPath: HotPathLookups;
  /** access tokens already verified (signature, issuer, audience), by token text */
  verifiedTokens: VerifiedTokenCache<VerifiedClaims>;
  /** the mail outbox's sender; its retry loop runs only in the daemon (startServer) */
  mailer: Mailer;
  /** the web push queue's sender; like the mailer, its retry loop runs only in the daemon */
  push: PushSender;
  /** trusted license-signing keys and the last verified installed key */
  licenseCache: LicenseCache;
  /** uploaded and generated files under <data-dir>/files */
  storage: FileStore;
  /** Prometheus metrics of this instance (own registry), served by GET /metrics */
  metrics: Metrics;
  /** set by startServer once listening: the scheme and port really served (links in mails) */
  served?: { scheme: 'http' | 'https'; port: number };
  /** the webhook deliveries' sender; its retry loop runs only in the daemon (startServer) */
  webhooks: WebhookSender;
  /** open live event streams (GET /api/client/events) */
  eventStreams: EventStreams;
  /** open live log tails of system administrators (GET /api/admin/logs/stream) */
  logTail: LogTail;
  /** backups started from the API (POST /api/admin/backups) and their progress */
  backupJobs: BackupJobs;
}

export interface DepsOverrides {
  clock?: Clock;
  logger?: Logger;
}

/**
 * Opens the data directory (creating secrets when missing) or, with
 * databaseUrl, the PostgreSQL pool. Does not migrate: see bootstrap. In
 * PostgreSQL mode the secrets live in the database: `loadSharedSecrets` fills
 * them in once the schema is migrated; until then nothing can sign or verify.
 */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const secrets = config.databaseUrl ? unloadedSecrets() : loadOrCreateSecrets(config.dataDir).secrets;
  const metrics = createMetrics();
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, { onQuery: metrics.observeQuery, poolSize: config.databasePoolSize })
    : openDatabase(config.dataDir, { onQuery: metrics.observeQuery });
  const clock = overrides.clock ?? systemClock;
  metrics.watchDatabase(db.kysely, clock);
  const logger = overrides.logger ?? createLogger(config);
  const deps = {
    config,
    db,
    clock,
    logger,
    mailer: new Mailer({ config, db, clock, logger }),
    push: new PushSender({ config, db, clock, logger, secrets }),
    passwords: new PasswordHasher(config.bcryptCost),
    secrets,
    jwtKey: createSecretKey(Buffer.from(secrets.jwtSecret, 'utf8')),
    hotPath: createHotPath(db),
    verifiedTokens: new VerifiedTokenCache<VerifiedClaims>(),
    licenseCache: new LicenseCache(loadTrustedKeys()),
    storage: config.fileStore === 'local' ? createFileStore(config.dataDir) : createS3FileStore(config),
    metrics,
  } as Omit<Deps, 'webhooks' | 'eventStreams' | 'logTail' | 'backupJobs'> as Deps;
  // both read the rest of Deps (the sender mails, the streams check sessions)
  deps.webhooks = new WebhookSender(deps);
  deps.eventStreams = new EventStreams(deps);
  deps.logTail = new LogTail(deps);
  deps.backupJobs = new BackupJobs(deps);
  return deps;
}

/** Placeholders until the shared secrets are read: a random signing key, so nothing signed now is accepted anywhere. */
function unloadedSecrets(): Secrets {
  return { jwtSecret: randomBytes(64).toString('base64url'), cookieKeys: [randomBytes(32).toString('base64url')], vapid: { publicKey: '', privateKey: '' } };
}

/** PostgreSQL mode: reads (first node: creates) the secrets all nodes share. Needs the migrated schema. No-op on SQLite. */
export async function loadSharedSecrets(deps: Deps): Promise<void> {
  if (deps.db.dialect !== 'postgres') return;
  const shared = await loadOrCreateSharedSecrets(deps.db.kysely, deps.config.masterKey!, deps.clock.now());
  Object.assign(deps.secrets, shared);
  deps.jwtKey = createSecretKey(Buffer.from(shared.jwtSecret, 'utf8'));
}

export async function closeDeps(deps: Deps): Promise<void> {
  deps.eventStreams.closeAll();
  deps.logTail.closeAll();
  // a backup in progress reads the database: it finishes (or fails) before the database closes
  await deps.backupJobs.settled();
  await deps.webhooks.close();
  await deps.mailer.close();
  await deps.push.close();
  await deps.passwords.close();
  await deps.db.close();
}
