import { z } from 'zod';
import { IsoDateTime, PositiveId } from '../../../schemas';
import { MAX_EDITORIAL_EVENTS } from '#services/editorial';

const Event = z
  .object({
    type: z.enum(['VIEWED', 'EDITED', 'STEP_DWELL']),
    templateId: PositiveId,
    versionId: PositiveId.nullish(),
    stepId: z.string().trim().min(1).max(64).nullish(),
    // a day at most: longer is a tab left open, not reading
    durationMs: z.number().int().min(0).max(86_400_000).nullish(),
    at: IsoDateTime.nullish(),
  })
  .strict()
  .superRefine((event, ctx) => {
    if (event.type === 'STEP_DWELL') {
      if (!event.stepId) ctx.addIssue({ code: 'custom', path: ['stepId'], message: 'a STEP_DWELL event needs a stepId' });
      if (event.durationMs == null)
        ctx.addIssue({ code: 'custom', path: ['durationMs'], message: 'a STEP_DWELL event needs a durationMs' });
    }
  });

export const RecordEditorialEvents = z.object({ events: z.array(Event).min(1).max(MAX_EDITORIAL_EVENTS) }).strict();

export const EditorialQuery = z
  .object({ templateId: PositiveId, from: IsoDateTime.optional(), to: IsoDateTime.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { path: ['to'], message: 'must not be before from' });
