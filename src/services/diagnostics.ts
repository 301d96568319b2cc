import type { Deps } from '#deps';
import { mapPage, type Page, type PageInput } from '#db/pagination';
import { withTransaction } from '#db/transaction';
import {
  clearBugReportLogs,
  deleteUserWebrtcLogs,
  deleteWebrtcLogsBefore,
  insertBugReport,
  insertWebrtcLogs,
  listBugReports,
  type BugReportRow,
} from '#repos/diagnostics';
import type { UserActor } from './actor';
import { pruneOlderThanRetention } from './logs';

export interface NewBugReport {
  description: string;
  appVersion: string;
  device: string;
  platform: string;
  logs?: string;
  attachmentFileIds?: number[];
}

export interface BugReport {
  id: number;
  clientId: number;
  userId: number;
  /** `app` (add-bug-report) or `web` (bug-report-web) */
  kind: 'app' | 'web';
  description: string;
  appVersion: string;
  device: string;
  platform: string;
  logs: string | null;
  attachmentFileIds: number[];
  createdAt: string;
}

function present(row: BugReportRow): BugReport {
  return {
    id: row.id,
    clientId: row.client_id,
    userId: row.user_id,
    kind: row.kind,
    description: row.description,
    appVersion: row.app_version,
    device: row.device,
    platform: row.platform,
    logs: row.logs,
    attachmentFileIds: JSON.parse(row.attachment_file_ids) as number[],
    createdAt: row.created_at,
  };
}

/** Stores a bug report of the caller, in the caller's client. */
export async function submitBugReport(deps: Deps, actor: UserActor, kind: 'app' | 'web', input: NewBugReport): Promise<BugReport> {
  const row = await insertBugReport(deps.db.kysely, {
    client_id: actor.clientId,
    user_id: actor.userId,
    kind,
    description: input.description,
    app_version: input.appVersion,
    device: input.device,
    platform: input.platform,
    logs: input.logs ?? null,
    attachment_file_ids: JSON.stringify(input.attachmentFileIds ?? []),
    created_at: deps.clock.now().toISOString(),
  });
  return present(row);
}

/** For system administrators: every client's reports, or one client's. */
export async function listBugReportsAcrossClients(deps: Deps, filter: { clientId?: number }, page: PageInput): Promise<Page<BugReport>> {
  return mapPage(await listBugReports(deps.db.kysely, filter, page), present);
}

export interface WebrtcLogEntry {
  at: string;
  level: string;
  message: string;
  stats?: Record<string, unknown>;
}

/** Stores one batch of a remote-assist call's WebRTC log lines, all or nothing. */
export async function storeWebrtcLogs(deps: Deps, actor: UserActor, callId: string, entries: WebrtcLogEntry[]): Promise<number> {
  const now = deps.clock.now().toISOString();
  await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => {
    await insertWebrtcLogs(
      trx,
      entries.map((e) => ({
        client_id: actor.clientId,
        user_id: actor.userId,
        call_id: callId,
        at: e.at,
        level: e.level,
        message: e.message,
        stats: e.stats === undefined ? null : JSON.stringify(e.stats),
        created_at: now,
      })),
    );
  });
  return entries.length;
}

/** The caller's own diagnostics: logs of their bug reports (the reports stay) and their WebRTC logs. */
export async function clearDiagnostics(
  deps: Deps,
  actor: UserActor,
): Promise<{ bugReportLogsCleared: number; webRtcEntriesDeleted: number }> {
  return withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx) => ({
    bugReportLogsCleared: await clearBugReportLogs(trx, actor.scope, actor.userId),
    webRtcEntriesDeleted: await deleteUserWebrtcLogs(trx, actor.scope, actor.userId),
  }));
}

/** WebRTC logs follow the logs table's retention (logRetention); run by the maintenance job. */
export async function pruneWebrtcLogs(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<number> {
  return pruneOlderThanRetention(deps, deleteWebrtcLogsBefore);
}
