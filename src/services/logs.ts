import type { Deps } from '#deps';
import type { LogRow } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import { notFound } from '#errors';
import {
  countLogsAcrossClients,
  deleteLogById,
  deleteLogsBefore,
  listLogBatchAcrossClients,
  listLogsAcrossClients,
  listNewestLogsAcrossClients,
  type LogFilter,
} from '#repos/logs';
import type { RequestMeta } from './actor';
import { recordLogEntry } from './security-log';

export type { LogFilter };

/** The event log, newest first, filtered (system administrators only). */
export async function listLogs(deps: Pick<Deps, 'db'>, filter: LogFilter, page: PageInput): Promise<Page<LogRow>> {
  return listLogsAcrossClients(deps.db.kysely, filter, page);
}

export async function countLogs(deps: Pick<Deps, 'db'>, filter: LogFilter): Promise<number> {
  return countLogsAcrossClients(deps.db.kysely, filter);
}

export async function listNewestLogs(deps: { db: Pick<Deps['db'], 'kysely'> }, limit: number): Promise<LogRow[]> {
  return listNewestLogsAcrossClients(deps.db.kysely, limit);
}

/**
 * Deletes one log entry; the deletion itself is recorded (who, which entry).
 * @throws AppError NOT_FOUND
 */
export async function deleteLog(deps: Deps, id: number, by: { adminId: number; meta: RequestMeta }): Promise<void> {
  if (!(await deleteLogById(deps.db.kysely, id))) throw notFound('Log entry');
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'log.deleted',
    message: `Log entry ${id} deleted`,
    adminId: by.adminId,
    meta: by.meta,
    data: { logId: id },
  });
}

const PRUNE_BATCH = 5000;

/** Deletes log rows older than the configured retention (in short batches); returns how many. */
export async function pruneLogs(deps: Pick<Deps, 'db' | 'clock' | 'config'>): Promise<number> {
  return pruneOlderThanRetention(deps, deleteLogsBefore);
}

/**
 * The log retention (logRetention) applied to one kind of log rows: deletes
 * rows stored before the cutoff in short batches (each write transaction
 * stays short); returns how many.
 */
export async function pruneOlderThanRetention(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  deleteBefore: (db: Deps['db']['kysely'], cutoff: string, limit: number) => Promise<number>,
): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - deps.config.logRetention).toISOString();
  let total = 0;
  for (;;) {
    const deleted = await deleteBefore(deps.db.kysely, cutoff, PRUNE_BATCH);
    total += deleted;
    if (deleted < PRUNE_BATCH) return total;
  }
}

/**
 * Every matching row, oldest first, in keyset batches: memory stays constant
 * however many rows there are.
 */
export async function* iterateLogs(deps: Pick<Deps, 'db'>, filter: LogFilter, batchSize = 1000): AsyncGenerator<LogRow[]> {
  let after = 0;
  for (;;) {
    const batch = await listLogBatchAcrossClients(deps.db.kysely, filter, after, batchSize);
    if (batch.length === 0) return;
    yield batch;
    after = batch[batch.length - 1].id;
    if (batch.length < batchSize) return;
  }
}
