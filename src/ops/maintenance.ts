import path from 'node:path';
import { version } from '../../package.json';
import type { Deps } from '#deps';
import { pruneLogs } from '#services/logs';
import { pruneWebrtcLogs } from '#services/diagnostics';
import {
  applyRetention,
  BACKUP_PREFIXES,
  backupTakenAt,
  createBackup,
  defaultBackupName,
  newestBackup,
  type BackupProgress,
  type BackupResult,
} from './backup-archive';
import { createPostgresBackup } from './postgres-backup';
import { NODE_NAME, runOncePerPeriod } from './run-once';
import { backupDir } from '#lib/paths';
import { withTransaction } from '#db/transaction';
import { emitEvent } from '#events/emit';
import { pruneEvents } from '#repos/events';
import { pruneIdempotencyKeys } from '#repos/idempotency';
import { pruneExpiredRefreshTokens } from '#repos/sessions';
import { pruneExpiredUserTokens } from '#repos/user-tokens';
import { collectFileGarbage } from '#services/files';
import { pruneFinished } from '#repos/outbox';
import { removeMailFilesWithoutRow } from '#mail/outbox-files';
import { dailyCheckpoints } from '#services/checkpoints';
import { retryCheckpointTimestamps } from '#services/timestamps';
import { noticeSkillExpiries } from '#services/qualifications';

export const SCHEDULED_PREFIX = BACKUP_PREFIXES.scheduled;
export const PRE_UPGRADE_PREFIX = BACKUP_PREFIXES['pre-upgrade'];
const DAY = 86_400_000;

export interface Maintenance {
  /** one round: prune logs and (unless `backups: false`) take the scheduled backup when due */
  runOnce(options?: { backups?: boolean }): Promise<void>;
  /** stops the timer and waits for a round in progress (the database closes next) */
  stop(): Promise<void>;
}

/**
 * The daemon's housekeeping: log retention (logs and WebRTC logs, events, expired tokens,
 * delivered mail and pushes; on start, then daily; every node prunes, which is idempotent) and, with backupSchedule=daily, a backup into backupDir
 * every 24 h keeping the newest backupRetention ones (on PostgreSQL, one node per day). Checked every `intervalMs` (an hour) against the clock.
 * Failures are logged, never thrown: housekeeping must not stop the service.
 */
