import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { forwardBugReport } from '#services/integrations/bug-tracker';
import { proxyMaps } from '#services/integrations/maps';
import { erpStatus, synchronizeErp } from '#services/integrations/erp';

const Text = (max: number) => z.string().trim().min(1).max(max);

/** One ERP sync run (services/integrations/erp presentSyncRun). */
const ErpSyncRun = z
  .object({
    id: z.number().int(),
    status: z.enum(['succeeded', 'partial', 'failed']),
    startedById: z.number().int(),
    startedAt: z.string(),
    finishedAt: z.string(),
    pulled: z.number().int(),
    created: z.number().int(),
    skipped: z.number().int(),
    pushed: z.number().int(),
    errors: z.array(z.object({ workOrderId: z.string().optional(), jobId: z.number().int().optional(), message: z.string() })),
  })
  .meta({ id: 'ErpSyncRun' });

export const clientIntegrationRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/bug-report-vendor',
    operationId: 'sendVendorBugReport',
    response: z.object({ issueNumber: z.number().int(), issueUrl: z.string().nullable() }),
    errors: ['INTEGRATION_NOT_CONFIGURED', 'UPSTREAM_ERROR'],
    summary:
      "File a bug report as an issue in the vendor's code-hosting tracker (GitHub/Gitea issues API; WIP_BUG_TRACKER_URL, _REPOSITORY, _TOKEN): {title, description, appVersion?, device?, platform?, logs?} → 201 {issueNumber, issueUrl}; 503 INTEGRATION_NOT_CONFIGURED; 502 UPSTREAM_ERROR with details.upstreamStatus when the tracker refuses or fails",
    auth: 'user',
    feature: 'integrations',
    status: 201,
    rateLimit: principalBudget('bug-report-vendor', 10, 3_600_000),
    body: z
      .object({
        title: Text(200),
        description: Text(10_000),
        appVersion: Text(64).optional(),
        device: Text(200).optional(),
        platform: Text(100).optional(),
        logs: z
          .string()
          .max(256 * 1024)
          .optional(),
      })
      .strict(),
    async handler({ deps, actor, body }) {
      return forwardBugReport(deps, actor, body);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/vendorMapsApi',
    operationId: 'proxyMaps',
    produces: {
      type: [
        'application/json',
        'image/png',
        'image/jpeg',
        'image/webp',
        'application/x-protobuf',
        'application/vnd.mapbox-vector-tile',
        'application/octet-stream',
      ],
    },
    errors: ['INTEGRATION_NOT_CONFIGURED', 'UPSTREAM_ERROR'],
    summary:
      'Maps proxy (geocoding, tiles) to the configured upstream (WIP_MAPS_URL): ?path= (a plain path under one of WIP_MAPS_ALLOWED_PATHS) and the query parameters WIP_MAPS_ALLOWED_PARAMS names; the API key is added server-side. Answers the upstream bytes as they are (images, JSON, vector tiles; anything else as application/octet-stream), not the envelope. 422 for a refused path or parameter, 503 INTEGRATION_NOT_CONFIGURED, 502 UPSTREAM_ERROR (HTTP ≥ 400, a redirect, no answer within WIP_INTEGRATION_TIMEOUT, larger than WIP_MAPS_MAX_RESPONSE)',
    auth: 'user',
    feature: 'integrations',
    envelope: false,
    cacheControl: 'private, max-age=300',
    rateLimit: principalBudget('maps', 600, 60_000),
    query: z.object({ path: z.string().min(1).max(512) }).catchall(z.string().max(1000)),
    async handler({ deps, query, ctx }) {
      const { path, ...params } = query as { path: string } & Record<string, string>;
      const answer = await proxyMaps(deps, path, params);
      ctx.status = answer.status;
      ctx.type = answer.contentType;
      ctx.body = answer.body;
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/vendorErp',
    operationId: 'getErpRecords',
    response: z
      .object({
        configured: z.boolean(),
        upstream: z.string().nullable(),
        templateMap: z.record(z.string(), z.string()),
        lastRuns: z.array(ErpSyncRun),
      })
      .meta({ id: 'ErpStatus' }),
    errors: ['INTEGRATION_NOT_CONFIGURED'],
    summary:
      "The ERP integration's state for the caller's client (Security Administrators): {configured, upstream (origin), templateMap (work-order type → template title), lastRuns: [run]} with run = {id, status: succeeded|partial|failed, startedById, startedAt, finishedAt, pulled, created, skipped, pushed, errors: [{workOrderId?, jobId?, message}]}",
    auth: 'user',
    permission: 'administerSecurity',
    feature: 'integrations',
    async handler({ deps, actor }) {
      return erpStatus(deps, actor);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/vendorErp',
    operationId: 'sendErpRecord',
    response: ErpSyncRun,
    errors: ['INTEGRATION_NOT_CONFIGURED', 'UPSTREAM_ERROR', 'CONFLICT'],
    summary:
      "Synchronize with the ERP (Security Administrators): pull released work orders into jobs (template by WIP_ERP_TEMPLATE_MAP, asset by serial number), push completed jobs' results back, both idempotent by the work-order id → the run. 503 INTEGRATION_NOT_CONFIGURED; 502 UPSTREAM_ERROR (details.runId, details.upstreamStatus) when the work-order list cannot be read",
    auth: 'user',
    permission: 'administerSecurity',
    feature: 'integrations',
    rateLimit: principalBudget('erp-sync', 30, 3_600_000),
    async handler({ deps, actor }) {
      return synchronizeErp(deps, actor);
    },
  }),
];
