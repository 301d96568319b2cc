import { createHash, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '#db/connection';
import type { Clock } from '#lib/clock';
import type { Logger } from '#logger';
import { registerOwner, releaseEarlierOwners } from '#repos/idempotency';

/** How long this process's keys in progress stay its own without a renewal: past it, any node takes them over. */
export const KEY_LEASE_MS = 10_000;
/** How often the lease is renewed (several renewals per lease). */
export const KEY_RENEWAL_MS = 3_000;
/** Owners whose lease ended this long ago are forgotten at a start. */
const FORGET_AFTER_MS = 24 * 3_600_000;

/**
 * This process as the owner of Idempotency-Keys in progress
 * (docs/reliability.md): `owner` is this node (host and data directory) and
 * this process; its lease (idempotency_owners) runs KEY_LEASE_MS and is
 * renewed every KEY_RENEWAL_MS while the process lives. `start` (the daemon)
 * first releases what an earlier process of this node left in progress: it is
 * gone, since this one holds the data directory (the pid file). Other nodes
 * take a key over once its owner's lease ran out.
 */
export class KeyLeases {
  /** this node: the host and its data directory (one daemon serves a data directory) */
  readonly node: string;
  /** this process of this node */
  readonly owner: string;
  private registered: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { db: Database; clock: Clock; logger: Logger; dataDir: string }) {
    const dir = createHash('sha256').update(path.resolve(deps.dataDir)).digest('hex').slice(0, 12);
    this.node = `${os.hostname()}:${dir}`;
    this.owner = `${this.node}/${process.pid}/${randomBytes(4).toString('hex')}`;
  }

  /** Resolves once this process's lease is recorded (the first key a process takes records it; then the renewals keep it). */
  ready(): Promise<void> {
    this.registered ??= this.renew().catch((error: unknown) => {
      this.registered = undefined;
      throw error;
    });
    return this.registered;
  }

  /** The daemon's start: releases the keys an earlier process of this node left in progress, then renews the lease. */
  async start(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    const released = await releaseEarlierOwners(this.deps.db.kysely, this.owner, this.node, new Date(now - FORGET_AFTER_MS).toISOString());
    if (released > 0) this.deps.logger.warn({ keys: released }, 'released Idempotency-Keys left in progress by the last stop');
    await this.ready();
    this.timer ??= setInterval(() => {
      this.renew().catch((error: unknown) => this.deps.logger.warn({ err: error }, 'could not renew the lease of Idempotency-Keys'));
    }, KEY_RENEWAL_MS);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private renew(): Promise<void> {
    const until = new Date(this.deps.clock.now().getTime() + KEY_LEASE_MS).toISOString();
    return registerOwner(this.deps.db.kysely, this.owner, this.node, until);
  }
}
