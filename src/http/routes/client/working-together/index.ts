import { HandOff, JobWithMembers, Page } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { presentHandOff } from '#presenters/jobs';
import { jobWithMembers } from '#services/jobs';
import { handOffColleagues, jobHistoryUsers, listHandOffStatuses, workTogether } from '#services/working-together';
import { HandOffStatusesQuery, JobHistoryUsersQuery, WorkingTogether } from './schema';

/** A user as the working-together routes name them. */
const Colleague = z.object({ id: z.number().int(), firstName: z.string(), lastName: z.string(), email: z.string() });

/** Hand-off and co-working on jobs, and who took part in a job's history (docs/api/contract.md 4.6). */
export const clientWorkingTogetherRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/workingTogether',
    operationId: 'workTogether',
    response: z.object({
      action: z.enum(['HAND_OFF', 'ACCEPT', 'DECLINE', 'CANCEL', 'JOIN', 'LEAVE']),
      job: JobWithMembers,
      handOff: HandOff.nullable(),
    }),
    errors: ['CONFLICT', 'INVALID_TRANSITION', 'JOB_CLOSED'],
    summary: 'Hand a job off (HAND_OFF), decide a hand-off (ACCEPT, DECLINE; CANCEL by the sender), co-work on a job (JOIN, LEAVE)',
    auth: 'user',
    feature: 'collaboration',
    permission: 'runJob',
    body: WorkingTogether,
    async handler({ deps, actor, body }) {
      const result = await workTogether(deps, actor, body);
      return {
        action: body.action,
        job: await jobWithMembers(deps, actor, result.job),
        handOff: result.handOff && presentHandOff(result.handOff),
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/workingTogether/handOffStatuses',
    operationId: 'listHandOffStatuses',
    response: Page(HandOff),
    summary: "The caller's hand-offs, sent and received, with their status",
    auth: 'user',
    feature: 'collaboration',
    query: HandOffStatusesQuery,
    async handler({ deps, actor, query }) {
      return listHandOffStatuses(deps, actor, query);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/workingTogether/colleagues',
    operationId: 'listHandOffColleagues',
    response: z.object({ items: z.array(Colleague), nextCursor: z.null() }),
    summary: "Whom the caller may hand a job off to: the client's active users who may accept a hand-off, the caller excepted, by name",
    auth: 'user',
    feature: 'collaboration',
    permission: 'runJob',
    async handler({ deps, actor }) {
      const users = await handOffColleagues(deps, actor);
      return { items: users.map((u) => ({ id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email })), nextCursor: null };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/job-history-users',
    operationId: 'listJobHistoryUsers',
    response: z.object({ items: z.array(Colleague), nextCursor: z.null() }),
    summary: 'The distinct users in the history of a job (?jobId=) or of the jobs of a template (?templateId=)',
    auth: 'user',
    query: JobHistoryUsersQuery,
    async handler({ deps, actor, query }) {
      const users = await jobHistoryUsers(deps, actor, query);
      return { items: users.map((u) => ({ id: u.id, firstName: u.first_name, lastName: u.last_name, email: u.email })), nextCursor: null };
    },
  }),
];
