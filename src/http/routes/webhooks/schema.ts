import { z } from 'zod';
import { IdParams } from '../../route';

/** Body of POST …/webhooks for one catalogue (the client's event types, or the system's). */
export function webhookSchemas(types: readonly [string, ...string[]]) {
  const fields = {
    url: z.string().trim().min(1).max(2048),
    events: z.array(z.enum(types)).min(1).max(types.length),
    description: z.string().max(500),
    active: z.boolean(),
  };
  return {
    CreateWebhook: z
      .object({ url: fields.url, events: fields.events, description: fields.description.optional(), active: fields.active.optional() })
      .strict(),
    UpdateWebhook: z
      .object({
        url: fields.url.optional(),
        events: fields.events.optional(),
        description: fields.description.optional(),
        active: fields.active.optional(),
        /** true: issue a new secret (answered once); the previous one keeps signing for 24 h */
        rotateSecret: z.boolean().optional(),
      })
      .strict(),
  };
}

export const DeliveryParams = IdParams.extend({ deliveryId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
