import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '#db/schema';

// The data epoch (migration 0037, docs/reliability.md): one row, the value
// devices are told in Wip-Data-Epoch. Made when the database is created,
// replaced by every restore, so a device can tell that writes it had been
// told were recorded may be gone.

/** A new epoch: 32 hex digits. */
export function newDataEpoch(): string {
  return randomBytes(16).toString('hex');
}

/** The epoch now, or undefined before migration 0037 ran. */
export async function readDataEpoch(db: Kysely<DB>): Promise<string | undefined> {
  const row = await db.selectFrom('data_epoch').select('epoch').where('id', '=', 1).executeTakeFirst();
  return row?.epoch;
}

/**
 * Replaces the epoch after a restore. A database from before migration 0037
 * has no epoch yet: that migration makes a new one when it runs, so nothing
 * is done here.
 * @returns the new epoch, or undefined when the table is not there yet
 */
export async function renewDataEpoch(db: Kysely<DB>, now: Date): Promise<string | undefined> {
  const tables = await db.introspection.getTables();
  if (!tables.some((t) => t.name === 'data_epoch')) return undefined;
  const epoch = newDataEpoch();
  await db
    .insertInto('data_epoch')
    .values({ id: 1, epoch, changed_at: now.toISOString(), reason: 'restore' })
    .onConflict((oc) => oc.column('id').doUpdateSet({ epoch, changed_at: now.toISOString(), reason: 'restore' }))
    .execute();
  return epoch;
}
