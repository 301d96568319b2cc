import { z } from 'zod';
import { CLIENT_EVENT_TYPES, SYSTEM_EVENT_TYPES } from '../../../../events/catalogue';
import { SECURITY_ADMIN } from '../../../../policies/roles';
import type { UserActor } from '../../../../services/actor';
import { defineRoute, type RouteSpec } from '../../../route';
import { webhookRoutes } from '../../webhooks';

const StreamQuery = z.object({
  /** for clients that cannot send the Last-Event-ID header on their first connection */
  lastEventId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});

export const clientEventRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/events',
    summary:
      "Live event stream (Server-Sent Events) of the caller's client: each event has an id; reconnect with Last-Event-ID to replay what was missed within eventRetention. Heartbeat comments every eventStreamHeartbeat; closed on sign-out or when the user is disabled",
    auth: 'user',
    query: StreamQuery,
    async handler({ deps, actor, query, ctx }) {
      const header = ctx.get('last-event-id');
      const fromHeader = /^\d{1,15}$/.test(header) ? Number(header) : undefined;
      const stream = await deps.eventStreams.open(actor as UserActor, fromHeader ?? query.lastEventId);
      // Written straight to the socket (not through Koa's body handling): a stream ends by the
      // client leaving or the session ending, which is not an error to report.
      ctx.respond = false;
      ctx.req.socket.setTimeout(0);
      ctx.req.socket.setNoDelay(true);
      ctx.res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      ctx.res.on('close', () => stream.destroy());
      stream.pipe(ctx.res);
      return undefined;
    },
  }),
  ...webhookRoutes({
    base: '/api/client/webhooks',
    who: 'Security Administrator',
    auth: 'user',
    roles: [SECURITY_ADMIN],
    owner: (actor) => (actor as UserActor).clientId,
    eventTypes: CLIENT_EVENT_TYPES,
  }),
];

export const adminWebhookRoutes: RouteSpec[] = webhookRoutes({
  base: '/api/admin/webhooks',
  who: 'System administrator (system events)',
  auth: 'admin',
  owner: () => null,
  eventTypes: SYSTEM_EVENT_TYPES,
});
