import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { reportUnapplied, UnappliedReportInput } from '#services/sync';

/**
 * A device after a restore (docs/reliability.md "The data epoch"):
 * the write it had been told was recorded and that was refused when sent
 * again is reported here, so it becomes a deviation and stays in the audit
 * trail. Any signed-in user of the client: the device's user reports their own write.
 */
export const clientSyncRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/sync/unapplied',
    operationId: 'sendUnappliedWrite',
    summary:
      'Report a write the server had acknowledged under an earlier data epoch (Wip-Data-Epoch) and refused when sent again after a restore: {idempotencyKey, operation, jobId, stepId, acknowledgedAt, acknowledgedEpoch, error: {code, message}, summary, payload}. Always kept in the audit trail (sync.unapplied); a deviation UNAPPLIED_CHANGE on the job when jobId names one of the caller’s client',
    auth: 'user',
    body: UnappliedReportInput,
    status: 201,
    rateLimit: principalBudget('sync-unapplied', 600, 60_000),
    response: z.object({
      unapplied: z.object({
        deviationId: z.number().int().nullable().describe('the UNAPPLIED_CHANGE deviation; null when jobId names no job of the client'),
        jobId: z.number().int().nullable(),
      }),
    }),
    async handler({ deps, actor, body }) {
      return { unapplied: await reportUnapplied(deps, actor, body) };
    },
  }),
];
