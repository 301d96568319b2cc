import { z } from 'zod';
import { PageQuery } from '#db/pagination';
import { IsoDateTime, PositiveId } from '../../../schemas';

export const LOG_LEVELS = ['info', 'warn', 'error'] as const;

/** `level` takes one level or a comma-separated list (`warn,error`). */
export const LogLevels = z
  .string()
  .max(64)
  .transform((v) =>
    v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.enum(LOG_LEVELS)).min(1));

/** The filters shared by the list, the export and the live tail. */
export const LogFilterQuery = z.object({
  level: LogLevels.optional(),
  clientId: PositiveId.optional(),
  userId: PositiveId.optional(),
  event: z.string().trim().min(1).max(100).optional(),
  /** `security`: only security events (SECURITY_ENTRY_NAMES in src/repos/logs.ts) */
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

/** Who did it, as recorded with the event; null when nobody is known (a failed sign-in) and on rows older than actors. */
export const LogActor = z
  .object({
    kind: z
      .enum(['admin', 'user', 'cli', 'system'])
      .describe('a system administrator, a client user, the CLI (named by the OS user) or the system'),
    id: z.number().int().nullable().describe("the admin's or user's id; null for the CLI and the system"),
    name: z.string().nullable().describe("an admin's username, a user's name and email, the OS user of the CLI (as it was then)"),
  })
  .nullable();

/** One log row as the list, export and live tail answer it (secrets redacted). */
export const LogItem = z.object({
  id: z.number().int(),
  createdAt: z.string(),
  level: z.enum(LOG_LEVELS),
  event: z.string().describe('dotted name; the security events are listed in README'),
  message: z.string(),
  clientId: z.number().int().nullable(),
  userId: z.number().int().nullable(),
  adminId: z.number().int().nullable(),
  ip: z.string().nullable(),
  userAgent: z.string().nullable(),
  requestId: z.string().nullable(),
  actor: LogActor,
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'event detail; an administrative change has target {type, id} and changes {field: {before, after}} (credentials only as [redacted])',
    ),
});

export const LogPage = z.object({ items: z.array(LogItem), nextCursor: z.string().nullable() });
