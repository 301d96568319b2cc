import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { editorialAggregates, recordEditorialEvents } from '#services/editorial';
import { EditorialQuery, RecordEditorialEvents } from './schema';

export const clientEditorialRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/editorial',
    operationId: 'saveEditorial',
    response: z.object({ recorded: z.number().int() }),
    summary:
      "Record editorial events {events: [{type: VIEWED|EDITED|STEP_DWELL, templateId, versionId?, stepId?, durationMs?, at?}]} (at most 500) of the client's templates",
    auth: 'user',
    body: RecordEditorialEvents,
    async handler({ deps, actor, body }) {
      return recordEditorialEvents(deps, actor, body.events);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/editorial',
    operationId: 'getEditorial',
    response: z
      .object({
        templateId: z.number().int(),
        from: z.string().nullable(),
        to: z.string().nullable(),
        views: z.number().int(),
        edits: z.number().int(),
        steps: z.array(z.object({ stepId: z.string(), samples: z.number().int(), medianMs: z.number(), p90Ms: z.number() })),
      })
      .meta({ id: 'EditorialAggregates' }),
    summary:
      'Editorial aggregates of a template in [from, to): views, edits, median and p90 dwell per step (admins, authors, approvers, publishers)',
    auth: 'user',
    query: EditorialQuery,
    async handler({ deps, actor, query }) {
      return editorialAggregates(deps, actor, query);
    },
  }),
];
