import { Deleted } from '#presenters/schemas';
import { Readable } from 'node:stream';
import { defineRoute, IdParams, principalBudget, type RouteSpec } from '../../../route';
import { mapPage } from '#db/pagination';
import { countLogs, deleteLog, listLogs } from '#services/logs';
import { exportLogs, logRedactor } from '#services/log-export';
import { fileStamp } from '#lib/paths';
import { lastEventIdHeader, sendEventStream } from '../../../event-stream';
import { ExportLogsQuery, ListLogsQuery, LogPage, TailLogsQuery } from './schema';

const FILTERS =
  'filter by `level` (one or a comma list), `clientId`, `userId`, `event`, `category=security`, `since` (inclusive) and `until` (exclusive)';

export const adminLogsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/logs',
    operationId: 'listLogs',
    summary: `List application and security events, newest first (secrets redacted), each with its actor (who: kind, id, name); ${FILTERS}`,
    auth: 'admin',
    query: ListLogsQuery,
    response: LogPage,
    async handler({ deps, query }) {
      const { limit, cursor, ...filter } = query;
      return mapPage(await listLogs(deps, filter, { limit, cursor }), logRedactor(deps));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/logs/export',
    operationId: 'exportLogs',
    produces: { type: ['application/x-ndjson', 'text/csv'], attachment: true },
    sends: ['X-Total-Count'],
    summary: `Download the matching log rows oldest first as NDJSON (default) or CSV (\`format\`), streamed, secrets redacted as in \`wip logs export\`; ${FILTERS}. X-Total-Count announces the number of rows (for a progress bar)`,
    auth: 'admin',
    query: ExportLogsQuery,
    envelope: false,
    rateLimit: principalBudget('logs-export', 20, 15 * 60_000),
    async handler({ deps, query, ctx }) {
      const { format, ...filter } = query;
      ctx.set('X-Total-Count', String(await countLogs(deps, filter)));
      ctx.attachment(`wip-logs-${fileStamp(deps.clock.now())}.${format === 'csv' ? 'csv' : 'ndjson'}`);
      ctx.type = format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8';
      // pulled batch by batch as the socket drains: constant memory for any number of rows
      ctx.body = Readable.from(
        (async function* () {
          for await (const chunk of exportLogs(deps, filter, format)) yield chunk.text;
        })(),
      );
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/logs/stream',
    operationId: 'streamLogs',
    produces: { type: 'text/event-stream' },
    honours: ['Last-Event-ID'],
    summary:
      'Live tail of the event log (Server-Sent Events, `event: log`, `id` = the row id; secrets redacted): rows recorded from now on, or after Last-Event-ID / `lastEventId`; filters `level`, `clientId`, `userId`, `event`, `category=security`. Heartbeat every eventStreamHeartbeat; closed when the admin session ends',
    auth: 'admin',
    query: TailLogsQuery,
    rateLimit: principalBudget('logs-stream', 30, 60_000),
    async handler({ deps, actor, query, ctx }) {
      const { lastEventId, ...filter } = query;
      return sendEventStream(ctx, await deps.logTail.open(actor, filter, lastEventIdHeader(ctx) ?? lastEventId));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/logs/:id',
    operationId: 'deleteLog',
    response: Deleted,
    summary: 'Delete one log entry (the deletion itself is logged)',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params, actor, meta }) {
      await deleteLog(deps, params.id, { adminId: actor.adminId, meta });
      return { id: params.id, deleted: true };
    },
  }),
];
