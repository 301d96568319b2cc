import type { Kysely, Updateable } from 'kysely';
import type { DB, WebhookDeliveryRow, WebhookRow, WebhooksTable } from '#db/schema';
import { decodeCursor, paginate, toPage, type Page, type PageInput } from '#db/pagination';
import { ownerIs, type EventOwner } from './events';

// Webhook endpoints and their deliveries (0011_events). Every read names the
// owner (a client, or null for the system administrators' endpoints), so
// another client's endpoint or delivery reads as not there.

export async function insertWebhook(trx: Kysely<DB>, values: Omit<WebhookRow, 'id'>): Promise<WebhookRow> {
  return trx.insertInto('webhooks').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findWebhook(db: Kysely<DB>, owner: EventOwner, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where(ownerIs(owner, 'webhooks')).where('id', '=', id).executeTakeFirst();
}

export async function listWebhooks(db: Kysely<DB>, owner: EventOwner, page: PageInput): Promise<Page<WebhookRow>> {
  return paginate(db.selectFrom('webhooks').selectAll().where(ownerIs(owner, 'webhooks')), page, 'webhooks.id');
}

export async function updateWebhook(
  db: Kysely<DB>,
  owner: EventOwner,
  id: number,
  changes: Updateable<WebhooksTable>,
): Promise<WebhookRow | undefined> {
  return db.updateTable('webhooks').set(changes).where(ownerIs(owner, 'webhooks')).where('id', '=', id).returningAll().executeTakeFirst();
}

export async function deleteWebhook(db: Kysely<DB>, owner: EventOwner, id: number): Promise<boolean> {
  const result = await db.deleteFrom('webhooks').where(ownerIs(owner, 'webhooks')).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The owner's active endpoints (fan-out reads them inside the event's transaction). */
export async function listActiveWebhooks(trx: Kysely<DB>, owner: EventOwner): Promise<WebhookRow[]> {
  return trx.selectFrom('webhooks').selectAll().where(ownerIs(owner, 'webhooks')).where('active', '=', 1).execute();
}

export async function insertDeliveries(
  trx: Kysely<DB>,
  owner: EventOwner,
  eventId: number,
  webhookIds: number[],
  now: string,
): Promise<WebhookDeliveryRow[]> {
  if (webhookIds.length === 0) return [];
  return trx
    .insertInto('webhook_deliveries')
    .values(
      webhookIds.map((webhookId) => ({
        client_id: owner,
        webhook_id: webhookId,
        event_id: eventId,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      })),
    )
    .returningAll()
    .execute();
}

export type DeliveryWithEvent = WebhookDeliveryRow & { event_public_id: string; event_type: string; payload: string };

/** Newest first: the delivery log of one endpoint. */
export async function listDeliveries(
  db: Kysely<DB>,
  owner: EventOwner,
  webhookId: number,
  page: PageInput,
): Promise<Page<DeliveryWithEvent>> {
  const cursor = decodeCursor(page.cursor);
  let query = deliveriesWithEvent(db, owner).where('webhook_deliveries.webhook_id', '=', webhookId);
  if (cursor > 0) query = query.where('webhook_deliveries.id', '<', cursor);
  return toPage(
    await query
      .orderBy('webhook_deliveries.id', 'desc')
      .limit(page.limit + 1)
      .execute(),
    page.limit,
  );
}

export async function findDelivery(
  db: Kysely<DB>,
  owner: EventOwner,
  webhookId: number,
  id: number,
): Promise<DeliveryWithEvent | undefined> {
  return deliveriesWithEvent(db, owner)
    .where('webhook_deliveries.webhook_id', '=', webhookId)
    .where('webhook_deliveries.id', '=', id)
    .executeTakeFirst();
}

function deliveriesWithEvent(db: Kysely<DB>, owner: EventOwner) {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select(['events.public_id as event_public_id', 'events.type as event_type', 'events.payload'])
    .where(ownerIs(owner, 'webhook_deliveries'));
}

/** Delivery rows as the sender needs them: with the event and the endpoint. */
export async function loadDeliveryForSending(db: Kysely<DB>, id: number) {
  return db
    .selectFrom('webhook_deliveries')
    .innerJoin('events', 'events.id', 'webhook_deliveries.event_id')
    .innerJoin('webhooks', 'webhooks.id', 'webhook_deliveries.webhook_id')
    .select([
      'webhook_deliveries.id',
      'webhook_deliveries.client_id',
      'webhook_deliveries.attempts',
      'webhook_deliveries.created_at',
      'events.public_id as event_public_id',
      'events.payload',
      'webhooks.id as webhook_id',
      'webhooks.url',
      'webhooks.active',
      'webhooks.secret',
      'webhooks.previous_secret',
      'webhooks.previous_secret_expires_at',
      'webhooks.failing_since',
    ])
    .where('webhook_deliveries.id', '=', id)
    .executeTakeFirst();
}

export async function recordDeliveryAttempt(
  db: Kysely<DB>,
  id: number,
  values: Pick<
    WebhookDeliveryRow,
    'status' | 'attempts' | 'next_attempt_at' | 'last_status_code' | 'last_duration_ms' | 'last_error' | 'last_attempt_at'
  >,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ ...values, updated_at: values.last_attempt_at ?? values.next_attempt_at })
    .where('id', '=', id)
    .execute();
}

/** Gives up on an endpoint's pending deliveries (it was disabled or deleted). */
export async function failPendingDeliveries(db: Kysely<DB>, webhookId: number, reason: string, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', last_error: reason, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

/** Puts a delivery back in the queue, due now, keeping its id (the same webhook-id is sent). */
export async function requeueDelivery(db: Kysely<DB>, id: number, now: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', next_attempt_at: now, updated_at: now })
    .where('id', '=', id)
    .execute();
}
