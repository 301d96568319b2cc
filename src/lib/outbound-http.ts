import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * The one way the appliance calls another HTTP server (webhooks, integration
 * upstreams): redirects are never followed (a 3xx is returned as it is), the
 * whole exchange has a deadline, the answer is read only up to a size, and the
 * connection can be pinned to an address checked beforehand (no DNS rebinding
 * between a policy check and the connect).
 */
export interface OutboundRequest {
  url: URL;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  maxResponseBytes: number;
  /** 'error' (default): a longer answer fails with OutboundError too-large; 'truncate': reading stops there */
  oversize?: 'error' | 'truncate';
  /** connect to this address whatever DNS says (see lib/network-policy.ts) */
  pinned?: { address: string; family: 4 | 6 };
}

export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export class OutboundError extends Error {
  override name = 'OutboundError';
  constructor(
    readonly reason: 'timeout' | 'too-large' | 'network',
    message: string,
  ) {
    super(message);
  }
}

/** @throws OutboundError when there is no complete answer in time, within the size */
export function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const { url, pinned } = request;
  const lookup: LookupFunction | undefined = pinned
    ? (_host, options, callback) => {
        if ((options as { all?: boolean }).all) (callback as any)(null, [{ address: pinned.address, family: pinned.family }]);
        else callback(null, pinned.address, pinned.family);
      }
    : undefined;
  const client = url.protocol === 'https:' ? https : http;
  const signal = AbortSignal.timeout(request.timeoutMs);
  const timeout = () => new OutboundError('timeout', `no answer within ${request.timeoutMs / 1000}s`);
  const tooLarge = () => new OutboundError('too-large', `the answer is larger than ${request.maxResponseBytes} bytes`);
  return new Promise<OutboundResponse>((resolve, reject) => {
    const outgoing = client.request(url, { method: request.method, headers: request.headers, lookup, signal, agent: false }, (response) => {
      const declared = Number(response.headers['content-length']);
      if (request.oversize !== 'truncate' && declared > request.maxResponseBytes) {
        response.destroy();
        reject(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      };
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        if (size > request.maxResponseBytes) {
          if (request.oversize === 'truncate') {
            chunks.push(chunk.subarray(0, chunk.length - (size - request.maxResponseBytes)));
            finish();
          } else {
            settled = true;
            reject(tooLarge());
          }
          response.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('end', finish);
      response.on('error', (error) => {
        if (settled) return;
        settled = true;
        reject(signal.aborted ? timeout() : new OutboundError('network', error.message));
      });
      response.on('close', () => {
        if (settled) return;
        settled = true;
        reject(signal.aborted ? timeout() : new OutboundError('network', 'the connection closed before the answer was complete'));
      });
    });
    outgoing.on('error', (error) => reject(signal.aborted ? timeout() : new OutboundError('network', error.message)));
    outgoing.end(request.body);
  });
}
