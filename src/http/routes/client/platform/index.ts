import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { buildInfo } from '../../../../lib/build-info';
import { checkForUpdates } from '../../../../services/updates';

export const clientPlatformRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/version',
    operationId: 'getVersion',
    response: z.object({ version: z.string(), apiVersion: z.string(), build: z.object({ commit: z.string(), date: z.string().nullable() }), runtime: z.unknown().optional() }).meta({ id: 'VersionInfo' }),
    summary: 'The running version: {version, apiVersion, build: {commit, date}} (commit `dev` and date null for a build from source); public',
    auth: 'public',
    async handler() {
      return buildInfo();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/check-updates',
    operationId: 'checkUpdates',
    response: z.object({ current: z.string(), latest: z.string().nullable(), updateAvailable: z.boolean(), notes: z.string().nullable(), source: z.enum(['url', 'file', 'none', 'unreachable']), error: z.string().optional() }),
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
