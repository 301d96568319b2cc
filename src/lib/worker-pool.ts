import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { JobMessage, AnswerMessage, ReadyMessage } from './worker-jobs';
import { workerSource, type WorkerScript } from './executable';

type Slot = { worker: Worker; busy: boolean; ready: Promise<void> };
type Waiting<Job> = { job: Job; resolve: (value: unknown) => void; reject: (error: Error) => void };
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; slot: Slot; timer?: NodeJS.Timeout };

export interface WorkerPoolOptions {
  /** at most this many threads; a job past them waits in the pool for the first thread that is free */
  size: number;
  /**
   * Longest a job may run (from when its thread, once started, takes it): past it the thread
   * is terminated and replaced, and the job fails with code ERR_WORKER_TIMEOUT.
   * A job's handler is synchronous, so ending its thread is the only way to stop it.
   */
  timeoutMs?: number;
  /** heap limits of each thread: a job that exceeds them ends its thread (and fails), not the process */
  resourceLimits?: ResourceLimits;
}

/**
 * CPU-bound work off the event loop: a small pool of worker threads running one
 * of the worker scripts (src/lib/*-worker.ts, which answer with answerJobs of
 * worker-jobs.ts). Threads start on the first job, not before, and are unref'd
 * while idle, so a daemon or CLI command that never needs them never pays for
 * them. Each thread runs one job at a time; the others wait here, so a job's
 * time limit (`timeoutMs`) counts only its own run. A thread that crashes,
 * exits or runs over fails only its own job; the pool starts a new one on demand. The password hasher and the XLIFF reader/writer each
 * have their own pool, so a long import never queues a sign-in behind it.
 */
export class WorkerPool<Job> {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private readonly waiting: Waiting<Job>[] = [];
  private nextId = 1;

  constructor(
    private readonly script: WorkerScript,
    private readonly options: WorkerPoolOptions,
  ) {}

  /** The job's answer (what the script's handler returned, as a structured clone); rejects with what it threw. */
  run(job: Job): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  /** Jobs taken by a thread or waiting for one. */
  get jobs(): number {
    return this.pending.size + this.waiting.length;
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
    const closed = new Error(`${this.script} pool closed`);
    for (const pending of this.pending.values()) {
      clearTimeout(pending.timer);
      pending.reject(closed);
    }
    this.pending.clear();
    for (const waiting of this.waiting.splice(0)) waiting.reject(closed);
  }

  /** Hands waiting jobs to free threads (starting threads up to `size`). */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const slot = this.workers.find((w) => !w.busy) ?? (this.workers.length < this.options.size ? this.spawn() : undefined);
      if (!slot) return;
      const { job, resolve, reject } = this.waiting.shift()!;
      const id = this.nextId++;
      try {
        slot.worker.postMessage({ id, job } satisfies JobMessage<Job>);
      } catch (error) {
        // a job that cannot be cloned (a function in it) never reaches the thread
        reject(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      const pending: Pending = { resolve, reject, slot };
      // the time limit counts the job's run, not the start of a new thread and the loading of its script
      if (this.options.timeoutMs !== undefined)
        void slot.ready.then(() => {
          if (!this.pending.has(id)) return;
          pending.timer = setTimeout(() => this.overrun(slot, id), this.options.timeoutMs);
          pending.timer.unref();
        });
      this.pending.set(id, pending);
      slot.busy = true;
      slot.worker.ref();
    }
  }

  /** A job past its time limit: it fails, and its thread (still running it) is ended and replaced. */
  private overrun(slot: Slot, id: number): void {
    if (!this.pending.has(id)) return;
    const error = Object.assign(new Error(`${this.script} job ran longer than ${this.options.timeoutMs} ms`), {
      code: 'ERR_WORKER_TIMEOUT',
    });
    this.retire(slot, error);
    void slot.worker.terminate();
  }

  private spawn(): Slot {
    const source = workerSource(this.script);
    const options = { resourceLimits: this.options.resourceLimits };
    const worker = source.eval ? new Worker(source.code, { ...options, eval: true }) : new Worker(source.file, options);
    let loaded!: () => void;
    const slot: Slot = { worker, busy: false, ready: new Promise((resolve) => (loaded = resolve)) };
    worker.unref();
    worker.on('message', (msg: AnswerMessage | ReadyMessage) => {
      if ('ready' in msg) return loaded();
      const pending = this.pending.get(msg.id);
      // an answer after the job ran over: its thread is being ended, the job has failed
      if (!pending) return;
      this.pending.delete(msg.id);
      clearTimeout(pending.timer);
      slot.busy = false;
      worker.unref();
      if ('error' in msg) pending.reject(new Error(msg.error));
      else pending.resolve(msg.result);
      this.dispatch();
    });
    // A crash ('error', then 'exit') or an exit fails only this thread's jobs; the pool replaces it on demand.
    worker.on('error', (error: Error) => this.retire(slot, error));
    worker.on('exit', (code) => this.retire(slot, new Error(`${this.script} exited with code ${code}`)));
    this.workers.push(slot);
    return slot;
  }

  private retire(slot: Slot, error: Error): void {
    const index = this.workers.indexOf(slot);
    if (index >= 0) this.workers.splice(index, 1);
    for (const [id, pending] of this.pending) {
      if (pending.slot !== slot) continue;
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
    // the jobs waiting get a new thread
    if (index >= 0) this.dispatch();
  }
}
