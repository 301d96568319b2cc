import { OutboxMessage, Page } from '#presenters/schemas';
import { z } from 'zod';
import { mapPage, PageQuery } from '#db/pagination';
import { presentOutboxMessage } from '#presenters';
import { listOutboxMessages, retryFailedMail, retryOneFailedMail } from '#services/mail';
import { defineRoute, IdParams, principalBudget, type RouteSpec } from '../../../route';

const OutboxQuery = PageQuery.extend({ status: z.enum(['pending', 'sent', 'stored', 'failed']).optional() });
const retryBudget = principalBudget('mail-retry', 60, 15 * 60_000);

export const adminMailRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/mail/outbox',
    operationId: 'listOutbox',
    response: Page(OutboxMessage),
    summary:
      'The mail outbox, newest first (as `wip mail outbox`): {id, kind, to, subject, status (pending, sent, stored, failed), attempts, nextAttemptAt, lastError, sentAt, createdAt, clientId, userId}, never the body; filter by `status`',
    auth: 'admin',
    query: OutboxQuery,
    async handler({ deps, query }) {
      const { status, ...page } = query;
      return mapPage(await listOutboxMessages(deps, page, status), presentOutboxMessage);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/mail/outbox/retry',
    operationId: 'retryOutbox',
    response: z.object({ requeued: z.number().int() }),
    summary: 'Put every failed message back in the queue (attempts reset) and deliver them now (as `wip mail retry`): {requeued}',
    auth: 'admin',
    rateLimit: retryBudget,
    async handler({ deps }) {
      return { requeued: await retryFailedMail(deps, undefined, { wait: false }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/mail/outbox/:id/retry',
    operationId: 'retryOutboxMessage',
    response: OutboxMessage,
    errors: ['CONFLICT'],
    summary: 'Put one failed message back in the queue and deliver it now; 409 CONFLICT when it has not failed',
    auth: 'admin',
    params: IdParams,
    rateLimit: retryBudget,
    async handler({ deps, params }) {
      return presentOutboxMessage(await retryOneFailedMail(deps, params.id));
    },
  }),
];
