import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { subscribe, turnPush, unsubscribe, vapidPublicKey } from '#services/push';
import { PushSubscriptionBody, TurnPushBody, UnsubscribeBody } from './schema';

/** Web push (Web Push protocol with VAPID): the apps subscribe, the appliance notifies of domain events. */
export const clientPushRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/push/vapid-key',
    operationId: 'getVapidKey',
    response: z.object({ publicKey: z.string() }),
    errors: ['INTEGRATION_NOT_CONFIGURED'],
    summary: "The appliance's VAPID public key (base64url, uncompressed P-256 point): the applicationServerKey for pushManager.subscribe()",
    auth: 'user',
    feature: 'push',
    async handler({ deps }) {
      return { publicKey: vapidPublicKey(deps) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/push/subscribe',
    operationId: 'subscribePush',
    response: z.object({ endpoint: z.string(), pushEnabled: z.boolean() }),
    summary:
      "Store a browser's PushSubscription {endpoint, keys: {p256dh, auth}} for the caller (https push services only); the same endpoint again replaces it",
    auth: 'user',
    feature: 'push',
    body: PushSubscriptionBody,
    status: 201,
    async handler({ deps, actor, body }) {
      return subscribe(deps, actor, { endpoint: body.endpoint, keys: body.keys });
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/client/push/unsubscribe',
    operationId: 'unsubscribePush',
    response: z.object({ removed: z.boolean() }),
    summary: "Remove the caller's subscription of {endpoint}; idempotent (removed: false when there was none)",
    auth: 'user',
    body: UnsubscribeBody,
    async handler({ deps, actor, body }) {
      return unsubscribe(deps, actor, body.endpoint);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/turn-push-notification',
    operationId: 'turnPushNotification',
    response: z.object({ enabled: z.boolean() }),
    summary: 'Switch push notifications on or off for the caller (all of their browsers and devices)',
    auth: 'user',
    feature: 'push',
    body: TurnPushBody,
    async handler({ deps, actor, body }) {
      return turnPush(deps, actor, body.enabled);
    },
  }),
];
