import { defineRoute, IdParams, type RouteSpec } from '../../../route';
import { mapPage } from '../../../../db/pagination';
import { deleteLog, listLogs } from '../../../../services/logs';
import { presentLog } from '../../../../presenters';
import { ListLogsQuery } from './schema';

export const adminLogsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/logs',
    summary: 'List application and security events, newest first; filter by level, client, user, event and time range',
    auth: 'admin',
    query: ListLogsQuery,
    async handler({ deps, query }) {
      const { limit, cursor, ...filter } = query;
      return mapPage(await listLogs(deps, filter, { limit, cursor }), presentLog);
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/logs/:id',
    summary: 'Delete one log entry (the deletion itself is logged)',
    auth: 'admin',
    params: IdParams,
    async handler({ deps, params, actor, meta }) {
      await deleteLog(deps, params.id, { adminId: actor.adminId, meta });
      return { id: params.id, deleted: true };
    },
  }),
];
