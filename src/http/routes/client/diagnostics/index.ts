import { BugReport } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { IsoDateTime } from '../../../schemas';
import { clearDiagnostics, storeWebrtcLogs, submitBugReport } from '#services/diagnostics';

/** Limits of what a device may send: a report with its log excerpt, a batch of call log lines. */
export const BUG_REPORT_LOGS_MAX_CHARS = 256 * 1024;
export const WEBRTC_BATCH_MAX_ENTRIES = 500;
export const WEBRTC_MESSAGE_MAX_CHARS = 4000;
export const WEBRTC_STATS_MAX_CHARS = 16 * 1024;

/** The web app's route is the web's: its `platform` may be left out (`web`); an app must say which it runs on. */
const bugReportBody = (kind: 'app' | 'web') => {
  const platform = z.string().trim().min(1).max(100);
  return z
    .object({
      description: z.string().trim().min(1).max(10_000),
      appVersion: z.string().trim().min(1).max(64),
      device: z.string().trim().min(1).max(200),
      platform: kind === 'web' ? platform.default('web') : platform,
      logs: z.string().max(BUG_REPORT_LOGS_MAX_CHARS).optional(),
      attachmentFileIds: z.array(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)).max(20).optional(),
    })
    .strict();
};

const bugReportRoute = (path: string, operationId: string, kind: 'app' | 'web', what: string) =>
  defineRoute({
    method: 'post',
    path,
    operationId,
    response: BugReport,
    summary: `Submit a bug report from ${what}: {description, appVersion, device, platform${kind === 'web' ? '? (default web)' : ''}, logs? (≤ 256 KiB), attachmentFileIds? (≤ 20 numbers)}; stored for the caller's client, listed by system administrators at GET /api/admin/bug-reports`,
    auth: 'user',
    status: 201,
    rateLimit: principalBudget(`bug-report-${kind}`, 20, 3_600_000),
    body: bugReportBody(kind),
    async handler({ deps, actor, body }) {
      return submitBugReport(deps, actor, kind, body);
    },
  });

const StatsObject = z
  .record(z.string().max(200), z.unknown())
  .refine((stats) => JSON.stringify(stats).length <= WEBRTC_STATS_MAX_CHARS, `at most ${WEBRTC_STATS_MAX_CHARS} characters as JSON`);

export const clientDiagnosticsRoutes: RouteSpec[] = [
  bugReportRoute('/api/client/add-bug-report', 'addBugReport', 'app', 'the mobile or desktop app'),
  bugReportRoute('/api/client/bug-report-web', 'addWebBugReport', 'web', 'the web app'),
  defineRoute({
    method: 'post',
    path: '/api/client/clear-diagnostics',
    operationId: 'clearDiagnostics',
    response: z.object({ bugReportLogsCleared: z.number().int(), webRtcEntriesDeleted: z.number().int() }),
    summary: "Delete the caller's own stored diagnostics: the logs of their bug reports (the reports stay) and their WebRTC logs",
    auth: 'user',
    async handler({ deps, actor }) {
      return clearDiagnostics(deps, actor);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/web-rtc-logs',
    operationId: 'addWebRtcLogs',
    response: z.object({ callId: z.string(), stored: z.number().int() }),
    summary: `Store a batch of WebRTC stats/log lines of a remote-assist call: {callId, entries: [{at, level: debug|info|warn|error, message, stats?}]} (≤ ${WEBRTC_BATCH_MAX_ENTRIES} entries); kept as long as the logs (logRetention)`,
    auth: 'user',
    feature: 'collaboration',
    status: 201,
    rateLimit: principalBudget('web-rtc-logs', 600, 60_000),
    body: z
      .object({
        callId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'letters, digits, _ . : - (at most 128)'),
        entries: z
          .array(
            z
              .object({
                at: IsoDateTime,
                level: z.enum(['debug', 'info', 'warn', 'error']),
                message: z.string().max(WEBRTC_MESSAGE_MAX_CHARS),
                stats: StatsObject.optional(),
              })
              .strict(),
          )
          .min(1)
          .max(WEBRTC_BATCH_MAX_ENTRIES),
      })
      .strict(),
    async handler({ deps, actor, body }) {
      return { callId: body.callId, stored: await storeWebrtcLogs(deps, actor, body.callId, body.entries) };
    },
  }),
];
