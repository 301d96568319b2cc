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

/** The filters shared by the list, the export and the live tail. */
export const LogFilterQuery = z.object({
  level: LogLevels.optional(),
  clientId: PositiveId.optional(),
  userId: PositiveId.optional(),
  event: z.string().trim().min(1).max(100).optional(),
  /** `security`: only security events (SECURITY_EVENTS in src/repos/logs.ts) */
  category: z.enum(['security']).optional(),
  /** inclusive, ISO-8601 */
  since: IsoDateTime.optional(),
  /** exclusive, ISO-8601 */
  until: IsoDateTime.optional(),
});

export const ListLogsQuery = PageQuery.extend(LogFilterQuery.shape);

export const ExportLogsQuery = LogFilterQuery.extend({
  format: z.enum(['ndjson', 'csv']).default('ndjson'),
});

export const TailLogsQuery = LogFilterQuery.omit({ since: true, until: true }).extend({
  /** for clients that cannot send the Last-Event-ID header on their first connection */
  lastEventId: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
