import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB } from '#db/schema';
import type { TenantScope } from '#db/tenant';
import { withTransaction, type AfterCommit } from '#db/transaction';
import { fieldError } from '#errors';
import {
  deleteSubscriptionOfUser,
  insertPushRows,
  isPushEnabled,
  listDeliverableSubscriptions,
  setPushEnabled,
  upsertSubscription,
} from '#repos/push';
import { currentLicense } from './licensing';
import type { UserActor } from './actor';
import type { NotificationKind } from '#domain/notification-kinds';

/**
 * Web push for the apps: subscriptions, the user's switch, and the queue the
 * notifier (services/notifications.ts) writes to. A notification is queued in
 * the transaction of its event (one row per subscription of each recipient)
 * and sent after commit by the push sender (deps.signals.pushQueued); a request never waits for a push service.
 */

export interface PushNotification {
  kind: NotificationKind;
  title: string;
  body: string;
  /** ids the app uses to open what the notification is about */
  data: Record<string, number | string>;
}

export function vapidPublicKey(deps: Deps): string {
  return deps.secrets.vapid.publicKey;
}

export interface SubscriptionInput {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

/** @throws AppError VALIDATION_ERROR for an endpoint a push service would not have */
export async function subscribe(
  deps: Deps,
  actor: UserActor,
  input: SubscriptionInput,
): Promise<{ endpoint: string; pushEnabled: boolean }> {
  assertPushEndpoint(input.endpoint, deps.config.env === 'test');
  const now = deps.clock.now().toISOString();
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    await upsertSubscription(
      trx,
      actor.scope,
      { userId: actor.userId, endpoint: input.endpoint, p256dh: input.keys.p256dh, auth: input.keys.auth },
      now,
    );
    return { endpoint: input.endpoint, pushEnabled: await isPushEnabled(trx, actor.scope, actor.userId) };
  });
}

/** Idempotent: unsubscribing an endpoint that is not (or no longer) the caller's answers `removed: false`. */
export async function unsubscribe(deps: Deps, actor: UserActor, endpoint: string): Promise<{ removed: boolean }> {
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => ({
    removed: await deleteSubscriptionOfUser(trx, actor.scope, actor.userId, endpoint),
  }));
}

export async function turnPush(deps: Deps, actor: UserActor, enabled: boolean): Promise<{ enabled: boolean }> {
  const now = deps.clock.now().toISOString();
  await withTransaction(deps.db, { lockClient: actor.scope.clientId }, (trx) =>
    setPushEnabled(trx, actor.scope, actor.userId, enabled, now),
  );
  return { enabled };
}

/**
 * Push services are public HTTPS endpoints. Plain HTTP, credentials in the URL,
 * and hosts inside this network (loopback, private and link-local literals,
 * localhost) are refused, so a subscription cannot make the appliance post to
 * internal services — except loopback HTTP under WIP_ENV=test, where the tests'
 * push service runs.
 */
export function assertPushEndpoint(endpoint: string, allowLoopback: boolean): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw fieldError('body.endpoint', 'not a URL');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  if (allowLoopback && loopback && (url.protocol === 'http:' || url.protocol === 'https:')) return;
  if (url.protocol !== 'https:') throw fieldError('body.endpoint', 'a push endpoint is an https: URL');
  if (url.username || url.password) throw fieldError('body.endpoint', 'a push endpoint carries no credentials');
  if (loopback || host.endsWith('.localhost') || (isIP(host) !== 0 && isInternalAddress(host))) {
    throw fieldError('body.endpoint', 'a push endpoint is a public push service');
  }
}

function isInternalAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127)
    );
  }
  return ip === '::' || ip === '::1' || /^f[cd]/.test(ip) || /^fe[89ab]/.test(ip) || ip.startsWith('::ffff:');
}

// ── Notifications of domain events (called inside the event's transaction) ──

/**
 * Queues a notification for the users' deliverable subscriptions and kicks the
 * sender after commit. Nothing is queued while the license key lacks the `push`
 * feature: a key replaced by one without it stops pushes to the browsers that
 * subscribed before, not only new subscriptions.
 */
export async function queuePush(
  deps: Deps,
  trx: Kysely<DB>,
  afterCommit: AfterCommit,
  scope: TenantScope,
  userIds: readonly number[],
  notification: PushNotification,
): Promise<void> {
  if (!(await currentLicense(deps, { trx })).terms.features.includes('push')) return;
  const subscriptions = await listDeliverableSubscriptions(trx, scope, [...new Set(userIds)]);
  if (subscriptions.length === 0) return;
  const payload = JSON.stringify({ title: notification.title, body: notification.body, kind: notification.kind, data: notification.data });
  await insertPushRows(
    trx,
    scope,
    subscriptions.map((s) => ({ subscriptionId: s.id, kind: notification.kind, payload })),
    deps.clock.now().toISOString(),
  );
  afterCommit(() => deps.signals.pushQueued());
}
