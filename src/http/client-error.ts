import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, type ErrorCode } from '#errors';
import { securityHeaderList } from './middleware/security-headers';

/** What Node's HTTP parser refuses before any request exists, as the code and message of the error envelope. */
function answerOf(code: string | undefined): { code: ErrorCode; message: string } {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'HEADERS_TOO_LARGE', message: 'The request line (URL) and headers are larger than the server accepts' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', message: 'The request was not received in time' };
    default:
      return { code: 'BAD_REQUEST', message: 'Malformed HTTP request' };
  }
}

/**
 * The server's 'clientError' listener: a request Node's parser refuses (a URL
 * or headers over its limit, a malformed request line, a request too slow to
 * arrive) is answered with the error envelope like every other refusal —
 * Node's own answer is a bare status line (431, 400, 408) with no body. The
 * connection closes after it: the parser cannot go on reading it.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  // a connection already gone (reset, or a response under way) gets nothing more
  if (error.code === 'ECONNRESET' || !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
    socket.destroy();
    return;
  }
  const { code, message } = answerOf(error.code);
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ success: false, error: { message, code } });
  const headers: [string, string][] = [
    ['Content-Type', 'application/json; charset=utf-8'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ['Cache-Control', 'no-store'],
    ['X-Request-Id', randomUUID()],
    ['Connection', 'close'],
    ...securityHeaderList(),
  ];
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`,
  );
}
