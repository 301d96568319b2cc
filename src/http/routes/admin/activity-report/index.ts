import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { PositiveId } from '../../../schemas';
import { sendCsv, wantsCsv } from '../../../csv';
import { csvDocument } from '#lib/csv';
import { activityReport, type ClientActivity } from '#services/reports';
import { DateRangeQuery } from '../../client/reports/schema';

const ActivityReportQuery = DateRangeQuery.extend({ clientId: PositiveId.optional() });

const COUNTS = [
  'signIns',
  'activeUsers',
  'jobsStarted',
  'jobsCompleted',
  'stepsRecorded',
  'templatesCreated',
  'versionsPublished',
] as const;
const ACTIVITY_CSV = [
  { header: 'clientId', value: (r: ClientActivity) => r.clientId },
  { header: 'clientName', value: (r: ClientActivity) => r.clientName },
  ...COUNTS.map((key) => ({ header: key, value: (r: ClientActivity) => r[key] })),
];

const ActivityCounts = Object.fromEntries(COUNTS.map((key) => [key, z.number().int()])) as Record<(typeof COUNTS)[number], z.ZodNumber>;
/** The activity report as JSON (services/reports ActivityReport). */
const ActivityReport = z
  .object({
    from: z.string(),
    to: z.string(),
    clients: z.array(z.object({ clientId: z.number().int(), clientName: z.string(), ...ActivityCounts })),
    totals: z.object(ActivityCounts),
  })
  .meta({ id: 'ActivityReport' });

export const adminActivityReportRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/activity-report',
    operationId: 'getActivityReport',
    produces: { type: ['application/json', 'text/csv'] },
    response: ActivityReport,
    summary:
      'Activity per client over [from, to] (dates, UTC, default the last 30 days): sign-ins, active users, jobs started and completed, steps recorded, templates created, versions published; one client with clientId; JSON, or CSV with ?format=csv or Accept: text/csv',
    auth: 'admin',
    feature: 'reports',
    query: ActivityReportQuery,
    rateLimit: { max: 60, windowMs: 60_000 },
    async handler({ deps, query, ctx }) {
      const report = await activityReport(deps, query);
      if (!wantsCsv(ctx, query.format)) return report;
      sendCsv(ctx, `activity-report-${report.from}-${report.to}.csv`, csvDocument(ACTIVITY_CSV, report.clients));
      return undefined;
    },
  }),
];
