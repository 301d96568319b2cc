import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeyRow } from '#db/schema';

// The Idempotency-Key store (0011_events): one row per principal and key.
// Not a tenant table: system administrators have no client; the principal
// (user:<id> / admin:<id>) is part of the key, so no one reads another's row.

/**
 * Takes the key for a first request: inserts an in_progress row unless one
 * exists. A row past its expiry, or in progress since before `abandonedBefore`
 * (its request died with the process), is replaced.
 * @returns the row that was already there, or undefined when the key is now ours
 */
export async function claimIdempotencyKey(
  db: Kysely<DB>,
  values: { principal: string; key: string; fingerprint: string; created_at: string; expires_at: string },
  abandonedBefore: string,
): Promise<IdempotencyKeyRow | undefined> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const inserted = await db
      .insertInto('idempotency_keys')
      .values({ ...values, status: 'in_progress', response_status: null, response_body: null })
      .onConflict((oc) => oc.columns(['principal', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0) return undefined;
    const existing = await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('principal', '=', values.principal)
      .where('key', '=', values.key)
      .executeTakeFirst();
    if (!existing) continue;
    const stale = existing.expires_at <= values.created_at || (existing.status === 'in_progress' && existing.created_at < abandonedBefore);
    if (!stale) return existing;
    await db
      .deleteFrom('idempotency_keys')
      .where('principal', '=', existing.principal)
      .where('key', '=', existing.key)
      .where('created_at', '=', existing.created_at)
      .execute();
  }
  // lost two races in a row: report the key as busy
  return { ...values, status: 'in_progress', response_status: null, response_body: null };
}

export async function completeIdempotencyKey(db: Kysely<DB>, principal: string, key: string, status: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ status: 'done', response_status: status, response_body: body })
    .where('principal', '=', principal)
    .where('key', '=', key)
    .execute();
}

/** Frees a key whose request failed (nothing was changed, so a retry may run). */
export async function releaseIdempotencyKey(db: Kysely<DB>, principal: string, key: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('principal', '=', principal)
    .where('key', '=', key)
    .where('status', '=', 'in_progress')
    .execute();
}

export async function pruneIdempotencyKeys(db: Kysely<DB>, now: string): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
