import type { Insertable, Kysely, SelectQueryBuilder } from 'kysely';
import type { DB, LogLevel, LogRow, LogsTable } from '#db/schema';
import { decodeCursor, encodeCursor, type Page, type PageInput } from '#db/pagination';

// The event log is not a tenant table (system events have no client): only
// system-admin services and the CLI reach these functions.

export async function insertLog(db: Kysely<DB>, row: Insertable<LogsTable>): Promise<void> {
  await db.insertInto('logs').values(row).execute();
}

export interface LogFilter {
  level?: LogLevel[];
  clientId?: number;
  userId?: number;
  event?: string;
  /** inclusive lower bound, ISO-8601 */
  since?: string;
  /** exclusive upper bound, ISO-8601 */
  until?: string;
  /** `security`: only the security events (SECURITY_ENTRY_NAMES) */
  category?: 'security';
}

/**
 * The security events: sign-ins and their failures, lockouts, token reuse,
 * password and 2FA changes, invitations (`auth.*`), security settings, SSO
 * (`security.*`), license keys and seat allocations (`license.*`), backups
 * (`backup.*`: an archive holds the secrets), deleted log entries, and every
 * administrative change: administrators (`admin.*`), clients (`client.*`),
 * agreements (`agreement.*`), translations (`i18n.*`), webhook endpoints
 * (`webhook.*`) and users (`user.*`). A pattern ending in `.` is a prefix.
 */
export const SECURITY_ENTRY_NAMES = [
  'auth.',
  'security.',
  'license.',
  'backup.',
  'admin.',
  'client.',
  'agreement.',
  'i18n.',
  'webhook.',
  'user.',
  'log.deleted',
] as const;

function filtered<O>(query: SelectQueryBuilder<DB, 'logs', O>, filter: LogFilter): SelectQueryBuilder<DB, 'logs', O> {
  let q = query;
  if (filter.level && filter.level.length > 0) q = q.where('level', 'in', filter.level);
  if (filter.clientId !== undefined) q = q.where('client_id', '=', filter.clientId);
  if (filter.userId !== undefined) q = q.where('user_id', '=', filter.userId);
  if (filter.event !== undefined) q = q.where('event', '=', filter.event);
  if (filter.since !== undefined) q = q.where('created_at', '>=', filter.since);
  if (filter.until !== undefined) q = q.where('created_at', '<', filter.until);
  if (filter.category === 'security') {
    // LIKE with an escape-free prefix: event names are [a-z_.] and `_` matching any one character
    // cannot widen a prefix that ends in a dot
    q = q.where((eb) => eb.or(SECURITY_ENTRY_NAMES.map((e) => (e.endsWith('.') ? eb('event', 'like', `${e}%`) : eb('event', '=', e)))));
  }
  return q;
}

/** Newest first: the cursor is the last (smallest) id of the previous page. */
export async function listLogsAcrossClients(db: Kysely<DB>, filter: LogFilter, page: PageInput): Promise<Page<LogRow>> {
  const before = decodeCursor(page.cursor);
  let query = filtered(db.selectFrom('logs').selectAll(), filter);
  if (before > 0) query = query.where('id', '<', before);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const hasMore = rows.length > page.limit;
  const items = hasMore ? rows.slice(0, page.limit) : rows;
  return { items, nextCursor: hasMore ? encodeCursor(items[items.length - 1].id) : null };
}

/**
 * One keyset batch in id order (oldest first) after `afterId`: exports walk the
 * table batch by batch, so memory stays constant and no read snapshot is held
 * open between batches.
 */
export async function listLogBatchAcrossClients(db: Kysely<DB>, filter: LogFilter, afterId: number, limit: number): Promise<LogRow[]> {
  return filtered(db.selectFrom('logs').selectAll(), filter).where('id', '>', afterId).orderBy('id').limit(limit).execute();
}

export async function countLogsAcrossClients(db: Kysely<DB>, filter: LogFilter): Promise<number> {
  const row = await filtered(
    db.selectFrom('logs').select((eb) => eb.fn.countAll<number>().as('n')),
    filter,
  ).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest `limit` rows, newest first. */
export async function listNewestLogsAcrossClients(db: Kysely<DB>, limit: number): Promise<LogRow[]> {
  return db.selectFrom('logs').selectAll().orderBy('id', 'desc').limit(limit).execute();
}

export async function deleteLogById(db: Kysely<DB>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('logs').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * Deletes up to `limit` rows older than `cutoff` (ISO-8601); returns how many.
 * Callers loop: small batches keep each write transaction short.
 */
export async function deleteLogsBefore(db: Kysely<DB>, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('logs')
    .where('id', 'in', (eb) => eb.selectFrom('logs').select('id').where('created_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The newest row's id (0 when the log is empty): a live tail starts after it. */
export async function lastLogId(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('logs')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}
