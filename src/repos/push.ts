import type { Kysely } from 'kysely';
import type { DB, PushOutboxRow, PushSubscriptionRow } from '#db/schema';
import { inTenant, tenantScope, type TenantScope } from '#db/tenant';

// Web push: subscriptions per user, the on/off switch, the push queue.

/** A user keeps at most this many subscriptions (browsers, devices); subscribing past it drops the oldest. */
export const MAX_SUBSCRIPTIONS_PER_USER = 20;

export interface NewSubscription {
  userId: number;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/**
 * Stores a subscription; the same endpoint subscribed again (a refreshed key, or
 * another user signed in on that browser) replaces the earlier row.
 */
export async function upsertSubscription(
  db: Kysely<DB>,
  scope: TenantScope,
  sub: NewSubscription,
  now: string,
): Promise<PushSubscriptionRow> {
  const row = await db
    .insertInto('push_subscriptions')
    .values({
      client_id: scope.clientId,
      user_id: sub.userId,
      endpoint: sub.endpoint,
      p256dh: sub.p256dh,
      auth: sub.auth,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['client_id', 'endpoint']).doUpdateSet({ user_id: sub.userId, p256dh: sub.p256dh, auth: sub.auth, updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  const surplus = await inTenant(db, scope)
    .selectFrom('push_subscriptions')
    .select('id')
    .where('user_id', '=', sub.userId)
    .orderBy('updated_at', 'desc')
    .orderBy('id', 'desc')
    .offset(MAX_SUBSCRIPTIONS_PER_USER)
    .limit(1000)
    .execute();
  if (surplus.length > 0)
    await inTenant(db, scope)
      .deleteFrom('push_subscriptions')
      .where(
        'id',
        'in',
        surplus.map((r) => r.id),
      )
      .execute();
  return row;
}

/** Removes the user's subscription of this endpoint. Returns whether there was one. */
export async function deleteSubscriptionOfUser(db: Kysely<DB>, scope: TenantScope, userId: number, endpoint: string): Promise<boolean> {
  const result = await inTenant(db, scope)
    .deleteFrom('push_subscriptions')
    .where('user_id', '=', userId)
    .where('endpoint', '=', endpoint)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The push service said the subscription is gone (404/410): it and what was queued for it go. */
export async function deleteSubscription(db: Kysely<DB>, clientId: number, id: number): Promise<void> {
  await inTenant(db, tenantScope(clientId)).deleteFrom('push_subscriptions').where('id', '=', id).execute();
}

export async function getSubscription(db: Kysely<DB>, clientId: number, id: number): Promise<PushSubscriptionRow | undefined> {
  return inTenant(db, tenantScope(clientId)).selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setPushEnabled(db: Kysely<DB>, scope: TenantScope, userId: number, enabled: boolean, now: string): Promise<void> {
  await db
    .insertInto('push_preferences')
    .values({ client_id: scope.clientId, user_id: userId, enabled: enabled ? 1 : 0, updated_at: now })
    .onConflict((oc) => oc.columns(['client_id', 'user_id']).doUpdateSet({ enabled: enabled ? 1 : 0, updated_at: now }))
    .execute();
}

export async function isPushEnabled(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<boolean> {
  const row = await inTenant(db, scope).selectFrom('push_preferences').select('enabled').where('user_id', '=', userId).executeTakeFirst();
  return row ? row.enabled === 1 : true;
}

/** The subscriptions of these users that should receive a push: active accounts that have not switched push off. */
export async function listDeliverableSubscriptions(
  db: Kysely<DB>,
  scope: TenantScope,
  userIds: readonly number[],
): Promise<PushSubscriptionRow[]> {
  if (userIds.length === 0) return [];
  const t = inTenant(db, scope);
  return t
    .selectFrom('push_subscriptions')
    .selectAll()
    .where('user_id', 'in', userIds)
    .where('user_id', 'in', t.selectFrom('users').select('id').where('status', '=', 'active'))
    .where('user_id', 'not in', t.selectFrom('push_preferences').select('user_id').where('enabled', '=', 0))
    .execute();
}

export async function insertPushRows(
  db: Kysely<DB>,
  scope: TenantScope,
  rows: { subscriptionId: number; kind: string; payload: string }[],
  now: string,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('push_outbox')
    .values(
      rows.map((r) => ({
        client_id: scope.clientId,
        subscription_id: r.subscriptionId,
        kind: r.kind,
        payload: r.payload,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
}

export async function markPushSent(db: Kysely<DB>, row: PushOutboxRow, now: string): Promise<void> {
  await inTenant(db, tenantScope(row.client_id))
    .updateTable('push_outbox')
    .set({ status: 'sent', sent_at: now, updated_at: now, last_error: null, attempts: (eb) => eb('attempts', '+', 1) })
    .where('id', '=', row.id)
    .execute();
}
