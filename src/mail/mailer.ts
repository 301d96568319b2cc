import fs from 'node:fs';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config';
import type { Database } from '../db/connection';
import type { OutboxRow } from '../db/schema';
import type { Clock } from '../lib/clock';
import type { Logger } from '../logger';
import { claimDue, listDue, markOutboxAttemptFailed, markOutboxDone } from '../repos/outbox';
import { OutboxWorker } from '../lib/outbox-worker';

const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 3_600_000;

export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

/** Delay before attempt `attempts + 1`: 30 s, 1 min, 2 min… capped at one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

/**
 * Delivers the outbox. Messages are queued as rows inside the transaction that
 * causes them (see services/mail.ts); this sends them after commit: over SMTP
 * when `smtpUrl` is set, otherwise into <data-dir>/outbox/<id>.eml (status
 * `stored`) for an installer without a mail server. A failed send is retried
 * with exponential backoff; after `mailMaxAttempts` the row is `failed` and
 * kept (`wip mail retry` puts it back).
 */
export class Mailer {
  private readonly transport: Transporter;
  private readonly viaSmtp: boolean;
  private readonly worker: OutboxWorker<OutboxRow>;

  constructor(
    private readonly deps: { config: Config; db: Database; clock: Clock; logger: Logger },
  ) {
    this.viaSmtp = deps.config.smtpUrl !== '';
    this.transport = this.viaSmtp
      ? nodemailer.createTransport(deps.config.smtpUrl)
      : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    const db = deps.db.kysely;
    this.worker = new OutboxWorker<OutboxRow>(
      {
        name: 'mail',
        listDue: (now, limit) => listDue(db, 'outbox', now, limit),
        claim: (row, lease, now) => claimDue(db, 'outbox', row, lease, now),
        deliver: (row) => this.deliverOne(row),
      },
      deps,
      deps.config.mailPollInterval,
    );
  }

  /** Starts the background loop that retries due messages (the daemon only). */
  start(): void {
    this.worker.start();
  }

  /** Delivers what is due now, without waiting (called after a commit that queued mail). */
  kick(): void {
    this.worker.kick();
  }

  /** Delivers every due message. */
  deliverDue(): Promise<number> {
    return this.worker.deliverDue();
  }

  async close(): Promise<void> {
    // lets a delivery in progress (e.g. mail queued by a CLI command) finish first
    await this.worker.close();
    this.transport.close();
  }

  private async deliverOne(row: OutboxRow): Promise<boolean> {
    const { db, clock, config, logger } = this.deps;
    const message = {
      from: config.mailFrom,
      to: row.to_address,
      subject: row.subject,
      text: row.text_body,
      // base64 keeps long links intact (quoted-printable would fold them)
      textEncoding: 'base64' as const,
      headers: { 'X-Wip-Outbox-Id': String(row.id), 'X-Wip-Mail-Kind': row.kind },
    };
    try {
      const info = await this.transport.sendMail(message);
      if (this.viaSmtp) {
        await markOutboxDone(db.kysely, row.id, 'sent', clock.now().toISOString());
      } else {
        const dir = outboxDir(config.dataDir);
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        fs.writeFileSync(path.join(dir, `${row.id}.eml`), (info as { message: Buffer }).message, { mode: 0o600 });
        await markOutboxDone(db.kysely, row.id, 'stored', clock.now().toISOString());
      }
      return true;
    } catch (error) {
      const attempts = row.attempts + 1;
      const failed = attempts >= config.mailMaxAttempts;
      const now = clock.now();
      logger.warn({ err: error, outboxId: row.id, attempts, failed }, 'mail delivery attempt failed');
      await markOutboxAttemptFailed(
        db.kysely,
        row.id,
        {
          attempts,
          status: failed ? 'failed' : 'pending',
          next_attempt_at: new Date(now.getTime() + backoffMs(attempts)).toISOString(),
          last_error: String((error as Error).message ?? error).slice(0, 500),
        },
        now.toISOString(),
      );
      return false;
    }
  }
}
