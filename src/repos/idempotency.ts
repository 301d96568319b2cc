import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeyRow } from '#db/schema';

// The Idempotency-Key store (0011_events, 0037_exactly_once): one row per
// principal and key. Not a tenant table: system administrators have no client;
// the principal (user:<id> / admin:<id>) is part of the key, so no one reads
// another's row. A key in progress is leased by its owner (a process of a
// node, see http/middleware/idempotency.ts); a done key holds the answer,
// written in the same transaction as the request's writes.

/**
 * Takes the key for a first request: inserts an in_progress row owned by
 * `owner` unless one exists. A row past its expiry, or in progress for an
 * owner whose lease ran out (it died, see registerOwner), is replaced.
 * @returns the row that was already there, or undefined when the key is now ours
 */
export async function claimIdempotencyKey(
  db: Kysely<DB>,
  values: { principal: string; key: string; fingerprint: string; created_at: string; expires_at: string },
  owner: string,
): Promise<IdempotencyKeyRow | undefined> {
  const row = { ...values, status: 'in_progress' as const, response_status: null, response_body: null, owner };
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['principal', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return undefined;
    const existing = await db
      .selectFrom('idempotency_keys as k')
      .leftJoin('idempotency_owners as o', 'o.owner', 'k.owner')
      .selectAll('k')
      .select('o.lease_until')
      .where('k.principal', '=', values.principal)
      .where('k.key', '=', values.key)
      .executeTakeFirst();
    if (!existing) continue;
    const { lease_until: leaseUntil, ...found } = existing;
    const ownerGone = found.status === 'in_progress' && (leaseUntil ?? '') < values.created_at;
    if (found.expires_at > values.created_at && !ownerGone) return found;
    await db
      .deleteFrom('idempotency_keys')
      .where('principal', '=', found.principal)
      .where('key', '=', found.key)
      .where('created_at', '=', found.created_at)
      .execute();
  }
  // lost two races in a row: report the key as busy
  return row;
}

/**
 * Stores the answer of the key's request, in the request's transaction: only
 * while `owner` still holds the key.
 * @returns false when it does not any more (its lease ran out and another process took the key over)
 */
export async function completeIdempotencyKey(
  db: Kysely<DB>,
  principal: string,
  key: string,
  owner: string,
  answer: { status: number; body: string; fingerprint?: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({
      status: 'done',
      response_status: answer.status,
      response_body: answer.body,
      ...(answer.fingerprint && { fingerprint: answer.fingerprint }),
      owner: null,
    })
    .where('principal', '=', principal)
    .where('key', '=', key)
    .where('owner', '=', owner)
    .where('status', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Frees a key in progress whose request failed or could not be kept (its transaction rolled back, so a retry may run). */
export async function releaseIdempotencyKey(db: Kysely<DB>, principal: string, key: string, owner: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('principal', '=', principal)
    .where('key', '=', key)
    .where('owner', '=', owner)
    .where('status', '=', 'in_progress')
    .execute();
}

/** Records (or renews) the lease of `owner`, a process of `node`: its keys in progress are its own until `leaseUntil`. */
export async function registerOwner(db: Kysely<DB>, owner: string, node: string, leaseUntil: string): Promise<void> {
  await db
    .insertInto('idempotency_owners')
    .values({ owner, node, lease_until: leaseUntil })
    .onConflict((oc) => oc.column('owner').doUpdateSet({ lease_until: leaseUntil }))
    .execute();
}

/**
 * At a process's start: the earlier processes of its node are gone (this one
 * holds the data directory), so their keys in progress are released; owners
 * whose lease ended before `staleBefore` (any node) are forgotten.
 * @returns how many keys were released
 */
export async function releaseEarlierOwners(db: Kysely<DB>, owner: string, node: string, staleBefore: string): Promise<number> {
  const earlier = db.selectFrom('idempotency_owners').select('owner').where('node', '=', node).where('owner', '!=', owner);
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('status', '=', 'in_progress')
    .where('owner', 'in', earlier)
    .executeTakeFirst();
  await db
    .deleteFrom('idempotency_owners')
    .where((eb) => eb.or([eb.and([eb('node', '=', node), eb('owner', '!=', owner)]), eb('lease_until', '<', staleBefore)]))
    .execute();
  return Number(result.numDeletedRows);
}

export async function pruneIdempotencyKeys(db: Kysely<DB>, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
