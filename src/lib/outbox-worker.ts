import type { Clock } from './clock';
import type { Logger } from '../logger';

/** A row of an outbox table: due when pending and `next_attempt_at` has passed. */
export interface QueuedRow {
  id: number;
  next_attempt_at: string;
}

/** One outbox (mail, webhook deliveries): how to find, claim and deliver its rows. */
export interface OutboxQueue<Row extends QueuedRow> {
  /** for logs */
  name: string;
  listDue(nowIso: string, limit: number): Promise<Row[]>;
  /** pushes the row's next attempt past the lease; false when another sender took it first */
  claim(row: Row, leaseUntilIso: string, nowIso: string): Promise<boolean>;
  /** delivers one claimed row and records the outcome; true when delivered */
  deliver(row: Row): Promise<boolean>;
}

/** How long a claimed row is reserved for the sender that claimed it (a crash mid-send frees it after this). */
const LEASE_MS = 5 * 60_000;
const BATCH = 20;

/**
 * The delivery loop every outbox shares. Rows are written inside the
 * transaction that causes them; this delivers them after commit (`kick`) and
 * from a background poll (`start`, the daemon only), so a row survives a
 * crash or a restart and is retried until its queue gives up on it. One run at
 * a time per worker; a kick during a run schedules one more.
 */
export class OutboxWorker<Row extends QueuedRow> {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private again = false;
  private closed = false;

  constructor(
    private readonly queue: OutboxQueue<Row>,
    private readonly deps: { clock: Clock; logger: Logger },
    private readonly pollIntervalMs: number,
  ) {}

  /** Starts the background loop that delivers due rows. */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Delivers what is due now, without waiting (called after a commit that queued rows). */
  kick(): void {
    void this.deliverDue().catch((error) => this.deps.logger.error({ err: error, queue: this.queue.name }, 'outbox delivery failed'));
  }

  /** Delivers every due row; resolves with how many were delivered. */
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
          total += await this.deliverBatches();
        } while (this.again && !this.closed);
      } finally {
        this.running = undefined;
      }
      return total;
    })();
    return this.running;
  }

  /** Stops the loop, letting a delivery in progress finish first. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.running) await this.running.catch(() => undefined);
    this.closed = true;
  }

  private async deliverBatches(): Promise<number> {
    const { clock } = this.deps;
    let delivered = 0;
    for (;;) {
      const nowIso = clock.now().toISOString();
      const due = await this.queue.listDue(nowIso, BATCH);
      if (due.length === 0) return delivered;
      for (const row of due) {
        if (this.closed) return delivered;
        const lease = new Date(clock.now().getTime() + LEASE_MS).toISOString();
        if (!(await this.queue.claim(row, lease, nowIso))) continue;
        if (await this.queue.deliver(row)) delivered++;
      }
      if (due.length < BATCH) return delivered;
    }
  }
}
