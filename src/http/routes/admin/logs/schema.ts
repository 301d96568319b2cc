import { z } from 'zod';
import { PageQuery } from '../../../../db/pagination';
import { IsoDateTime, PositiveId } from '../../../schemas';

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;

/** `level` takes one level or a comma-separated list (`warn,error`). */
export const LogLevels = z
  .string()
  .max(64)
  .transform((v) => v.split(',').map((x) => x.trim()).filter(Boolean))
  .pipe(z.array(z.enum(LOG_LEVELS)).min(1));

export const ListLogsQuery = PageQuery.extend({
  level: LogLevels.optional(),
  clientId: PositiveId.optional(),
  userId: PositiveId.optional(),
  event: z.string().trim().min(1).max(100).optional(),
  /** inclusive, ISO-8601 */
  since: IsoDateTime.optional(),
  /** exclusive, ISO-8601 */
  until: IsoDateTime.optional(),
});
