import type { Logger } from '#logger';

export interface ScheduleWorkerOptions {
  logger: Logger;
  /** how often a round runs (config schedulePollInterval, ms) */
  pollInterval: number;
  /** one round: handles the occurrences due within the horizon (services/schedules materialiseSchedules) */
  round(): Promise<{ created: number; skipped: number }>;
}

/**
 * Ticks the schedules of recurring jobs (docs/recurring-and-follow-up-jobs.md):
 * a round shortly after start, every `schedulePollInterval`, and soon after a schedule
 * changes (`kick`). One round at a time in this process; several nodes may
 * run theirs at once — the service makes each occurrence once whoever gets
 * there (the client's write queue, the schedule's mark, the occurrence's
 * unique key), so nothing here coordinates nodes.
 */
/** The first round waits this long after the start: it is no part of serving the first requests. */
const FIRST_ROUND_DELAY_MS = 2_000;

export class ScheduleWorker {
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;

  constructor(private readonly options: ScheduleWorkerOptions) {}

  /** Starts the loop (the daemon only). */
  start(): void {
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => this.kick(), this.options.pollInterval);
    this.timer.unref();
    this.first = setTimeout(() => this.kick(), FIRST_ROUND_DELAY_MS);
    this.first.unref();
  }

  /** A round soon, without waiting (a schedule was created, edited or resumed). */
  kick(): void {
    void this.tick();
  }

  /** Runs a round now and resolves when it (and one asked for meanwhile) is done; never rejects. */
  tick(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          try {
            const { created, skipped } = await this.options.round();
            if (created + skipped > 0) this.options.logger.info({ created, skipped }, 'schedules: occurrences handled');
          } catch (error) {
            this.options.logger.error({ err: error }, 'schedules: round failed; retried at the next');
          }
        } while (this.again && !this.closed);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /** Stops the timer and lets a round in progress finish. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.first) clearTimeout(this.first);
    this.timer = undefined;
    await this.running;
    this.closed = true;
  }
}
