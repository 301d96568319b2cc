import { PassThrough } from 'node:stream';
import type { Deps } from '#deps';
import type { LogRow } from '#db/schema';
import { AppError, serviceUnavailable } from '#errors';
import { lastLogId, listLogBatchAcrossClients, type LogFilter } from '#repos/logs';
import type { SystemAdminActor } from '#services/actor';
import { logRedactor } from '#services/log-export';
import type { PresentedLog } from '#presenters';

const MAX_BUFFERED_BYTES = 1024 * 1024;
const PAGE = 100;

interface Tail {
  actor: SystemAdminActor;
  filter: LogFilter;
  out: PassThrough;
  lastId: number;
  busy: boolean;
  again: boolean;
  heartbeat: NodeJS.Timeout;
  redact: (row: LogRow) => PresentedLog;
}

/**
 * The live log tail of system administrators (GET /api/admin/logs/stream,
 * Server-Sent Events). Like the client event streams, rows come from the
 * `logs` table, never from memory: recording an event wakes the tails, each
 * reads the matching rows after the last id it sent; the heartbeat reads too,
 * so rows written by another process (a CLI command) show within one beat.
 * Rows are redacted as in the log export. A tail ends with its admin session.
 */
export class LogTail {
  private readonly tails = new Set<Tail>();
  private closed = false;

  constructor(private readonly deps: Pick<Deps, 'config' | 'db' | 'clock' | 'logger' | 'hotPath' | 'secrets'>) {}

  /**
   * Opens a tail of the rows after `lastEventId` (default: from now on).
   * @throws AppError RATE_LIMITED when the admin already has `eventStreamMaxPerUser` open
   */
  async open(actor: SystemAdminActor, filter: LogFilter, lastEventId: number | undefined): Promise<PassThrough> {
    const { config } = this.deps;
    if (this.closed) throw serviceUnavailable('The server is stopping');
    const mine = [...this.tails].filter((t) => t.actor.adminId === actor.adminId).length;
    if (mine >= config.eventStreamMaxPerUser) {
      throw new AppError('RATE_LIMITED', `At most ${config.eventStreamMaxPerUser} log tails may be open per administrator`, {
        limit: config.eventStreamMaxPerUser,
      });
    }
    const out = new PassThrough();
    const tail: Tail = {
      actor,
      filter,
      out,
      lastId: lastEventId ?? (await lastLogId(this.deps.db.kysely)),
      busy: false,
      again: false,
      heartbeat: setInterval(() => this.beat(tail), config.eventStreamHeartbeat),
      redact: logRedactor(this.deps),
    };
    tail.heartbeat.unref();
    this.tails.add(tail);
    out.on('close', () => this.drop(tail));
    out.write(`retry: 3000\n: connected\n\n`);
    if (lastEventId !== undefined) void this.pump(tail);
    return out;
  }

  /** Called after a log row was recorded. */
  notify(): void {
    for (const tail of this.tails) void this.pump(tail);
  }

  /** Ends every tail and opens no more (the server is stopping). */
  closeAll(): void {
    this.closed = true;
    for (const tail of this.tails) this.drop(tail);
  }

  get size(): number {
    return this.tails.size;
  }

  private drop(tail: Tail): void {
    if (!this.tails.delete(tail)) return;
    clearInterval(tail.heartbeat);
    tail.out.end();
    tail.out.destroy();
  }

  // called by a timer: a rejection here would be unhandled (and end the process), so none escapes
  private beat(tail: Tail): void {
    void this.sessionAlive(tail).then(
      (alive) => {
        if (!alive) return this.drop(tail);
        this.write(tail, ': heartbeat\n\n');
        void this.pump(tail);
      },
      () => undefined, // the database is unreachable: keep the tail, check again at the next beat
    );
  }

  private async sessionAlive(tail: Tail): Promise<boolean> {
    const session = await this.deps.hotPath.adminSession(tail.actor.sessionId);
    return !!session && session.revoked_at === null && session.expires_at > this.deps.clock.now().toISOString();
  }

  private write(tail: Tail, text: string): void {
    if (!this.tails.has(tail)) return;
    tail.out.write(text);
    if (tail.out.writableLength > MAX_BUFFERED_BYTES) {
      this.deps.logger.info({ adminId: tail.actor.adminId }, 'dropped a slow log tail reader');
      this.drop(tail);
    }
  }

  private async pump(tail: Tail): Promise<void> {
    if (tail.busy) {
      tail.again = true;
      return;
    }
    tail.busy = true;
    try {
      do {
        tail.again = false;
        if (!(await this.sessionAlive(tail))) return this.drop(tail);
        for (;;) {
          const rows = await listLogBatchAcrossClients(this.deps.db.kysely, tail.filter, tail.lastId, PAGE);
          for (const row of rows) {
            if (!this.tails.has(tail)) return;
            tail.lastId = row.id;
            this.write(tail, `id: ${row.id}\nevent: log\ndata: ${JSON.stringify(tail.redact(row))}\n\n`);
          }
          if (rows.length < PAGE) break;
        }
      } while (tail.again && this.tails.has(tail));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'log tail failed');
      this.drop(tail);
    } finally {
      tail.busy = false;
    }
  }
}
