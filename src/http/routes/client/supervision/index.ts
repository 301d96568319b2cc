import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { assignableUsers, deviations, jobBoard } from '#services/supervision';
import { AssignableUsers, Deviations, DeviationsQuery, JobBoard } from './schema';

/**
 * The supervisor's screens of the floor app — the board of open
 * jobs, a new job's assignees, the deviations of the last days — read here;
 * creating and assigning a job is GraphQL's createJob. For whoever may create
 * jobs (PERMISSIONS.createJob); the service checks it again.
 */
const readBudget = (name: string) => principalBudget(name, 600, 60_000);

export const clientSupervisionRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/supervision/board',
    operationId: 'getJobBoard',
    summary:
      "The board of the client's open jobs (OPEN, IN_PROGRESS, PAUSED): the earliest due first (no due date last), then by priority; each with its asset and assignees; at most 500 (truncated: true when there are more)",
    auth: 'user',
    permission: 'createJob',
    rateLimit: readBudget('supervision-board'),
    response: JobBoard,
    async handler({ deps, actor }) {
      return jobBoard(deps, actor);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/supervision/assignees',
    operationId: 'listAssignableUsers',
    summary: "The client's active users who may run jobs (the assignees a new job can have), by name; at most 1000",
    auth: 'user',
    permission: 'createJob',
    rateLimit: readBudget('supervision-assignees'),
    response: AssignableUsers,
    async handler({ deps, actor }) {
      return assignableUsers(deps, actor);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/supervision/deviations',
    operationId: 'getDeviations',
    summary:
      'Deviations of the last ?days= (1–90, default 7): values recorded out of their limits, FAILED and SKIPPED steps (the newest first, at most 200 records), changes lost with a server restore (UNAPPLIED_CHANGE, at most 200), every open fault (the most severe first) and every overdue open job (at most 200 each; *Truncated flags)',
    auth: 'user',
    permission: 'createJob',
    query: DeviationsQuery,
    rateLimit: readBudget('supervision-deviations'),
    response: Deviations,
    async handler({ deps, actor, query }) {
      return deviations(deps, actor, query.days);
    },
  }),
];
