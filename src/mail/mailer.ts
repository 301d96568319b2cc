import fs from 'node:fs';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Config } from '../config';
import type { Database } from '../db/connection';
import type { OutboxRow } from '../db/schema';
import type { Clock } from '../lib/clock';
import type { Logger } from '../logger';
import { existingOutboxIds, markOutboxDone } from '../repos/outbox';
import { OutboxWorker } from '../lib/outbox-worker';

export function outboxDir(dataDir: string): string {
  return path.join(dataDir, 'outbox');
}

/**
 * Deletes the <data-dir>/outbox/<id>.eml files whose outbox row is gone (pruned
 * after outboxRetention, by whichever node), so the folder keeps what `wip mail
 * outbox` lists and no more. By the row, not the file's age: on PostgreSQL
 * another node may have pruned the row, and a file's row exists from before the
 * file is written until it is pruned. Returns how many files were deleted.
 */
export async function removeMailFilesWithoutRow(dataDir: string, db: Database): Promise<number> {
  const dir = outboxDir(dataDir);
  if (!fs.existsSync(dir)) return 0;
  const files = new Map<number, string>();
  for (const name of fs.readdirSync(dir)) {
    const match = /^(\d+)\.eml$/.exec(name);
    if (match) files.set(Number(match[1]), name);
  }
  const ids = [...files.keys()];
  let deleted = 0;
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const kept = await existingOutboxIds(db.kysely, chunk);
    for (const id of chunk) {
      if (kept.has(id)) continue;
      fs.rmSync(path.join(dir, files.get(id)!), { force: true });
      deleted++;
    }
  }
  return deleted;
}

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

  constructor(
    private readonly deps: { config: Config; db: Database; clock: Clock; logger: Logger },
  ) {
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
