import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, EventRow } from '#db/schema';
import type { AfterCommit } from '#db/transaction';
import type { TenantScope } from '#db/tenant';
import { insertEvent } from '#repos/events';
import { insertDeliveries, listActiveWebhooks } from '#repos/webhooks';
import type { ClientEventType, EventType, SystemEventType } from './catalogue';

/** The transaction an event is written in, and what to wake once it commits. */
export interface EventTx {
  deps: Deps;
  trx: Kysely<DB>;
  afterCommit: AfterCommit;
}

/** What a webhook receives and a live stream shows. */
export interface EventPayload {
  id: string;
  type: EventType;
  timestamp: string;
  data: unknown;
}

/**
 * Records an event in the transaction of the change that caused it (an outbox
 * row: no event for a change that rolled back, no change without its event)
 * and queues one delivery per subscribed active webhook of the owner. After
 * commit the webhook sender and the live streams are woken. `data` is the
 * presented entity (the API's presenters), never a hash or a secret.
 */
export async function emitEvent(
  tx: EventTx,
  scope: TenantScope,
  type: ClientEventType,
  data: unknown,
  about?: { templateId?: number },
): Promise<EventRow>;
export async function emitEvent(tx: EventTx, scope: null, type: SystemEventType, data: unknown): Promise<EventRow>;
export async function emitEvent(
  tx: EventTx,
  scope: TenantScope | null,
  type: EventType,
  data: unknown,
  about: { templateId?: number } = {},
): Promise<EventRow> {
  const row = await writeEvent(tx, scope?.clientId ?? null, type, data, about.templateId ?? null);
  const subscribed = (await listActiveWebhooks(tx.trx, row.client_id)).filter((w) => (JSON.parse(w.events) as string[]).includes(type));
  await insertDeliveries(
    tx.trx,
    row.client_id,
    row.id,
    subscribed.map((w) => w.id),
    row.created_at,
  );
  const { deps } = tx;
  tx.afterCommit(() => {
    if (subscribed.length > 0) deps.signals.webhooksDue();
    if (row.client_id !== null) deps.signals.clientEvent(row.client_id);
  });
  return row;
}

/** Writes the event row only (a ping addresses one endpoint itself). */
export async function writeEvent(
  tx: EventTx,
  owner: number | null,
  type: EventType,
  data: unknown,
  templateId: number | null = null,
): Promise<EventRow> {
  const timestamp = tx.deps.clock.now().toISOString();
  const payload: EventPayload = { id: `evt_${randomUUID().replace(/-/g, '')}`, type, timestamp, data };
  return insertEvent(tx.trx, {
    client_id: owner,
    public_id: payload.id,
    type,
    template_id: templateId,
    payload: JSON.stringify(payload),
    created_at: timestamp,
  });
}
