import { ContainerNotification as ContainerNotificationData, Page } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { PageQuery, mapPage } from '#db/pagination';
import {
  ContainerNotification,
  SIGNATURE_HEADER,
  authenticateContainerNotification,
  listNotifications,
  receiveContainerNotification,
} from '#services/integrations/container-notifications';
import { presentContainerNotification } from '#presenters/container-notifications';

const PATH = '/api/admin/container-notification-center';

export const adminContainerNotificationRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: PATH,
    operationId: 'receiveContainerNotification',
    response: ContainerNotificationData.extend({ duplicate: z.boolean() }),
    errors: ['SIGNATURE_INVALID', 'CONFLICT', 'INTEGRATION_NOT_CONFIGURED'],
    summary: `Receive a notification of the container platform (image updated, restart scheduled): {id, type, occurredAt?, data?}. Authenticated by ${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the raw body with WIP_CONTAINER_NOTIFICATION_SECRET>, or a system administrator's token. Idempotent by id: a repeat answers the stored notification with duplicate: true (the same id with other content: 409). 401 SIGNATURE_INVALID first (also without a configured secret); 503 INTEGRATION_NOT_CONFIGURED only to a system administrator when no secret is set`,
    // authenticated by the signature (a platform has no account) or a system administrator's token, before the body is validated
    auth: 'public',
    authenticate({ deps, actor, ctx }) {
      // the exact bytes received, kept by the body parser (includeUnparsed)
      authenticateContainerNotification(deps, actor, (ctx.request as { rawBody?: string }).rawBody, ctx.get(SIGNATURE_HEADER));
    },
    body: ContainerNotification,
    rateLimit: { max: 120, windowMs: 60_000 },
    async handler({ deps, actor, body }) {
      const by = actor?.kind === 'admin' ? `admin:${actor.adminId}` : 'signature';
      const { notification, duplicate } = await receiveContainerNotification(deps, body, by);
      return { ...presentContainerNotification(notification), duplicate };
    },
  }),
  defineRoute({
    method: 'get',
    path: PATH,
    operationId: 'listContainerNotifications',
    response: Page(ContainerNotificationData),
    summary: 'Container-platform notifications received, oldest first in the one pagination shape; ?type= for one kind',
    auth: 'admin',
    query: PageQuery.extend({ type: z.string().max(64).optional() }),
    async handler({ deps, query }) {
      const { limit, cursor, type } = query;
      return mapPage(await listNotifications(deps, { type }, { limit, cursor }), presentContainerNotification);
    },
  }),
];
