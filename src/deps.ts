import { createSecretKey, type KeyObject } from 'node:crypto';
import type { Config } from './config';
import { openDatabase, type Database } from './db/connection';
import { systemClock, type Clock } from './lib/clock';
import { createMetrics, type Metrics } from './lib/metrics';
import { PasswordHasher } from './lib/password-hasher';
import { createLogger, type Logger } from './logger';
import { Mailer } from './mail/mailer';
import { PushSender } from './push/sender';
import { prepareHotPath, type HotPathLookups } from './repos/hot-path';
import { VerifiedTokenCache } from './lib/verified-token-cache';
import type { VerifiedClaims } from './services/auth';
import { loadOrCreateSecrets, type Secrets } from './secrets';
import { LicenseCache } from './licensing/cache';
import { loadTrustedKeys } from './licensing/trusted-keys';
import { createFileStore, type FileStore } from './storage';
import { WebhookSender } from './events/webhook-sender';
import { EventStreams } from './events/streams';

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
}

export interface DepsOverrides {
  clock?: Clock;
  logger?: Logger;
}

/** Opens the data directory (creating secrets when missing). Does not migrate: see bootstrap. */
export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const { secrets } = loadOrCreateSecrets(config.dataDir);
  const metrics = createMetrics();
  const db = openDatabase(config.dataDir, { onQuery: metrics.observeQuery });
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
    hotPath: prepareHotPath(db.sqlite, db.writes),
    verifiedTokens: new VerifiedTokenCache<VerifiedClaims>(),
    licenseCache: new LicenseCache(loadTrustedKeys()),
    storage: createFileStore(config.dataDir),
    metrics,
  } as Omit<Deps, 'webhooks' | 'eventStreams'> as Deps;
  // both read the rest of Deps (the sender mails, the streams check sessions)
  deps.webhooks = new WebhookSender(deps);
  deps.eventStreams = new EventStreams(deps);
  return deps;
}

export async function closeDeps(deps: Deps): Promise<void> {
  deps.eventStreams.closeAll();
  await deps.webhooks.close();
  await deps.mailer.close();
  await deps.push.close();
  await deps.passwords.close();
  await deps.db.close();
}
