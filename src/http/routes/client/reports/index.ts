import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { sendCsv, wantsCsv } from '../../../csv';
import { csvDocument } from '#lib/csv';
import { gone } from '#errors';
import type { Period } from '#db/time-buckets';
import { LICENSE_TYPES } from '#policies/roles';
import { meterReport, meterReportFilters, type MeterRow } from '#services/reports';
import { MeterReportQuery } from './schema';

const Int = z.number().int();
const MeterCounts = {
  activeUsers: z.object({ total: Int, byLicenseType: z.record(z.string(), Int) }),
  jobsStarted: Int,
  jobsCompleted: Int,
  stepsRecorded: Int,
  storageBytes: Int,
};
/** The meter report as JSON (services/reports MeterReport). */
const MeterReport = z
  .object({
    period: z.string(),
    from: z.string(),
    to: z.string(),
    filters: z.object({
      userId: Int.nullable(),
      licenseType: z.string().nullable(),
      templateId: Int.nullable(),
      organizationId: Int.nullable(),
    }),
    buckets: z.array(z.object({ bucket: z.string(), start: z.string(), end: z.string(), ...MeterCounts })),
    totals: z.object(MeterCounts),
  })
  .meta({ id: 'MeterReport' });

const METER_CSV = [
  { header: 'bucket', value: (r: MeterRow) => r.bucket },
  { header: 'start', value: (r: MeterRow) => r.start },
  { header: 'end', value: (r: MeterRow) => r.end },
  { header: 'activeUsers', value: (r: MeterRow) => r.activeUsers.total },
  ...LICENSE_TYPES.map((type) => ({ header: `activeUsers.${type}`, value: (r: MeterRow) => r.activeUsers.byLicenseType[type] ?? 0 })),
  { header: 'jobsStarted', value: (r: MeterRow) => r.jobsStarted },
  { header: 'jobsCompleted', value: (r: MeterRow) => r.jobsCompleted },
  { header: 'stepsRecorded', value: (r: MeterRow) => r.stepsRecorded },
  { header: 'storageBytes', value: (r: MeterRow) => r.storageBytes },
];

/** docs/api/contract.md 4.3: the removed report routes and what replaced them. */
const REPORTS_REPLACEMENTS = [
  'GET /api/client/meter-report',
  'GET /api/client/meter-report-filters',
  'GET /api/client/get-as-pdf/getTemplateAsPdf/:id',
  'GET /api/client/get-as-pdf/getJobHistoryAsPdf/:id',
];

const removed = (method: 'get' | 'post') =>
  defineRoute({
    method,
    path: '/api/client/reports',
    operationId: method === 'get' ? 'getReports' : 'postReports',
    errors: ['GONE'],
    summary: 'Removed (SPEC.md 4.3): always 410 GONE, to anyone, with the replacement routes in error.details.replacements',
    // public: the resource is gone for every caller, so there is nothing to authorize
    auth: 'public',
    async handler() {
      throw gone('This route was removed; use the meter report or the PDF exports', { replacements: REPORTS_REPLACEMENTS });
    },
  });

// Usage reports of the caller's client: billing-grade data (seats in use), for its Security Administrators, like the license routes.
export const clientReportRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/meter-report',
    operationId: 'getMeterReport',
    produces: { type: ['application/json', 'text/csv'] },
    response: MeterReport,
    summary:
      "Usage metering of the caller's client per day|week|month (UTC) over [from, to] (dates, default the last 30 days): active users per license type, jobs started and completed, steps recorded, storageBytes (distinct bytes stored at the end of each bucket, what the storage quota counts; client-wide whatever the filters); filters userId, licenseType, templateId, organizationId; JSON, or CSV with ?format=csv or Accept: text/csv",
    auth: 'user',
    feature: 'reports',
    permission: 'administerSecurity',
    query: MeterReportQuery,
    rateLimit: { max: 60, windowMs: 60_000 },
    async handler({ deps, actor, query, ctx }) {
      const report = await meterReport(deps, actor.scope, { ...query, period: query.period as Period });
      if (!wantsCsv(ctx, query.format)) return report;
      sendCsv(ctx, `meter-report-${report.period}-${report.from}-${report.to}.csv`, csvDocument(METER_CSV, report.buckets));
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/meter-report-filters',
    operationId: 'getMeterReportFilters',
    response: z.object({
      periods: z.array(z.string()).readonly(),
      licenseTypes: z.array(z.string()).readonly(),
      organizations: z.array(z.object({ id: z.number().int(), name: z.string() })),
      templates: z.array(z.object({ id: z.number().int(), title: z.string() })),
      users: z.array(
        z.object({ id: z.number().int(), email: z.string(), firstName: z.string(), lastName: z.string(), licenseType: z.string() }),
      ),
      truncated: z.object({ organizations: z.boolean(), templates: z.boolean(), users: z.boolean() }),
    }),
    summary:
      "The values the meter report can be filtered by: periods, license types, and the client's organizations, templates and users (each list at most 1000, with truncated flags)",
    auth: 'user',
    feature: 'reports',
    permission: 'administerSecurity',
    async handler({ deps, actor }) {
      return meterReportFilters(deps, actor.scope);
    },
  }),
  removed('get'),
  removed('post'),
];
