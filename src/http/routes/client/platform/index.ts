import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { buildInfo } from '#lib/build-info';
import { checkForUpdates } from '#services/updates';

/** GET /api/client/version's `data` (BuildInfo), for the OpenAPI document */
const versionResponse = z.object({
  version: z.string().describe('the product version'),
  apiVersion: z.string().describe('the HTTP contract (SPEC.md); changes only with an incompatible change'),
  build: z.object({
    commit: z.string().describe('`dev` for a build from source'),
    date: z.string().nullable().describe('ISO 8601; null for a build from source'),
  }),
  runtime: z
    .object({
      name: z.literal('node'),
      version: z.string().describe('the Node.js version running the process (inside the executable: the one it embeds)'),
      supportedUntil: z
        .string()
        .nullable()
        .describe("end of life (YYYY-MM-DD) of that version's release line, from a table in the build; null for a line it does not know"),
    })
    .describe('the runtime and until when its release line gets security fixes'),
  dataEpoch: z
    .string()
    .nullable()
    .describe(
      'the data epoch (also the Wip-Data-Epoch header): replaced by every restore; null only before the first start migrated the database',
    ),
});

export const clientPlatformRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/version',
    operationId: 'getVersion',
    summary:
      'The running version: {version, apiVersion, build: {commit, date}, runtime: {name: node, version, supportedUntil}, dataEpoch} (commit `dev` and date null for a build from source; supportedUntil: the end of life of the Node.js line; dataEpoch: replaced by every restore, docs/reliability.md); public',
    auth: 'public',
    response: versionResponse,
    async handler({ deps }) {
      return { ...buildInfo(), dataEpoch: deps.dataEpoch.current ?? (await deps.dataEpoch.load()) ?? null };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/check-updates',
    operationId: 'checkUpdates',
    response: z.object({
      current: z.string(),
      latest: z.string().nullable(),
      updateAvailable: z.boolean(),
      notes: z.string().nullable(),
      source: z.enum(['url', 'file', 'none', 'unreachable']),
      error: z.string().optional(),
    }),
    errors: ['UPSTREAM_ERROR', 'INTEGRATION_NOT_CONFIGURED'],
    summary:
      'Compares the running version with the update manifest (updateUrl, else <data-dir>/updates/manifest.json): {current, latest, updateAvailable, notes, source: url|file|none|unreachable, error?}; an unreachable source is reported, never an error',
    auth: 'user-or-admin',
    // each call may ask the upstream: a budget per principal
    rateLimit: principalBudget('check-updates', 30, 60_000),
    async handler({ deps }) {
      return checkForUpdates(deps);
    },
  }),
];
