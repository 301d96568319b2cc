import { Deleted, Page, User, UserReportRow as UserReportRowData, UserWithInvitation, UserWithState } from '#presenters/schemas';
import { defineRoute, type RouteSpec } from '../../../route';
import { mapPage } from '#db/pagination';
import { tenantScope } from '#db/tenant';
import { fieldError } from '#errors';
import { getClient } from '#services/clients';
import { accountStates, createUser, deleteUser, getUser, getUserAcrossClients, listUsers, updateUser } from '#services/users';
import { presentUser } from '#presenters';
import { invitationNotice } from '#services/invitation-links';
import { changedBy } from '#services/security-log';
import { CreateUser, ListUsers, UpdateUser, UserIdParams, UserReportFilters, UserReportQuery } from './schema';
import { iterateUserReport, userReport } from '#services/reports';
import { presentUserReportRow } from '#presenters/reports';
import { XLSX_CONTENT_TYPE, xlsxStream, type XlsxColumn } from '#lib/xlsx';
import type { UserReportRow } from '#repos/user-report';

const at = (iso: string | null) => (iso ? new Date(iso) : null);
const USER_REPORT_COLUMNS: XlsxColumn<UserReportRow>[] = [
  { header: 'Client ID', width: 10, value: (u) => u.client_id },
  { header: 'Client', width: 28, value: (u) => u.client_name },
  { header: 'User ID', width: 10, value: (u) => u.id },
  { header: 'Email', width: 34, value: (u) => u.email },
  { header: 'First name', value: (u) => u.first_name },
  { header: 'Last name', value: (u) => u.last_name },
  { header: 'Title', value: (u) => u.title },
  { header: 'License type', width: 12, value: (u) => u.license_type },
  { header: 'Roles', width: 30, value: (u) => u.roles.join(', ') },
  { header: 'Status', width: 10, value: (u) => u.status },
  { header: 'Last sign-in (UTC)', width: 22, value: (u) => at(u.last_sign_in_at) },
  { header: 'Created (UTC)', width: 22, value: (u) => at(u.created_at) },
];

// User management (docs/api/contract.md 4.7, 4.8): a Security Administrator's client token
// acts in its own client; a system administrator's token may only read.

export const adminUserRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/user',
    operationId: 'listUsers',
    response: Page(UserWithState),
    errors: ['NOT_FOUND'],
    summary:
      "List users of the caller's client (system administrators: of ?clientId=), each with locked, twoFactorEnabled and lastSecurityAdministrator",
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    query: ListUsers,
    async handler({ deps, actor, query }) {
      let scope;
      if (actor.kind === 'user') scope = actor.scope;
      else {
        if (query.clientId === undefined) throw fieldError('query.clientId', 'required for system administrators');
        scope = tenantScope((await getClient(deps, query.clientId)).id);
      }
      const page = await listUsers(deps, scope, query);
      // the account state lets the console offer only the actions that apply (docs/operating/console.md: Users)
      const states = await accountStates(deps, scope, page.items);
      return mapPage(page, (user) => ({ ...presentUser(user), ...states.get(user.id)! }));
    },
  }),
  // The static report routes come before /api/admin/user/:userId, which would
  // otherwise match them first and answer 404 (routes match in declaration order).
  defineRoute({
    method: 'get',
    path: '/api/admin/user/vendor-users-report',
    operationId: 'getUserReport',
    response: Page(UserReportRowData),
    errors: ['NOT_FOUND'],
    summary:
      "Users with client, license type, roles, last sign-in and status: every client's for system administrators (or ?clientId=), the caller's client's for a Security Administrator; filters licenseType, status, role; paginated",
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    query: UserReportQuery,
    async handler({ deps, actor, query }) {
      return mapPage(await userReport(deps, actor, query), presentUserReportRow);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/user/vendor-users-report/xls-export',
    operationId: 'exportUserReportXlsx',
    errors: ['NOT_FOUND'],
    produces: { type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', attachment: true },
    summary: 'The vendor users report (same callers and filters, every row) as an .xlsx workbook, streamed',
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    query: UserReportFilters,
    rateLimit: { max: 10, windowMs: 60_000 },
    async handler({ deps, actor, query, ctx, meta }) {
      // a first page now: a filter naming another client is a 404 before any byte is sent
      await userReport(deps, actor, { ...query, limit: 1 });
      ctx.set('Content-Disposition', 'attachment; filename="vendor-users-report.xlsx"');
      ctx.type = XLSX_CONTENT_TYPE;
      ctx.body = xlsxStream('Users', USER_REPORT_COLUMNS, iterateUserReport(deps, actor, query), (error) =>
        deps.logger.error({ err: error, requestId: meta.requestId }, 'vendor users report export failed'),
      );
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/user/:userId',
    operationId: 'getUser',
    response: User,
    summary: 'Get a user by id',
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    params: UserIdParams,
    async handler({ deps, actor, params }) {
      const user =
        actor.kind === 'user' ? await getUser(deps, actor.scope, params.userId) : await getUserAcrossClients(deps, params.userId);
      return presentUser(user);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/user',
    operationId: 'createUser',
    response: UserWithInvitation,
    errors: ['CONFLICT', 'LICENSE_SEATS_EXHAUSTED'],
    summary:
      "Create a user in the caller's client; without a password the user is invited and the answer's invitation says {delivery: 'queued' (mail server) | 'outbox' (no mail server), linkRevealable}",
    auth: 'user',
    permission: 'administerSecurity',
    body: CreateUser,
    status: 201,
    async handler({ deps, actor, body, meta }) {
      const user = await createUser(deps, actor.scope, body, changedBy(actor, meta));
      // without a password the user is invited: say truthfully where the invitation went
      return user.status === 'invited' ? { ...presentUser(user), invitation: invitationNotice(deps) } : presentUser(user);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/user',
    operationId: 'updateUser',
    response: User,
    errors: ['CONFLICT', 'LICENSE_SEATS_EXHAUSTED', 'NOT_FOUND'],
    summary: 'Update a user (body includes id); omitted fields keep their values',
    auth: 'user',
    permission: 'administerSecurity',
    body: UpdateUser,
    async handler({ deps, actor, body, meta }) {
      return presentUser(await updateUser(deps, actor.scope, body, changedBy(actor, meta)));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/user/:userId',
    operationId: 'deleteUser',
    response: Deleted,
    errors: ['CONFLICT'],
    summary: 'Delete a user: frees the seat and ends the sessions',
    auth: 'user',
    permission: 'administerSecurity',
    params: UserIdParams,
    async handler({ deps, actor, params, meta }) {
      await deleteUser(deps, actor.scope, params.userId, changedBy(actor, meta));
      return { id: params.userId, deleted: true };
    },
  }),
];
