/**
 * Runs jobs first come, first served, at most `concurrency` at a time, each
 * started in an event-loop turn of its own (setImmediate), and refuses a job
 * when `maxWaiting` already wait.
 *
 * Why turns: a GraphQL query on SQLite runs from start to answer without
 * giving the event loop back (the statements are synchronous, the rest is
 * microtasks). Run straight from the request callback, every request that
 * arrived together is executed in the same loop iteration, so one iteration
 * takes N queries' time; libuv accepts one new connection per iteration, so a
 * connection opened under load waited for several such iterations (measured:
 * 32 connections, p99 16× p50, all of the tail the first requests of
 * late-accepted connections). Started one per turn, the loop comes back to
 * its I/O between two queries: new connections are accepted and every request
 * waits behind about as many as arrived before it.
 */
export class TurnQueue {
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  /** The job's promise, or undefined (the job not run) when the queue is full. */
  run<T>(job: () => Promise<T>): Promise<T> | undefined {
    if (this.waiting.length >= this.maxWaiting) return undefined;
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => {
        this.running++;
        job()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.schedule();
          });
      });
      this.schedule();
    });
  }

  /** How many jobs wait for their turn (for tests and metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0 || this.running >= this.concurrency) return;
    this.scheduled = true;
    setImmediate(this.startNext);
  }

  private readonly startNext = (): void => {
    this.scheduled = false;
    if (this.running < this.concurrency) this.waiting.shift()?.();
    this.schedule();
  };
}
