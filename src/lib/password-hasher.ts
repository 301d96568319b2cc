import { availableParallelism } from 'node:os';
import type { PasswordJob } from './password-worker';
import { WorkerPool } from './worker-pool';

/**
 * bcrypt in a pool of worker threads sized to the cores (worker-pool.ts). Workers
 * start lazily and are unref'd, so a CLI command that never hashes never pays for them.
 */
export class PasswordHasher {
  private readonly pool: WorkerPool<PasswordJob>;
  private dummyHash: Promise<string> | undefined;

  constructor(
    private readonly cost: number,
    size = Math.max(1, availableParallelism()),
  ) {
    this.pool = new WorkerPool<PasswordJob>('password-worker.js', { size });
  }

  hash(password: string): Promise<string> {
    return this.pool.run({ op: 'hash', password, cost: this.cost }) as Promise<string>;
  }

  verify(password: string, hash: string): Promise<boolean> {
    return this.pool.run({ op: 'verify', password, hash }) as Promise<boolean>;
  }

  /** Spends the same time as a real check, so unknown accounts cannot be told apart by timing. */
  async verifyAgainstDummy(password: string): Promise<false> {
    this.dummyHash ??= this.hash('dummy-password-for-timing');
    await this.verify(password, await this.dummyHash);
    return false;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
