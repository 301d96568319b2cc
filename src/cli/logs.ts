import fs from 'node:fs';
import { once } from 'node:events';
import { InvalidArgumentError, type Command } from 'commander';
import type { LogLevel } from '#db/schema';
import { countLogs, type LogFilter } from '#services/logs';
import { exportLogs } from '#services/log-export';
import { output, withDeps } from './context';
import { progressBar } from './progress';

interface ExportOptions {
  since?: string;
  until?: string;
  level?: LogLevel[];
  client?: number;
  user?: number;
  event?: string;
  format: 'ndjson' | 'csv';
  output?: string;
}

function isoTime(value: string): string {
  const time = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time))
    throw new InvalidArgumentError('use an ISO-8601 date or date-time, e.g. 2026-01-31 or 2026-01-31T12:00:00Z');
  return new Date(time).toISOString();
}

function levels(value: string): LogLevel[] {
  const list = value.split(',').map((v) => v.trim());
  for (const level of list)
    if (!['info', 'warn', 'error'].includes(level)) throw new InvalidArgumentError('levels are info, warn, error (comma-separated)');
  return list as LogLevel[];
}

export function positiveId(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer id');
  return n;
}

/** Writes and waits for 'drain' when the stream's buffer is full: memory stays bounded on a slow reader. */
async function write(stream: NodeJS.WritableStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}

export function registerLogs(program: Command): void {
  const logs = program.command('logs').description('the event log (application and security events)');
  logs
    .command('export')
    .description('stream log rows, oldest first, as NDJSON or CSV (constant memory, any number of rows)')
    .option('--since <time>', 'from this ISO-8601 time (inclusive)', isoTime)
    .option('--until <time>', 'up to this ISO-8601 time (exclusive)', isoTime)
    .option('--level <levels>', 'only these levels: info,warn,error', levels)
    .option('--client <id>', 'only this client', positiveId)
    .option('--user <id>', 'only this user', positiveId)
    .option('--event <name>', 'only this event, e.g. auth.sign_in_failed')
    .option(
      '--format <format>',
      'ndjson or csv',
      (v) => {
        if (v !== 'ndjson' && v !== 'csv') throw new InvalidArgumentError('use ndjson or csv');
        return v;
      },
      'ndjson',
    )
    .option('--output <file>', 'write to this file (default standard output)')
    .action(async (opts: ExportOptions, command: Command) => {
      await withDeps(command, async (deps) => {
        const filter: LogFilter = {
          level: opts.level,
          clientId: opts.client,
          userId: opts.user,
          event: opts.event,
          since: opts.since,
          until: opts.until,
        };
        const toFile = opts.output !== undefined;
        const stream: NodeJS.WritableStream = toFile ? fs.createWriteStream(opts.output!, { mode: 0o600 }) : process.stdout;
        // The bar goes to stderr; with output on stdout it is still fine on a terminal.
        const bar = progressBar(command, 'export');
        const total = bar.active ? await countLogs(deps, filter) : 0;
        const memory = process.env.WIP_DEBUG_MEMORY === '1' ? { start: process.memoryUsage().rss, peak: 0 } : null;
        let rows = 0;
        try {
          for await (const chunk of exportLogs(deps, filter, opts.format)) {
            await write(stream, chunk.text);
            rows += chunk.rows;
            bar.update(rows, Math.max(total, rows));
            if (memory) memory.peak = Math.max(memory.peak, process.memoryUsage().rss);
          }
        } finally {
          bar.finish();
          if (toFile) {
            stream.end();
            await once(stream, 'close');
          }
        }
        if (memory) process.stderr.write(`wip-debug-memory ${JSON.stringify({ rows, rssStart: memory.start, rssPeak: memory.peak })}\n`);
        if (toFile) output(command, `Exported ${rows} log rows to ${opts.output}`, { rows, file: opts.output, format: opts.format });
      });
    });
}
