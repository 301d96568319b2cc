import { createSecretKey, randomBytes } from 'node:crypto';
import type { Config } from '#config';
import type { Deps, Signals } from '#deps';
import { openDatabase, openPostgres } from '#db/connection';
import { systemClock, type Clock } from '#lib/clock';
import { createMetrics } from '#lib/metrics';
import { NetworkPolicy } from '#lib/network-policy';
import { PasswordHasher } from '#lib/password-hasher';
import { VerifiedTokenCache, type VerifiedClaims } from '#lib/verified-token-cache';
import { XliffPool } from '#lib/xliff-pool';
import { ImagePool } from '#lib/image-pool';
import { createLogger, type Logger } from '#logger';
import { LicenseCache } from '#licensing/cache';
import { loadTrustedKeys } from '#licensing/trusted-keys';
import { createHotPath } from '#repos/hot-path';
import { seatTotalsAcrossClients } from '#repos/licensing/seat-allocations';
import { countActiveSessionsAcrossClients } from '#repos/sessions';
import { countActiveAdminSessions } from '#repos/system-admins';
import { loadOrCreateSecrets, type Secrets } from '#secrets';
import { createFileStore } from '#storage';
import { createS3FileStore } from '#storage/s3';
import type { AppDeps } from '#workers';
import { BackupJobs } from '#workers/backup-jobs';
import { EventStreams } from '#workers/event-streams';
import { LogTail } from '#workers/log-tail';
import { Mailer } from '#workers/mailer';
import { PushSender } from '#workers/push-sender';
import { WebhookSender } from '#workers/webhook-sender';
import { ScheduleWorker } from '#workers/schedule-worker';
import { KeyLeases } from '#workers/key-leases';
import { outsideRequestUnit } from '#db/request-transaction';
import { DataEpoch } from '#workers/data-epoch';
import { currentUserActor } from '#services/auth';
import { assertSqliteDatabaseNotLost } from '#ops/lost-database';

/**
 * The composition root: the one place that builds the object graph — the
 * services' Deps, the background workers (src/workers) and the signals that
 * connect them. Everything else receives what it needs; nothing else calls
 * `new` on a worker. See docs/architecture/layers.md.
 */

export interface DepsOverrides {
  clock?: Clock;
  logger?: Logger;
  /** `wip serve --new-database`: the lost database was set aside; start anew beside the existing secrets (src/ops/lost-database.ts) */
  newDatabase?: boolean;
}

/**
 * Opens the data directory (creating secrets when missing; refusing one whose
 * database was lost: LostDatabaseError) or, with
 * databaseUrl, the PostgreSQL pool. Does not migrate: see ops/bootstrap. In
 * PostgreSQL mode the secrets live in the database: `loadSharedSecrets`
 * (ops/bootstrap) fills them in once the schema is migrated; until then
 * nothing can sign or verify.
 */
