import os from 'node:os';
import { sql } from 'kysely';
import type { Database } from '#db/connection';

/** The advisory-lock space of once-per-period work (two-key form, like the per-client write locks); the second key names the work. */
const ONCE_LOCK_SPACE = 0x77697002;
const WORK_KEYS = { 'scheduled-backup': 1, 'audit-checkpoints': 2, 'skill-expiries': 3 } as const;
export type OnceWork = keyof typeof WORK_KEYS;

/** This node as operators see it in logs, manifests and maintenance_runs: host name and process id. */
export const NODE_NAME = `${os.hostname()}/${process.pid}`;

/** ran here; not due (it ran less than a period ago, here or elsewhere); busy (another node is running it now) */
export type OnceOutcome = 'ran' | 'not-due' | 'busy';

/**
 * Runs `work` when `name` last ran `periodMs` or more before `now`, once across
 * all nodes. PostgreSQL mode: the node that gets the session advisory lock
 * (pg_try_advisory_lock, never waiting) reads `maintenance_runs` under it and,
 * when due, runs the work and records it before unlocking; the others answer
 * `busy` and skip the round. A failing `work` records nothing and releases the
 * lock, so the next round of any node retries; a node that dies mid-work takes
 * its connection, and so the lock, with it. The lock needs a session, not a
 * transaction: the work (a pg_dump) is long and opens its own connections.
 * SQLite: one node, whose rounds are already serialized: no lock.
 * @throws whatever `work` throws, after releasing the lock
 */
export async function runOncePerPeriod(
  db: Database,
  name: OnceWork,
  periodMs: number,
  now: Date,
  work: () => Promise<void>,
): Promise<OnceOutcome> {
  const attempt = async (conn: Database['kysely']): Promise<OnceOutcome> => {
    const row = await conn.selectFrom('maintenance_runs').select('last_run_at').where('name', '=', name).executeTakeFirst();
    if (row && now.getTime() - Date.parse(row.last_run_at) < periodMs) return 'not-due';
    await work();
    const record = { last_run_at: now.toISOString(), last_node: NODE_NAME };
    await conn
      .insertInto('maintenance_runs')
      .values({ name, ...record })
      .onConflict((oc) => oc.column('name').doUpdateSet(record))
      .execute();
    return 'ran';
  };
  if (db.dialect === 'sqlite') return attempt(db.kysely);
  const key = WORK_KEYS[name];
  return db.kysely.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${ONCE_LOCK_SPACE}, ${key}) as locked`.execute(conn);
    if (!rows[0]?.locked) return 'busy';
    try {
      return await attempt(conn);
    } finally {
      // fails only with the connection, which releases the lock as it ends
      await sql`select pg_advisory_unlock(${ONCE_LOCK_SPACE}, ${key})`.execute(conn).catch(() => undefined);
    }
  });
}
