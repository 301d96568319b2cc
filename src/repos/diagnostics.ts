import type { Insertable, Kysely, Selectable } from 'kysely';
import type { BugReportsTable, DB, WebrtcLogsTable } from '#db/schema';
import { paginate, type Page, type PageInput } from '#db/pagination';
import { inTenant, type TenantScope } from '#db/tenant';

export type BugReportRow = Selectable<BugReportsTable>;

export async function insertBugReport(db: Kysely<DB>, row: Insertable<BugReportsTable>): Promise<BugReportRow> {
  return db.insertInto('bug_reports').values(row).returningAll().executeTakeFirstOrThrow();
}

/** System administration: reports across clients, or one client's. */
export async function listBugReports(db: Kysely<DB>, filter: { clientId?: number }, page: PageInput): Promise<Page<BugReportRow>> {
  let query = db.selectFrom('bug_reports').selectAll();
  if (filter.clientId !== undefined) query = query.where('client_id', '=', filter.clientId);
  return paginate(query, page);
}

/** Drops the logs of one user's bug reports (the reports stay); returns how many reports had logs. */
export async function clearBugReportLogs(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<number> {
  const result = await inTenant(db, scope)
    .updateTable('bug_reports')
    .set({ logs: null })
    .where('user_id', '=', userId)
    .where('logs', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertWebrtcLogs(db: Kysely<DB>, rows: Insertable<WebrtcLogsTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webrtc_logs').values(rows).execute();
}

export async function deleteUserWebrtcLogs(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<number> {
  const result = await inTenant(db, scope).deleteFrom('webrtc_logs').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listUserWebrtcLogs(db: Kysely<DB>, scope: TenantScope, userId: number): Promise<Selectable<WebrtcLogsTable>[]> {
  return inTenant(db, scope).selectFrom('webrtc_logs').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

/**
 * Deletes up to `limit` WebRTC log rows stored before `cutoff` (across
 * clients: retention is by age); returns how many. Callers loop in batches.
 */
export async function deleteWebrtcLogsBefore(db: Kysely<DB>, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('webrtc_logs')
    .where('id', 'in', (eb) => eb.selectFrom('webrtc_logs').select('id').where('created_at', '<', cutoff).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
