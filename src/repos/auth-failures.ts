import type { Kysely } from 'kysely';
import { compiledListRead } from '#db/compiled-query';
import type { DB } from '#db/schema';

// Brute-force counters. Keys: `email:<normalized email>` and `ip:<address>`.
// Not tenant data: an email is counted before (and whether or not) it names an account.

export async function insertAuthFailures(db: Kysely<DB>, keys: string[], now: string): Promise<void> {
  if (keys.length === 0) return;
  await db
    .insertInto('auth_failures')
    .values(keys.map((key) => ({ key, created_at: now })))
    .execute();
}

export async function countAuthFailuresSince(db: Kysely<DB>, key: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('auth_failures')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteAuthFailures(db: Kysely<DB>, key: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('key', '=', key).execute();
}

/** Drops counters older than the window: they can no longer lock anything. */
export async function pruneAuthFailures(db: Kysely<DB>, before: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('created_at', '<=', before).execute();
}

/** Drops locks that have ended: one is stored per email tried, and anyone may try any email. */
export async function pruneLockouts(db: Kysely<DB>, now: string): Promise<void> {
  await db.deleteFrom('auth_lockouts').where('locked_until', '<=', now).execute();
}

/** The locks in force on these keys (a sign-in's two keys, or a page of the user list's accounts). */
export async function findActiveLockouts(db: Kysely<DB>, keys: readonly string[], now: string) {
  if (keys.length === 0) return [];
  return activeLockouts(db, [now], keys);
}

// '' is no key: keys are `email:…` and `ip:…`
const activeLockouts = compiledListRead(
  (db, [now]: [string], keys: string[]) =>
    db.selectFrom('auth_lockouts').selectAll().where('locked_until', '>', now).where('key', 'in', keys),
  1,
  '',
);

export async function upsertLockout(db: Kysely<DB>, key: string, lockedUntil: string, now: string): Promise<void> {
  await db
    .insertInto('auth_lockouts')
    .values({ key, locked_until: lockedUntil, created_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ locked_until: lockedUntil, created_at: now }))
    .execute();
}

/** Returns whether a lock existed (active or not). */
export async function deleteLockout(db: Kysely<DB>, key: string): Promise<boolean> {
  const result = await db.deleteFrom('auth_lockouts').where('key', '=', key).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
