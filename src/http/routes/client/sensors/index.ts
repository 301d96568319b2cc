import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { updateSensors } from '#services/sensors';
import { UpdateSensors } from './schema';

export const clientSensorRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/update-sensors',
    operationId: 'updateSensors',
    response: z.object({ accepted: z.number().int(), duplicates: z.number().int() }),
    errors: ['NOT_FOUND'],
    summary:
      'Operators (devices) send sensor readings {readings: [{sensorId, readingId, value, timestamp}]} (at most 1000); idempotent by readingId → {accepted, duplicates}; an unknown sensorId refuses the batch (422)',
    auth: 'user',
    permission: 'sendReadings',
    body: UpdateSensors,
    async handler({ deps, actor, body }) {
      return updateSensors(deps, actor, body.readings);
    },
  }),
];
