import pino, { type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import type { Config } from '#config';

export type { Logger };

/**
 * Logs on stdout: structured JSON lines (for journald, a log shipper), or —
 * when stdout is a terminal and `logFormat` is `auto`, or with `pretty` —
 * human-readable lines (pino-pretty, as an in-process stream: no worker
 * thread, so it works inside the single executable too). Anything that can carry a credential is
 * redacted by path, so a careless log call cannot leak it.
 */
export const REDACT_PATHS = [
  'password',
  '*.password',
  'currentPassword',
  'newPassword',
  'token',
  '*.token',
  'refreshToken',
  '*.refreshToken',
  'accessToken',
  'licenseKey',
  '*.licenseKey',
  'secret',
  '*.secret',
  'jwtSecret',
  'cookieKeys',
  'vapid',
  'privateKey',
  '*.privateKey',
  'adminPassword',
  '*.adminPassword',
  'smtpUrl',
  '*.smtpUrl',
  'headers.authorization',
  'headers.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(
  config: Pick<Config, 'logLevel'> & { logFormat?: Config['logFormat'] },
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'wip' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    },
    destination ?? stdoutDestination(config.logFormat ?? 'auto'),
  );
}

export function wantsPrettyLogs(format: Config['logFormat'], stdoutIsTty = process.stdout.isTTY === true): boolean {
  return format === 'pretty' || (format === 'auto' && stdoutIsTty);
}

function stdoutDestination(format: Config['logFormat']): pino.DestinationStream {
  // Asynchronous writes to stdout: a synchronous write per request line costs
  // the event loop a syscall each; pino flushes what is buffered on exit.
  const stdout = linesPerTurn(pino.destination({ dest: 1, sync: false }));
  return wantsPrettyLogs(format) ? readableLines(stdout) : stdout;
}

/** The request line as src/http/middleware/request-log.ts writes it (by hand, always ending so). */
const REQUEST_LINE_END = '"msg":"request"}\n';

/**
 * Readable lines (pino-pretty, loaded only for a terminal or `pretty`: a
 * daemon logging JSON never needs it). The request line — the one logged for
 * every request — is one line (`GET /path 200 3.1 ms user 7 (client 2) [request id]`):
 * pino-pretty would print each of its fields on a line of its own, about nine
 * lines a request, and the first start's password scrolls away in minutes.
 * Other lines keep their fields below the message (an error's stack needs them).
 */
function readableLines(out: pino.DestinationStream): pino.DestinationStream {
  const { prettyFactory } = require('pino-pretty') as typeof PinoPretty;
  const options = { colorize: process.stdout.isTTY === true, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname,service' };
  const other = prettyFactory(options);
  const request = prettyFactory({ ...options, hideObject: true, messageFormat: requestSummary });
  return {
    write(line: string) {
      out.write((line.endsWith(REQUEST_LINE_END) ? request : other)(line));
    },
  };
}

function requestSummary(log: Record<string, unknown>): string {
  const who =
    log.userId !== undefined
      ? ` user ${String(log.userId)} (client ${String(log.clientId)})`
      : log.adminId !== undefined
        ? ` admin ${String(log.adminId)}`
        : '';
  return `${String(log.method)} ${String(log.path)} ${String(log.status)} ${(Number(log.ms) || 0).toFixed(1)} ms${who} [${String(log.requestId)}]`;
}

/**
 * The lines logged during one turn of the event loop reach the destination as
 * one write: under load a turn answers several requests, and each asynchronous
 * write is a round trip through libuv's thread pool (in a CPU profile of the
 * `me` benchmark, the log's writes cost about as much as building the lines).
 * A line waits at most until the end of the turn it was logged in; what is
 * pending when the process exits is written synchronously.
 */
function linesPerTurn(dest: ReturnType<typeof pino.destination>): pino.DestinationStream {
  let pending = '';
  const flush = () => {
    const chunk = pending;
    pending = '';
    unflushed.delete(flushAtExit);
    if (chunk) dest.write(chunk);
  };
  const flushAtExit = () => {
    flush();
    try {
      dest.flushSync();
    } catch {
      // stdout already closed: nothing left to write to
    }
  };
  return {
    write(line: string) {
      if (!pending) {
        setImmediate(flush);
        unflushed.add(flushAtExit);
      }
      pending += line;
    },
  };
}

/** The destinations holding lines of the current turn, written at exit (one listener for the process). */
const unflushed = new Set<() => void>();
process.once('exit', () => {
  for (const flushAtExit of [...unflushed]) flushAtExit();
});
