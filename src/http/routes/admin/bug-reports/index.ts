import { BugReport, Page } from '#presenters/schemas';
import { defineRoute, type RouteSpec } from '../../../route';
import { PageQuery } from '#db/pagination';
import { PositiveId } from '../../../schemas';
import { listBugReportsAcrossClients } from '#services/diagnostics';

export const adminBugReportRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/bug-reports',
    operationId: 'listBugReports',
    response: Page(BugReport),
    summary:
      "Bug reports of every client (add-bug-report, bug-report-web), oldest first in the one pagination shape; `?clientId=` for one client's",
    auth: 'admin',
    query: PageQuery.extend({ clientId: PositiveId.optional() }),
    async handler({ deps, query }) {
      const { limit, cursor, ...filter } = query;
      return listBugReportsAcrossClients(deps, filter, { limit, cursor });
    },
  }),
];