export function createDeps(config: Config, overrides: DepsOverrides = {}): AppDeps {
  // before anything opens (and so creates) the database: an initialised data directory never starts over by accident
  if (!config.databaseUrl && !overrides.newDatabase) assertSqliteDatabaseNotLost(config.dataDir);
  const secrets = config.databaseUrl ? unloadedSecrets() : loadOrCreateSecrets(config.dataDir).secrets;
  const metrics = createMetrics();
  const db = config.databaseUrl
    ? openPostgres(config.databaseUrl, { onQuery: metrics.observeQuery, poolSize: config.databasePoolSize })
    : openDatabase(config.dataDir, { onQuery: metrics.observeQuery });
  const clock = overrides.clock ?? systemClock;
  metrics.watchDatabase({
    async activeSessions() {
      const now = clock.now().toISOString();
      const [users, admins] = await Promise.all([
        countActiveSessionsAcrossClients(db.kysely, now),
        countActiveAdminSessions(db.kysely, now),
      ]);
      return { users, admins };
    },
    seatTotals: () => seatTotalsAcrossClients(db.kysely, clock.now().toISOString()),
  });
  const logger = overrides.logger ?? createLogger(config);

  // The signals reach workers built just below; they are only called after a commit, long after this returns.
  // The workers' work never joins the open transaction of the keyed request that signalled them (request-transaction.ts).
  const signals: Signals = {
    mailQueued: outsideRequestUnit(() => app.mailer.kick()),
    deliverMail: outsideRequestUnit(() => app.mailer.deliverDue()),
    pushQueued: outsideRequestUnit(() => app.push.kick()),
    webhooksDue: outsideRequestUnit(() => app.webhooks.kick()),
    clientEvent: outsideRequestUnit((clientId: number) => app.eventStreams.notify(clientId)),
    sessionEnded: outsideRequestUnit((sessionId: number) => app.eventStreams.endSession(sessionId)),
    userEnded: outsideRequestUnit((clientId: number, userId: number) => app.eventStreams.endUser(clientId, userId)),
    logWritten: outsideRequestUnit(() => app.logTail.notify()),
    schedulesChanged: outsideRequestUnit(() => app.schedules.kick()),
  };
  const deps: Deps = {
    config,
    db,
    clock,
    logger,
    passwords: new PasswordHasher(config.bcryptCost),
    xliff: new XliffPool(),
    images: new ImagePool({ timeoutMs: config.imageJobTimeout, queueMax: config.imageQueueMax }),
    secrets,
    jwtKey: createSecretKey(Buffer.from(secrets.jwtSecret, 'utf8')),
    hotPath: createHotPath(db),
    verifiedTokens: new VerifiedTokenCache<VerifiedClaims>(),
    licenseCache: new LicenseCache(loadTrustedKeys()),
    storage: config.fileStore === 'local' ? createFileStore(config.dataDir) : createS3FileStore(config),
    metrics,
    webhookPolicy: new NetworkPolicy(config.webhookAllowedNetworks),
    signals,
  };
  // One object (not a copy): loadSharedSecrets and startServer update deps in place, and the workers hold it.
  const app: AppDeps = Object.assign(deps, {
    mailer: new Mailer({ config, db, clock, logger }),
    push: new PushSender({ config, db, clock, logger, secrets }),
    webhooks: new WebhookSender(deps),
    eventStreams: new EventStreams(deps, {
      currentActor: (sessionId, via) => currentUserActor(deps, sessionId, via),
      templateVisible: async (actor, templateId) => {
        // The template service (with the template domain and its schemas) loads with the first template
        // event of a live stream, not at every start (scripts/bench/HISTORY.md): a lazy edge, declared here.
        const { templateVisibleTo } = require('#services/templates') as typeof import('#services/templates');
        return templateVisibleTo(deps.db.kysely, actor, templateId);
      },
    }),
    logTail: new LogTail(deps),
    backupJobs: new BackupJobs(deps),
    keyLeases: new KeyLeases({ db, clock, logger, dataDir: config.dataDir }),
    dataEpoch: new DataEpoch(db),
    // the schedule service (with the template service and the recurrence library) loads with the first round, after the start
    schedules: new ScheduleWorker({
      logger,
      pollInterval: config.schedulePollInterval,
      round: () => (require('#services/schedules') as typeof import('#services/schedules')).materialiseSchedules(deps),
    }),
  });
  return app;
}

/** Placeholders until the shared secrets are read: a random signing key, so nothing signed now is accepted anywhere. */
function unloadedSecrets(): Secrets {
  return {
    jwtSecret: randomBytes(64).toString('base64url'),
    cookieKeys: [randomBytes(32).toString('base64url')],
    vapid: { publicKey: '', privateKey: '' },
  };
}

export async function closeDeps(deps: AppDeps): Promise<void> {
  deps.eventStreams.closeAll();
  deps.logTail.closeAll();
  // a backup in progress reads the database: it finishes (or fails) before the database closes
  await deps.backupJobs.settled();
  await deps.schedules.close();
  await deps.keyLeases.close();
  await deps.webhooks.close();
  await deps.mailer.close();
  await deps.push.close();
  await deps.passwords.close();
  await deps.xliff.close();
  await deps.images.close();
  await deps.db.close();
}
