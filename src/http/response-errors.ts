import type { Logger } from '#logger';

/** Socket errors that only say the client went away: it closed the tab, lost the network, or cancelled the download. */
const CLIENT_GONE = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);

export function clientWentAway(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (typeof code === 'string' && CLIENT_GONE.has(code)) || message === 'aborted';
}

/**
 * Koa's 'error' event: what fails after the request frame has answered — the
 * answer's bytes on their way out. Without a listener Koa prints the stack on
 * stderr, so a phone that walked out of Wi-Fi mid-download read like a server
 * fault. A client that went away is routine (debug, with the request id);
 * anything else stays an error.
 */
export function responseErrorListener(logger: Logger): (error: Error, ctx?: { state?: { requestId?: string } }) => void {
  return (error, ctx) => {
    const requestId = ctx?.state?.requestId;
    if (clientWentAway(error))
      logger.debug(
        { requestId, code: (error as NodeJS.ErrnoException).code },
        'the client closed the connection before the answer was complete',
      );
    else logger.error({ requestId, err: error }, 'sending the answer failed');
  };
}
