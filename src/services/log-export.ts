import type { Deps } from '#deps';
import type { LogRow } from '#db/schema';
import { csvRow } from '#lib/csv';
import { redactValue, secretScrubber, type Scrubber } from '#lib/redact';
import { presentLog, type PresentedLog } from '#presenters';
import { iterateLogs, type LogFilter } from './logs';

export type LogExportFormat = 'ndjson' | 'csv';

export const LOG_CSV_COLUMNS = [
  'id',
  'createdAt',
  'level',
  'event',
  'message',
  'clientId',
  'userId',
  'adminId',
  'actor',
  'ip',
  'userAgent',
  'requestId',
  'data',
] as const;

/** A log row as it may leave the appliance: presented, credential keys blanked, known secrets scrubbed. */
export function presentRedactedLog(row: LogRow, scrub: Scrubber): PresentedLog {
  return redactValue(presentLog(row), scrub);
}

/** A redactor bound to the secrets known now (one per export, stream or page). */
export function logRedactor(deps: Pick<Deps, 'config' | 'secrets'>): (row: LogRow) => PresentedLog {
  const scrub = secretScrubber(deps.config, deps.secrets);
  return (row) => presentRedactedLog(row, scrub);
}

/**
 * The log export of `wip logs export` and GET /api/admin/logs/export: the
 * matching rows oldest first, redacted, as one text chunk per keyset batch
 * (memory stays constant for any number of rows; the caller writes each chunk
 * and waits for its reader before asking for the next).
 */
export async function* exportLogs(
  deps: Pick<Deps, 'db' | 'config' | 'secrets'>,
  filter: LogFilter,
  format: LogExportFormat,
): AsyncGenerator<{ text: string; rows: number }> {
  const redact = logRedactor(deps);
  if (format === 'csv') yield { text: csvRow(LOG_CSV_COLUMNS), rows: 0 };
  for await (const batch of iterateLogs(deps, filter)) {
    let text = '';
    for (const row of batch) {
      const item = redact(row);
      text += format === 'csv' ? csvRow(LOG_CSV_COLUMNS.map((c) => item[c])) : JSON.stringify(item) + '\n';
    }
    yield { text, rows: batch.length };
  }
}
