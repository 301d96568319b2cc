import { z } from 'zod';
import { PageQuery } from '#db/pagination';
import { PositiveId } from '../../../schemas';

const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const Base = { jobId: Id, expectedRevision: z.number().int().min(0).optional() };

/** `{action, jobId, ...}`: the fields each action needs. */
export const WorkingTogether = z.discriminatedUnion('action', [
  z.object({ action: z.literal('HAND_OFF'), ...Base, toUserId: Id, note: z.string().trim().max(2000).optional() }),
  z.object({ action: z.enum(['ACCEPT', 'DECLINE', 'CANCEL']), ...Base, handOffId: Id }),
  z.object({ action: z.enum(['JOIN', 'LEAVE']), ...Base }),
]);

export const HandOffStatusesQuery = PageQuery;

/** Exactly one of jobId and templateId. */
export const JobHistoryUsersQuery = z
  .object({ jobId: PositiveId.optional(), templateId: PositiveId.optional() })
  .refine((q) => (q.jobId === undefined) !== (q.templateId === undefined), {
    message: 'give jobId or templateId (one of them)',
    path: ['jobId'],
  });
