import { randomBytes } from 'node:crypto';
import type { Deps } from '#deps';
import type { WebhookRow } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import { withTransaction } from '#db/transaction';
import { AppError, conflict, fieldError, notFound } from '#errors';
import { PING_EVENT } from '#events/catalogue';
import { writeEvent } from '#events/emit';
import { TargetRefused, urlProblem } from '#lib/network-policy';
import type { EventOwner } from '#repos/events';
import {
  deleteWebhook as deleteWebhookRow,
  findDelivery,
  findWebhook,
  insertDeliveries,
  insertWebhook,
  listDeliveries as listDeliveryRows,
  listWebhooks as listWebhookRows,
  requeueDelivery,
  updateWebhook as updateWebhookRow,
  type DeliveryWithEvent,
} from '#repos/webhooks';
import { recordChange, type ChangedBy } from './security-log';
import { SecretBox } from '#lib/secret-box';

/** Seals and opens webhook signing secrets at rest (the sender opens them to sign each delivery). */
export function webhookSecretBox(deps: Pick<Deps, 'secrets'>): SecretBox {
  return new SecretBox(deps.secrets.jwtSecret, 'webhook-secrets');
}

/**
 * An endpoint as its security event records it: the sealed secret under a
 * credential key, so a rotation shows as a change without any value.
 */
function audited(row: WebhookRow | null) {
  return (
    row && {
      url: loggableUrl(row.url),
      description: row.description,
      events: JSON.parse(row.events) as string[],
      active: row.active === 1,
      secret: row.secret,
    }
  );
}

/** A URL for the log: user info and query values may carry a receiver's credentials — they show as changed, never as they are. */
function loggableUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) [u.username, u.password] = ['redacted', ''];
    for (const key of [...u.searchParams.keys()]) u.searchParams.set(key, 'redacted');
    return u.toString();
  } catch {
    return '[unparseable URL]';
  }
}

/** Written right after the change, which is one statement. */
function webhookRecorded(
  deps: Deps,
  by: ChangedBy,
  what: 'created' | 'changed' | 'deleted',
  before: WebhookRow | null,
  after: WebhookRow | null,
) {
  const row = (after ?? before)!;
  return recordChange({ deps }, by, {
    event: `webhook.${what}`,
    message: `Webhook endpoint ${loggableUrl(row.url)} ${what}${row.client_id === null ? ' (system)' : ''}`,
    clientId: row.client_id,
    target: { type: 'webhook', id: row.id },
    before: audited(before),
    after: audited(after),
  });
}

/**
 * Webhook endpoints of a client (its Security Administrators) or of the
 * system (system administrators): `owner` is the client id, or null.
 */

/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookInput {
  url: string;
  events: string[];
  description?: string;
  active?: boolean;
}

/** A new signing secret: whsec_ + base64 of 32 random bytes (Standard Webhooks). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** @throws AppError VALIDATION_ERROR (malformed URL), WEBHOOK_TARGET_REFUSED (naming why) */
async function assertTargetAllowed(deps: Deps, url: string): Promise<void> {
  const problem = urlProblem(url);
  if (problem) throw fieldError('body.url', problem);
  try {
    await deps.webhookPolicy.resolve(new URL(url));
  } catch (error) {
    if (!(error instanceof TargetRefused)) throw error;
    throw new AppError('WEBHOOK_TARGET_REFUSED', `The webhook URL is refused: ${error.message}`, { field: 'url', reason: error.message });
  }
}

/**
 * Registers an endpoint. The secret is returned here and never again.
 * @throws AppError VALIDATION_ERROR, WEBHOOK_TARGET_REFUSED
 */
export async function createWebhook(
  deps: Deps,
  owner: EventOwner,
  input: WebhookInput,
  by: ChangedBy,
): Promise<{ webhook: WebhookRow; secret: string }> {
  await assertTargetAllowed(deps, input.url);
  const secret = newSecret();
  const now = deps.clock.now().toISOString();
  const webhook = await insertWebhook(deps.db.kysely, {
    client_id: owner,
    url: input.url,
    description: input.description ?? '',
    events: JSON.stringify([...new Set(input.events)]),
    active: input.active === false ? 0 : 1,
    secret: webhookSecretBox(deps).seal(secret),
    previous_secret: null,
    previous_secret_expires_at: null,
    failing_since: null,
    disabled_reason: null,
    created_at: now,
    updated_at: now,
  });
  await webhookRecorded(deps, by, 'created', null, webhook);
  return { webhook, secret };
}

export async function listWebhooks(deps: Deps, owner: EventOwner, page: PageInput): Promise<Page<WebhookRow>> {
  return listWebhookRows(deps.db.kysely, owner, page);
}