export function startMaintenance(deps: Deps, options: { intervalMs?: number } = {}): Maintenance {
  let lastPrune: number | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  const round = async (withBackups: boolean) => {
    const now = deps.clock.now();
    const collected = await collectFileGarbage(deps);
    if (collected > 0) deps.logger.info({ collected }, 'removed the bytes of deleted files from the store');
    if (lastPrune === null || now.getTime() - lastPrune >= DAY) {
      try {
        const deleted = await pruneLogs(deps);
        const webRtcDeleted = await pruneWebrtcLogs(deps);
        await pruneEventsAndKeys(deps);
        await pruneDeliveries(deps);
        lastPrune = now.getTime();
        if (deleted + webRtcDeleted > 0)
          deps.logger.info({ deleted, webRtcDeleted, retentionMs: deps.config.logRetention }, 'pruned old log rows');
      } catch (error) {
        deps.logger.error({ err: error }, 'log pruning failed');
      }
    }
    await signChainHeads(deps, now);
    await noticeExpiries(deps, now);
    if (withBackups && deps.config.backupSchedule === 'daily') await scheduledBackup(deps, now);
  };
  const runOnce = (options: { backups?: boolean } = {}) => {
    // a failed round is logged, and the next one runs: a rejection kept in the chain would skip every later
    // round, and would be unhandled at the timer (which ends the process)
    running = running
      .then(() => (stopped ? undefined : round(options.backups !== false)))
      .catch((error: unknown) => deps.logger.error({ err: error }, 'maintenance round failed; the next round tries again'));
    return running;
  };
  const timer = setInterval(() => void runOnce(), options.intervalMs ?? 3_600_000);
  timer.unref();
  return {
    runOnce,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Daily signed checkpoints of every audit chain that moved, once
 * across nodes; and, each round, the timestamp tokens an unreachable
 * authority could not give before. Failures are logged: the next round retries.
 */
async function signChainHeads(deps: Deps, now: Date): Promise<void> {
  try {
    await runOncePerPeriod(deps.db, 'audit-checkpoints', DAY, now, async () => {
      const made = await dailyCheckpoints(deps);
      if (made > 0) deps.logger.info({ checkpoints: made }, 'signed audit chain checkpoints');
    });
    const stamped = await retryCheckpointTimestamps(deps);
    if (stamped > 0) deps.logger.info({ stamped }, 'time-stamped audit checkpoints');
  } catch (error) {
    deps.logger.error({ err: error }, 'audit checkpoints failed; the next round tries again');
  }
}

/** The daily notice of skills expiring soon (docs/qualifications.md), once across nodes. Failures are logged: the next round retries. */
async function noticeExpiries(deps: Deps, now: Date): Promise<void> {
  try {
    await runOncePerPeriod(deps.db, 'skill-expiries', DAY, now, async () => {
      const noticed = await noticeSkillExpiries(deps);
      if (noticed > 0) deps.logger.info({ noticed }, 'noticed skills expiring soon');
    });
  } catch (error) {
    deps.logger.error({ err: error }, 'the notice of expiring skills failed; the next round tries again');
  }
}

/**
 * The daily backup. SQLite (one node): due when backupDir holds no scheduled
 * archive younger than a day. PostgreSQL: due when no node took one in the
 * last day (maintenance_runs), taken by one node only (runOncePerPeriod) into
 * ITS backupDir (a shared mount, or the archive stays on the node that won: the
 * log line and the manifest name it). A failure is logged and reported as
 * backup.failed; on PostgreSQL it leaves the period open for the next round of any node.
 */
async function scheduledBackup(deps: Deps, now: Date): Promise<void> {
  const dir = backupDir(deps.config);
  const take = async () => {
    const result = await writeSiteBackup(deps, path.join(dir, defaultBackupName(SCHEDULED_PREFIX, now)), now);
    const deleted = applyRetention(dir, SCHEDULED_PREFIX, deps.config.backupRetention);
    deps.logger.info({ file: result.file, bytes: result.bytes, deleted, node: NODE_NAME }, 'scheduled backup written');
  };
  try {
    if (deps.db.dialect === 'postgres') {
      await runOncePerPeriod(deps.db, 'scheduled-backup', DAY, now, take);
      return;
    }
    const newest = newestBackup(dir, SCHEDULED_PREFIX);
    const taken = newest ? backupTakenAt(newest) : null;
    if (taken === null || now.getTime() - taken >= DAY) await take();
  } catch (error) {
    deps.logger.error({ err: error, node: NODE_NAME }, 'scheduled backup failed');
    await reportBackupFailure(deps, error);
  }
}

/**
 * A backup of this site written by the daemon (scheduled or started over the
 * API), the same archive as `wip backup`: SQLite's online backup with the data
 * directory, or pg_dump -Fc with the local files (naming this node).
 */
export function writeSiteBackup(
  deps: Deps,
  output: string,
  now: Date,
  onProgress?: (progress: BackupProgress) => void,
): Promise<BackupResult> {
  if (deps.db.dialect === 'postgres')
    return createPostgresBackup({ config: deps.config, output, version, now, node: NODE_NAME, onProgress });
  return createBackup({ sqlite: deps.db.sqlite, dataDir: deps.config.dataDir, output, version, now, onProgress });
}

/** Events past eventRetention (with their delivery log), expired Idempotency-Keys, refresh tokens and emailed/sign-in tokens. */
async function pruneEventsAndKeys(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const events = await pruneEvents(deps.db.kysely, new Date(now.getTime() - deps.config.eventRetention).toISOString());
  const keys = await pruneIdempotencyKeys(deps.db.kysely, nowIso);
  const refreshTokens = await pruneExpiredRefreshTokens(deps.db.kysely, nowIso);
  const userTokens = await pruneExpiredUserTokens(deps.db.kysely, nowIso);
  if (events + keys + refreshTokens + userTokens > 0) {
    deps.logger.info(
      { events, idempotencyKeys: keys, refreshTokens, userTokens },
      'pruned old events, idempotency keys and expired tokens',
    );
  }
}

/**
 * Mail and push rows that left their queue (sent, stored as .eml, or failed for
 * good) more than outboxRetention ago, and the .eml files of the mail rows gone.
 * Pending rows stay whatever their age. (Webhook deliveries go with their event,
 * after eventRetention, above.)
 */
async function pruneDeliveries(deps: Deps): Promise<void> {
  const before = new Date(deps.clock.now().getTime() - deps.config.outboxRetention).toISOString();
  const mail = await pruneFinished(deps.db.kysely, 'outbox', before);
  const pushes = await pruneFinished(deps.db.kysely, 'push_outbox', before);
  const mailFiles = await removeMailFilesWithoutRow(deps.config.dataDir, deps.db);
  if (mail + pushes + mailFiles > 0) {
    deps.logger.info({ mail, pushes, mailFiles, retentionMs: deps.config.outboxRetention }, 'pruned delivered and failed mail and pushes');
  }
}

/** backup.failed goes to the system administrators' webhooks; reporting must not fail housekeeping (nor a backup job). */
export async function reportBackupFailure(deps: Deps, error: unknown): Promise<void> {
  try {
    await withTransaction(deps.db, (trx, afterCommit) =>
      emitEvent({ deps, trx, afterCommit }, null, 'backup.failed', {
        error: (error as Error).message ?? String(error),
        at: deps.clock.now().toISOString(),
      }),
    );
  } catch (reportError) {
    deps.logger.error({ err: reportError }, 'could not record backup.failed');
  }
}
