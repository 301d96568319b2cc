/**
 * Runs jobs first come, first served, at most `concurrency` at a time, each
 * started in an event-loop turn of its own (setImmediate), and refuses a job
 * when `maxWaiting` already wait.
 *
 * Why: every request now reaches the app in fair turns of the event loop
 * (src/lib/turn-slices.ts: new connections accepted and requests read every
 * ~2 ms while the server is busy). A GraphQL query is different from a route's
 * request in two ways this queue handles: it runs as a long promise chain, so
 * many started together would all hold their loaders and rows in memory at
 * once (hence `concurrency`), and it is the one request a client can make
 * expensive at will (hence `maxWaiting`, refused with 503). Starting each in a
 * turn of its own keeps one query's synchronous SQLite work from sharing a
 * turn with the next one's.
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
