import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { AppDeps } from '#workers';
import type { Logger } from '#logger';
import { recordLogEntry } from '#services/security-log';

/** The request whose work is running, for the uncaught-exception handler: set by the request frame around each request. */
export interface RunningRequest {
  deps: AppDeps;
  requestId: string;
  method: string;
  path: string;
  ip: string;
  res: ServerResponse;
}

/**
 * The request every callback descends from (AsyncLocalStorage follows timers,
 * zlib and stream callbacks), so an exception thrown where no try/catch can
 * reach — png-js threw from a zlib callback — is still known as that request's.
 */
export const runningRequest = new AsyncLocalStorage<RunningRequest>();

const installed = Symbol.for('wip.crashGuard');
let lastLogger: Logger | undefined;

/**
 * What the process does on an uncaught exception (docs/reliability.md), once
 * per process however many servers it starts:
 * - thrown by a request's work: logged (error, with the request id, method and
 *   path) and recorded on the security log (`process.uncaught_exception`);
 *   that request is answered 500 INTERNAL_ERROR (its connection is cut when
 *   its answer had begun: a half-sent PDF must not pass for a whole one) and
 *   the daemon goes on serving everyone else;
 * - thrown outside any request (a timer of the background workers): the
 *   state is unknown, so it is logged (fatal) and the process exits with
 *   status 1, as Node would; the service manager starts it again (the
 *   systemd unit of `wip install` has Restart=on-failure, RestartSec=5s).
 */
export function installCrashGuard(logger: Logger): void {
  lastLogger = logger;
  const proc = process as NodeJS.Process & { [installed]?: boolean };
  if (proc[installed]) return;
  proc[installed] = true;
  process.on('uncaughtException', (error, origin) => {
    const request = runningRequest.getStore();
    if (request) return failRequest(request, error, origin);
    lastLogger?.fatal({ err: error, origin }, 'uncaught exception outside any request: exiting for the service manager to restart');
    process.exit(1);
  });
}

function failRequest(request: RunningRequest, error: Error, origin: string): void {
  const { deps, requestId, method, path, res } = request;
  deps.logger.error(
    { err: error, origin, requestId, method, path },
    'uncaught exception in a request: the request failed, the daemon goes on',
  );
  void recordLogEntry(deps, {
    level: 'error',
    event: 'process.uncaught_exception',
    message: `An uncaught exception failed ${method} ${path}; the daemon went on serving`,
    actor: null,
    meta: { requestId, ip: request.ip, userAgent: null },
    data: { error: error.message, method, path },
  });
  if (res.headersSent || res.writableEnded) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ success: false, error: { message: 'Internal server error', code: 'INTERNAL_ERROR' } });
  res.writeHead(500, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
  });
  res.end(body);
}
