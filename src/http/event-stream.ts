import type { Readable } from 'node:stream';
import type { AppContext } from './state';

/** The Last-Event-ID header of a reconnecting EventSource, or undefined. */
export function lastEventIdHeader(ctx: AppContext): number | undefined {
  const header = ctx.get('last-event-id');
  return /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

/**
 * Answers with a Server-Sent Events stream, written straight to the socket
 * (not through Koa's body handling): a stream ends by the client leaving or
 * the session ending, which is not an error to report.
 */
export function sendEventStream(ctx: AppContext, stream: Readable): undefined {
  ctx.respond = false;
  ctx.req.socket.setTimeout(0);
  ctx.req.socket.setNoDelay(true);
  ctx.res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
  });
  ctx.res.on('close', () => stream.destroy());
  stream.pipe(ctx.res);
  return undefined;
}
