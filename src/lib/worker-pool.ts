import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { JobMessage, AnswerMessage } from './worker-jobs';
import { workerSource, type WorkerScript } from './runtime';

type Slot = { worker: Worker; busy: number };
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; slot: Slot };

export interface WorkerPoolOptions {
  /** at most this many threads; a job past them waits behind the least busy one */
  size: number;
  /** heap limits of each thread: a job that exceeds them ends its thread (and fails), not the process */
  resourceLimits?: ResourceLimits;
}

/**
 * CPU-bound work off the event loop: a small pool of worker threads running one
 * of the worker scripts (src/lib/*-worker.ts, which answer with answerJobs of
 * worker-jobs.ts). Threads start on the first job, not before, and are unref'd
 * while idle, so a daemon or CLI command that never needs them never pays for
 * them. A thread that crashes or exits fails only its own jobs; the pool starts
 * a new one on demand. The password hasher and the XLIFF reader/writer each
 * have their own pool, so a long import never queues a sign-in behind it.
 */
export class WorkerPool<Job> {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    private readonly script: WorkerScript,
    private readonly options: WorkerPoolOptions,
  ) {}

  /** The job's answer (what the script's handler returned, as a structured clone); rejects with what it threw. */
  run(job: Job): Promise<unknown> {
    const slot = this.pickWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      try {
        slot.worker.postMessage({ id, job } satisfies JobMessage<Job>);
      } catch (error) {
        // a job that cannot be cloned (a function in it) never reaches the thread
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.pending.set(id, { resolve, reject, slot });
      slot.busy++;
      slot.worker.ref();
    });
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
    for (const pending of this.pending.values()) pending.reject(new Error(`${this.script} pool closed`));
    this.pending.clear();
  }

  private pickWorker(): Slot {
    const idle = this.workers.find((w) => w.busy === 0);
    if (idle) return idle;
    if (this.workers.length < this.options.size) return this.spawn();
    return this.workers.reduce((a, b) => (a.busy <= b.busy ? a : b));
  }

  private spawn(): Slot {
    const source = workerSource(this.script);
    const options = { resourceLimits: this.options.resourceLimits };
    const worker = source.eval ? new Worker(source.code, { ...options, eval: true }) : new Worker(source.file, options);
    const slot: Slot = { worker, busy: 0 };
    worker.unref();
    worker.on('message', (msg: AnswerMessage) => {
      const pending = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      slot.busy--;
      if (slot.busy === 0) worker.unref();
      if (!pending) return;
      if ('error' in msg) pending.reject(new Error(msg.error));
      else pending.resolve(msg.result);
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
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}
