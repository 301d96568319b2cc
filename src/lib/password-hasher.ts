import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { PasswordJob } from './password-worker';
import { passwordWorkerSource } from './runtime';

type Slot = { worker: Worker; busy: number };
type Pending = { resolve: (value: unknown) => void; reject: (error: Error) => void; slot: Slot };
type JobWithoutId = PasswordJob extends infer J ? (J extends { id: number } ? Omit<J, 'id'> : never) : never;

/**
 * bcrypt in a pool of worker threads sized to the cores. Workers start lazily
 * and are unref'd, so a CLI command that never hashes never pays for them.
 */
export class PasswordHasher {
  private readonly workers: Slot[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly cost: number,
    private readonly size = Math.max(1, availableParallelism()),
  ) {}

  hash(password: string): Promise<string> {
    return this.run({ op: 'hash', password, cost: this.cost }) as Promise<string>;
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.run({ op: 'verify', password, hash }) as Promise<boolean>;
  }

  /** Spends the same time as a real check, so unknown accounts cannot be told apart by timing. */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('dummy-password-for-timing');
    await this.verify(password, await this.dummyHash);
    return false;
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
    for (const pending of this.pending.values()) pending.reject(new Error('password hasher closed'));
    this.pending.clear();
  }

  private run(job: JobWithoutId): Promise<unknown> {
    const slot = this.pickWorker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, slot });
      slot.busy++;
      slot.worker.ref();
      slot.worker.postMessage({ ...job, id });
    });
  }

  private pickWorker(): Slot {
    const idle = this.workers.find((w) => w.busy === 0);
    if (idle) return idle;
    if (this.workers.length < this.size) return this.spawn();
    return this.workers.reduce((a, b) => (a.busy <= b.busy ? a : b));
  }

  private spawn(): Slot {
    const source = passwordWorkerSource(__dirname);
    const worker = source.eval ? new Worker(source.code, { eval: true }) : new Worker(source.file);
    const slot: Slot = { worker, busy: 0 };
    worker.unref();
    worker.on('message', (msg: { id: number; result?: unknown; error?: string }) => {
      const pending = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      slot.busy--;
      if (slot.busy === 0) worker.unref();
      if (!pending) return;
      if (msg.error !== undefined) pending.reject(new Error(msg.error));
      else pending.resolve(msg.result);
    });
    worker.on('error', (error) => {
      // A crashed worker fails only its own jobs; the pool replaces it on demand.
      const index = this.workers.indexOf(slot);
      if (index >= 0) this.workers.splice(index, 1);
      for (const [id, pending] of this.pending) {
        if (pending.slot !== slot) continue;
        pending.reject(error);
        this.pending.delete(id);
      }
    });
    this.workers.push(slot);
    return slot;
  }
}
