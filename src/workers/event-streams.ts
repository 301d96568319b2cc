import { PassThrough } from 'node:stream';
import type { Deps } from '#deps';
import type { EventRow } from '#db/schema';
import { AppError, serviceUnavailable } from '#errors';
import { lastClientEventId, listClientEventsAfter } from '#repos/events';
import type { UserActor } from '#services/actor';
import { PING_EVENT } from '#events/catalogue';

/** A reader further behind than this is dropped (it reconnects with Last-Event-ID and catches up from the table). */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const PAGE = 100;

interface Stream {
  actor: UserActor;
  out: PassThrough;
  lastId: number;
  busy: boolean;
  again: boolean;
  heartbeat: NodeJS.Timeout;
}

/** What a stream asks about its reader; the composition root answers from the services. */
export interface StreamAccess {
  /** the reader's actor as of now (roles and organizations may change while a stream is open); undefined once the session ended */
  currentActor(sessionId: number, via: UserActor['via']): Promise<UserActor | undefined>;
  /** whether the reader may see the template an event is about */
  templateVisible(actor: UserActor, templateId: number): Promise<boolean>;
}

/**
 * The live event streams (GET /api/client/events, Server-Sent Events). An
 * event reaches a stream from the `events` table, never from memory: a commit
 * that wrote events wakes the streams of that client, and each reads the rows
 * after the last id it sent. Replay after a reconnect (Last-Event-ID) is the
 * same read, bounded by the retained window (`eventRetention`). Only the
 * caller's client; template events only for users who may see the template.
 */
export class EventStreams {
  private readonly streams = new Set<Stream>();
  private closed = false;

  constructor(
    private readonly deps: Pick<Deps, 'config' | 'db' | 'clock' | 'logger'>,
    private readonly access: StreamAccess,
  ) {}

  /**
   * Opens a stream for the caller; resumes after `lastEventId` when given.
   * @throws AppError RATE_LIMITED when the user already has `eventStreamMaxPerUser` open
   */
  async open(actor: UserActor, lastEventId: number | undefined): Promise<PassThrough> {
    const { config } = this.deps;
    if (this.closed) throw serviceUnavailable('The server is stopping');
    const mine = [...this.streams].filter((s) => s.actor.userId === actor.userId && s.actor.clientId === actor.clientId).length;
    if (mine >= config.eventStreamMaxPerUser) {
      throw new AppError('RATE_LIMITED', `At most ${config.eventStreamMaxPerUser} event streams may be open per user`, {
        limit: config.eventStreamMaxPerUser,
      });
    }
    const out = new PassThrough();
    const stream: Stream = {
      actor,
      out,
      lastId: lastEventId ?? (await lastClientEventId(this.deps.db.kysely, actor.clientId)),
      busy: false,
      again: false,
      heartbeat: setInterval(() => this.beat(stream), config.eventStreamHeartbeat),
    };
    stream.heartbeat.unref();
    this.streams.add(stream);
    out.on('close', () => this.drop(stream));
    // a comment first, so the answer's headers reach the client now; then what was missed
    out.write(`retry: 3000\n: connected\n\n`);
    if (lastEventId !== undefined) void this.pump(stream);
    return out;
  }

  /** Called after a commit that wrote events of the client. */
  notify(clientId: number): void {
    for (const stream of this.streams) if (stream.actor.clientId === clientId) void this.pump(stream);
  }

  /** Ends the streams of a session (sign-out). */
  endSession(sessionId: number): void {
    for (const stream of this.streams) if (stream.actor.sessionId === sessionId) this.drop(stream);
  }

  /** Ends a user's streams (disabled or deleted). */
  endUser(clientId: number, userId: number): void {
    for (const stream of this.streams) if (stream.actor.clientId === clientId && stream.actor.userId === userId) this.drop(stream);
  }

  /** Ends every stream and opens no more (the server is stopping: open streams would hold it). */
  closeAll(): void {
    this.closed = true;
    for (const stream of this.streams) this.drop(stream);
  }

  get size(): number {
    return this.streams.size;
  }

  private drop(stream: Stream): void {
    if (!this.streams.delete(stream)) return;
    clearInterval(stream.heartbeat);
    stream.out.end();
    stream.out.destroy();
  }

  /** A heartbeat keeps proxies from closing an idle stream, and ends it when its session has. */
  private beat(stream: Stream): void {
    void this.refreshCaller(stream).then(
      (alive) => (alive ? this.write(stream, ': heartbeat\n\n') : this.drop(stream)),
      () => undefined, // the database is unreachable: keep the stream, check again at the next beat
    );
  }

  /**
   * Reads the stream's caller again — what it may see follows role and
   * organization changes made while it is open — and says whether its
   * session still lives.
   */
  private async refreshCaller(stream: Stream): Promise<boolean> {
    const actor = await this.access.currentActor(stream.actor.sessionId, stream.actor.via);
    if (actor) stream.actor = actor;
    return actor !== undefined;
  }

  private write(stream: Stream, text: string): void {
    if (!this.streams.has(stream)) return;
    stream.out.write(text);
    // slow readers are dropped, never buffered without end
    if (stream.out.writableLength > MAX_BUFFERED_BYTES) {
      this.deps.logger.info({ userId: stream.actor.userId }, 'dropped a slow event stream reader');
      this.drop(stream);
    }
  }

  /** Sends the client's events after the stream's last id; one run per stream at a time. */
  private async pump(stream: Stream): Promise<void> {
    if (stream.busy) {
      stream.again = true;
      return;
    }
    stream.busy = true;
    try {
      do {
        stream.again = false;
        if (!(await this.refreshCaller(stream))) return this.drop(stream);
        const since = new Date(this.deps.clock.now().getTime() - this.deps.config.eventRetention).toISOString();
        for (;;) {
          const rows = await listClientEventsAfter(this.deps.db.kysely, stream.actor.clientId, stream.lastId, since, PAGE, PING_EVENT);
          for (const row of rows) {
            if (!this.streams.has(stream)) return;
            stream.lastId = row.id;
            if (await this.visible(stream, row)) this.write(stream, `id: ${row.id}\nevent: ${row.type}\ndata: ${row.payload}\n\n`);
          }
          if (rows.length < PAGE) break;
        }
      } while (stream.again && this.streams.has(stream));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'event stream failed');
      this.drop(stream);
    } finally {
      stream.busy = false;
    }
  }

  private async visible(stream: Stream, row: EventRow): Promise<boolean> {
    if (row.template_id === null) return true;
    return this.access.templateVisible(stream.actor, row.template_id);
  }
}