/** @throws AppError NOT_FOUND (also for another owner's endpoint) */
export async function getWebhook(deps: Deps, owner: EventOwner, id: number): Promise<WebhookRow> {
  const webhook = await findWebhook(deps.db.kysely, owner, id);
  if (!webhook) throw notFound('Webhook');
  return webhook;
}

/**
 * Changes an endpoint; omitted fields keep their values. `rotateSecret`
 * issues a new secret (returned once); the previous one keeps signing
 * alongside it for 24 h. Turning an endpoint on again clears its failing streak.
 * @throws AppError NOT_FOUND, VALIDATION_ERROR, WEBHOOK_TARGET_REFUSED
 */
export async function updateWebhook(
  deps: Deps,
  owner: EventOwner,
  id: number,
  changes: Partial<WebhookInput> & { rotateSecret?: boolean },
  by: ChangedBy,
): Promise<{ webhook: WebhookRow; secret: string | null }> {
  const current = await getWebhook(deps, owner, id);
  if (changes.url !== undefined && changes.url !== current.url) await assertTargetAllowed(deps, changes.url);
  const now = deps.clock.now();
  const secret = changes.rotateSecret ? newSecret() : null;
  const box = webhookSecretBox(deps);
  const updated = await updateWebhookRow(deps.db.kysely, owner, id, {
    ...(changes.url !== undefined && { url: changes.url }),
    ...(changes.description !== undefined && { description: changes.description }),
    ...(changes.events !== undefined && { events: JSON.stringify([...new Set(changes.events)]) }),
    ...(changes.active !== undefined && { active: changes.active ? 1 : 0 }),
    ...(changes.active === true && !current.active && { failing_since: null, disabled_reason: null }),
    ...(secret && {
      secret: box.seal(secret),
      previous_secret: current.secret,
      previous_secret_expires_at: new Date(now.getTime() + SECRET_OVERLAP_MS).toISOString(),
    }),
    updated_at: now.toISOString(),
  });
  if (!updated) throw notFound('Webhook');
  await webhookRecorded(deps, by, 'changed', current, updated);
  return { webhook: updated, secret };
}

/** Deletes an endpoint with its delivery log. @throws AppError NOT_FOUND */
export async function deleteWebhook(deps: Deps, owner: EventOwner, id: number, by: ChangedBy): Promise<void> {
  const current = await findWebhook(deps.db.kysely, owner, id);
  if (!current || !(await deleteWebhookRow(deps.db.kysely, owner, id))) throw notFound('Webhook');
  await webhookRecorded(deps, by, 'deleted', current, null);
}

/**
 * Sends a `webhook.ping` event to this endpoint only (a delivery like any other).
 * @throws AppError NOT_FOUND, CONFLICT (the endpoint is disabled)
 */
export async function pingWebhook(deps: Deps, owner: EventOwner, id: number): Promise<DeliveryWithEvent> {
  const delivery = await withTransaction(deps.db, async (trx, afterCommit) => {
    const webhook = await findWebhook(trx, owner, id);
    if (!webhook) throw notFound('Webhook');
    if (!webhook.active) throw conflict('The endpoint is disabled; turn it on first');
    const event = await writeEvent({ deps, trx, afterCommit }, owner, PING_EVENT, { webhookId: webhook.id, url: webhook.url });
    const [row] = await insertDeliveries(trx, owner, event.id, [webhook.id], event.created_at);
    afterCommit(() => deps.signals.webhooksDue());
    return (await findDelivery(trx, owner, webhook.id, row.id))!;
  });
  return delivery;
}

/** The endpoint's deliveries, newest first. @throws AppError NOT_FOUND */
export async function listDeliveries(deps: Deps, owner: EventOwner, webhookId: number, page: PageInput): Promise<Page<DeliveryWithEvent>> {
  await getWebhook(deps, owner, webhookId);
  return listDeliveryRows(deps.db.kysely, owner, webhookId, page);
}

/**
 * Sends a delivery again now, with the same webhook-id (receivers deduplicate on it).
 * @throws AppError NOT_FOUND, CONFLICT (the endpoint is disabled)
 */
export async function redeliver(deps: Deps, owner: EventOwner, webhookId: number, deliveryId: number): Promise<DeliveryWithEvent> {
  const webhook = await getWebhook(deps, owner, webhookId);
  if (!webhook.active) throw conflict('The endpoint is disabled; turn it on first');
  const delivery = await findDelivery(deps.db.kysely, owner, webhookId, deliveryId);
  if (!delivery) throw notFound('Delivery');
  await requeueDelivery(deps.db.kysely, delivery.id, deps.clock.now().toISOString());
  deps.signals.webhooksDue();
  return (await findDelivery(deps.db.kysely, owner, webhookId, deliveryId))!;
}
