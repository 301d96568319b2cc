import fs from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '#config';
import type { Database } from '#db/connection';
import type { OutboxRow } from '#db/schema';
import type { Clock } from '#lib/clock';
import type { Logger } from '#logger';
import { markOutboxDone } from '#repos/outbox';
import { outboxDir } from '#mail/outbox-files';
import { OutboxWorker } from './outbox-worker';

/**
 * Delivers the outbox. Messages are queued as rows inside the transaction that
 * causes them (see services/mail.ts); this sends them after commit: over SMTP
 * when `smtpUrl` is set, otherwise into <data-dir>/outbox/<id>.eml (status
 * `stored`) for an installer without a mail server. Claiming, retries with
 * backoff and giving up after `mailMaxAttempts` (the row is `failed` and kept
 * for outboxRetention; `wip mail retry` puts it back) are the shared OutboxWorker's.
 */
export class Mailer {
  private transportInstance: Transporter | undefined;
  private readonly viaSmtp: boolean;
  private readonly worker: OutboxWorker<'outbox'>;

  constructor(private readonly deps: { config: Config; db: Database; clock: Clock; logger: Logger }) {
    this.viaSmtp = deps.config.smtpUrl !== '';
    this.worker = new OutboxWorker({
      name: 'mail',
      table: 'outbox',
      db: deps.db.kysely,
      clock: deps.clock,
      logger: deps.logger,
      pollInterval: deps.config.mailPollInterval,
      leaseMs: deps.config.outboxLease,
      maxAttempts: deps.config.mailMaxAttempts,
      deliver: (row) => this.deliverOne(row),
    });
  }

  /** nodemailer's transport, made (and nodemailer loaded) when the first message goes out, not at start-up. */
  private get transport(): Transporter {
    if (!this.transportInstance) {
      const nodemailer = require('nodemailer') as typeof import('nodemailer');
      this.transportInstance = this.viaSmtp
        ? nodemailer.createTransport(this.deps.config.smtpUrl)
        : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
    }
    return this.transportInstance;
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
    this.transportInstance?.close();
  }

  private async deliverOne(row: OutboxRow): Promise<void> {
    const { db, clock, config } = this.deps;
    const message = {
      from: config.mailFrom,
      to: row.to_address,
      subject: row.subject,
      text: row.text_body,
      // base64 keeps long links intact (quoted-printable would fold them)
      textEncoding: 'base64' as const,
      headers: { 'X-Wip-Outbox-Id': String(row.id), 'X-Wip-Mail-Kind': row.kind },
    };
    const info = await this.transport.sendMail(message);
    if (this.viaSmtp) {
      await markOutboxDone(db.kysely, row.id, 'sent', clock.now().toISOString());
    } else {
      const dir = outboxDir(config.dataDir);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(dir, `${row.id}.eml`), (info as { message: Buffer }).message, { mode: 0o600 });
      await markOutboxDone(db.kysely, row.id, 'stored', clock.now().toISOString());
    }
  }
}
