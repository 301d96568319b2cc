import { z } from 'zod';
import { Deleted, Page, Webhook, WebhookDelivery } from '#presenters/schemas';
import { PageQuery, mapPage } from '#db/pagination';
import type { EventOwner } from '#repos/events';
import { presentDelivery, presentWebhook } from '#presenters';
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, pingWebhook, redeliver, updateWebhook } from '#services/webhooks';
import type { Actor } from '#services/actor';
import { changedBy } from '#services/security-log';
import { defineRoute, IdParams, type AuthMode, type RouteSpec } from '../../route';
import type { Permission } from '#policies/permissions';
import { DeliveryParams, webhookSchemas } from './schema';

/** Creating endpoints and pinging them makes this server send requests: bounded per caller. */
const outboundLimit = {
  max: 30,
  windowMs: 60_000,
  key: (ctx: { state: { actor?: Actor }; ip: string }) =>
    `${ctx.state.actor?.kind}:${ctx.state.actor && ('userId' in ctx.state.actor ? ctx.state.actor.userId : ctx.state.actor.adminId)}`,
};

/**
 * The webhook routes of one owner: a client's (`/api/client/webhooks`,
 * Security Administrators) or the system's (`/api/admin/webhooks`, system
 * administrators). Same shapes, different catalogue and owner.
 */
export function webhookRoutes(options: {
  base: string;
  /** the noun of the operationIds (`listWebhooks`, `pingAdminWebhook`) */
  noun: string;
  who: string;
  auth: AuthMode;
  permission?: Permission;
  owner: (actor: Actor) => EventOwner;
  eventTypes: readonly [string, ...string[]];
}): RouteSpec[] {
  const { base, noun, who, auth, permission, owner, eventTypes } = options;
  const { CreateWebhook, UpdateWebhook } = webhookSchemas(eventTypes);
  return [
    defineRoute({
      method: 'get',
      path: base,
      operationId: `list${noun}s`,
      response: Page(Webhook),
      summary: `${who}: list webhook endpoints (paginated)`,
      auth,
      permission,
      query: PageQuery,
      async handler({ deps, actor, query }) {
        return mapPage(await listWebhooks(deps, owner(actor as Actor), query), presentWebhook);
      },
    }),
    defineRoute({
      method: 'post',
      path: base,
      operationId: `create${noun}`,
      response: Webhook.extend({ secret: z.string() }),
      errors: ['WEBHOOK_TARGET_REFUSED', 'CONFLICT'],
      summary: `${who}: register an endpoint {url, events, description?, active?}; answers the signing secret (whsec_…) once. A URL the network policy refuses → 422 WEBHOOK_TARGET_REFUSED naming why`,
      auth,
      permission,
      body: CreateWebhook,
      status: 201,
      rateLimit: outboundLimit,
      async handler({ deps, actor, body, meta }) {
        const { webhook, secret } = await createWebhook(deps, owner(actor as Actor), body, changedBy(actor as Actor, meta));
        return { ...presentWebhook(webhook), secret };
      },
    }),
    defineRoute({
      method: 'put',
      path: `${base}/:id`,
      operationId: `update${noun}`,
      response: Webhook.extend({ secret: z.string().optional() }),
      errors: ['WEBHOOK_TARGET_REFUSED', 'CONFLICT'],
      summary: `${who}: change an endpoint (omitted fields keep their values); rotateSecret: true answers a new secret once, the old one stays valid 24 h`,
      auth,
      permission,
      params: IdParams,
      body: UpdateWebhook,
      rateLimit: outboundLimit,
      async handler({ deps, actor, params, body, meta }) {
        const { webhook, secret } = await updateWebhook(deps, owner(actor as Actor), params.id, body, changedBy(actor as Actor, meta));
        return { ...presentWebhook(webhook), ...(secret && { secret }) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${base}/:id`,
      operationId: `delete${noun}`,
      response: Deleted,
      summary: `${who}: delete an endpoint and its delivery log`,
      auth,
      permission,
      params: IdParams,
      async handler({ deps, actor, params, meta }) {
        await deleteWebhook(deps, owner(actor as Actor), params.id, changedBy(actor as Actor, meta));
        return { id: params.id, deleted: true };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:id/ping`,
      operationId: `ping${noun}`,
      response: WebhookDelivery,
      summary: `${who}: send a webhook.ping event to this endpoint; answers the queued delivery`,
      auth,
      permission,
      params: IdParams,
      status: 202,
      rateLimit: outboundLimit,
      async handler({ deps, actor, params }) {
        return presentDelivery(await pingWebhook(deps, owner(actor as Actor), params.id));
      },
    }),
    defineRoute({
      method: 'get',
      path: `${base}/:id/deliveries`,
      operationId: `list${noun}Deliveries`,
      response: Page(WebhookDelivery),
      summary: `${who}: the endpoint's deliveries, newest first (event, attempt, status code, duration, error, time)`,
      auth,
      permission,
      params: IdParams,
      query: PageQuery,
      async handler({ deps, actor, params, query }) {
        return mapPage(await listDeliveries(deps, owner(actor as Actor), params.id, query), presentDelivery);
      },
    }),
    defineRoute({
      method: 'post',
      path: `${base}/:id/deliveries/:deliveryId/redeliver`,
      operationId: `redeliver${noun}Delivery`,
      response: WebhookDelivery,
      errors: ['CONFLICT'],
      summary: `${who}: send a delivery again now, with the same webhook-id`,
      auth,
      permission,
      params: DeliveryParams,
      status: 202,
      rateLimit: outboundLimit,
      async handler({ deps, actor, params }) {
        return presentDelivery(await redeliver(deps, owner(actor as Actor), params.id, params.deliveryId));
      },
    }),
  ];
}
