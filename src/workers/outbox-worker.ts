import type { Kysely, Selectable } from 'kysely';
import type { DB } from '#db/schema';
import type { Clock } from '#lib/clock';
import type { Logger } from '#logger';
import { claim, listDue, markAttemptFailed, type QueueTable } from '#repos/outbox';

const BACKOFF_BASE_MS = 30_000;
const BACKOFF_MAX_MS = 3_600_000;
const BATCH = 20;

/** Delay before attempt `attempts + 1`: 30 s, 1 min, 2 min… capped at one hour. */
export function backoffMs(attempts: number): number {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

export interface OutboxWorkerOptions<T extends QueueTable> {
  /** names the queue in log lines: "mail", "push" */
  name: string;
  table: T;
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  pollInterval: number;
  maxAttempts: number;
  /** how long a claimed row is reserved for the sender that claimed it (ms): a sender that dies leaves it to another after this */
  leaseMs: number;
  /** Delivers one claimed row and records its success; throws to have it retried. */
  deliver(row: Selectable<DB[T]>): Promise<void>;
}

/**
 * The delivery half of the outbox pattern, shared by every queue (mail, web
 * push). Rows are written inside the transaction that causes them; this
 * delivers them after commit — on `kick()` (right after a commit) and on a
 * timer (retries). Each row is claimed with a lease so two senders (daemon,
 * CLI) never both send it; a failed attempt is retried with exponential
 * backoff, and after `maxAttempts` the row is `failed` and kept. A delivery
 * never runs inside a request: kick() does not wait.
 */
export class OutboxWorker<T extends QueueTable> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly options: OutboxWorkerOptions<T>) {}

  /** Starts the background loop that retries due rows (the daemon only). */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.options.pollInterval);
    this.timer.unref();
    this.kick();
  }

  /** Delivers what is due now, without waiting (called after a commit that queued rows). */
  kick(): void {
    void this.deliverDue().catch((error) => this.options.logger.error({ err: error }, `${this.options.name} delivery failed`));
  }

  /** Delivers every due row; one run at a time (a kick during a run schedules one more). */
  deliverDue(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      let total = 0;
      try {
        do {
          this.again = false;
          total += await this.deliverBatch();
        } while (this.again && !this.closed);
      } finally {
        this.running = undefined;
      }
      return total;
    })();
    return this.running;
  }

  /** Stops the timer and lets a delivery in progress finish. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.running) await this.running.catch(() => undefined);
    this.closed = true;
  }

  private async deliverBatch(): Promise<number> {
    const { db, clock, table } = this.options;
    let delivered = 0;
    for (;;) {
      const nowIso = clock.now().toISOString();
      const due = await listDue(db, table, nowIso, BATCH);
      if (due.length === 0) return delivered;
      for (const row of due) {
        const lease = new Date(clock.now().getTime() + this.options.leaseMs).toISOString();
        if (!(await claim(db, table, row as never, lease, nowIso))) continue;
        if (await this.deliverOne(row)) delivered++;
      }
      if (due.length < BATCH) return delivered;
    }
  }

  private async deliverOne(row: Selectable<DB[T]>): Promise<boolean> {
    const { db, clock, logger, table, maxAttempts, name } = this.options;
    const { id, attempts: before } = row as unknown as { id: number; attempts: number };
    try {
      await this.options.deliver(row);
      return true;
    } catch (error) {
      const attempts = before + 1;
      const failed = attempts >= maxAttempts;
      const now = clock.now();
      logger.warn({ err: error, table, id, attempts, failed }, `${name} delivery attempt failed`);
      await markAttemptFailed(
        db,
        table,
        id,
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
