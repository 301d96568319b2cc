import { z } from 'zod';
import { CLIENT_EVENT_TYPES, SYSTEM_EVENT_TYPES } from '#events/catalogue';
import type { UserActor } from '#services/actor';
import { defineRoute, type RouteSpec } from '../../../route';
import { lastEventIdHeader, sendEventStream } from '../../../event-stream';
import { webhookRoutes } from '../../webhooks';

const StreamQuery = z.object({
  /** for clients that cannot send the Last-Event-ID header on their first connection */
  lastEventId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const clientEventRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/events',
    operationId: 'streamEvents',
    produces: { type: 'text/event-stream' },
    honours: ['Last-Event-ID'],
    summary:
      "Live event stream (Server-Sent Events) of the caller's client: each event has an id; reconnect with Last-Event-ID to replay what was missed within eventRetention. Heartbeat comments every eventStreamHeartbeat; closed on sign-out or when the user is disabled",
    auth: 'user',
    query: StreamQuery,
    async handler({ deps, actor, query, ctx }) {
      const stream = await deps.eventStreams.open(actor, lastEventIdHeader(ctx) ?? query.lastEventId);
      return sendEventStream(ctx, stream);
    },
  }),
  ...webhookRoutes({
    base: '/api/client/webhooks',
    noun: 'Webhook',
    who: 'Security Administrator',
    auth: 'user',
    permission: 'administerSecurity',
    owner: (actor) => (actor as UserActor).clientId,
    eventTypes: CLIENT_EVENT_TYPES,
  }),
];

export const adminWebhookRoutes: RouteSpec[] = webhookRoutes({
  base: '/api/admin/webhooks',
  noun: 'AdminWebhook',
  who: 'System administrator (system events)',
  auth: 'admin',
  owner: () => null,
  eventTypes: SYSTEM_EVENT_TYPES,
});
