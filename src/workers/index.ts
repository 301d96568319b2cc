import type { Deps } from '#deps';
import type { BackupJobs } from './backup-jobs';
import type { EventStreams } from './event-streams';
import type { KeyLeases } from './key-leases';
import type { DataEpoch } from './data-epoch';
import type { LogTail } from './log-tail';
import type { Mailer } from './mailer';
import type { PushSender } from './push-sender';
import type { ScheduleWorker } from './schedule-worker';
import type { WebhookSender } from './webhook-sender';

/**
 * The background workers: senders, live streams and tails, and jobs that
 * outlive a request. Built by the composition root (src/composition.ts); the
 * daemon starts their loops (cli/serve). Services never see these: they call
 * `deps.signals`, which the composition root wires to the workers.
 */
export interface Workers {
  /** the mail outbox's sender; its retry loop runs only in the daemon (startServer) */
  mailer: Mailer;
  /** the web push queue's sender; like the mailer, its retry loop runs only in the daemon */
  push: PushSender;
  /** the webhook deliveries' sender; its retry loop runs only in the daemon (startServer) */
  webhooks: WebhookSender;
  /** open live event streams (GET /api/client/events) */
  eventStreams: EventStreams;
  /** open live log tails of system administrators (GET /api/admin/logs/stream) */
  logTail: LogTail;
  /** backups started from the API (POST /api/admin/backups) and their progress */
  backupJobs: BackupJobs;
  /** the schedules of recurring jobs: their occurrences become jobs (its loop runs only in the daemon) */
  schedules: ScheduleWorker;
  /** the Idempotency-Keys this process holds in progress, and their leases (renewed only in the daemon) */
  keyLeases: KeyLeases;
  /** the data epoch announced to devices (Wip-Data-Epoch), loaded when the daemon starts */
  dataEpoch: DataEpoch;
}

/** What the HTTP layer, GraphQL, the CLI and the tests hold: the services' Deps and the workers, one object. */
export type AppDeps = Deps & Workers;
