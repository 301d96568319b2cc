import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import type { NetworkPolicy } from './network-policy';

/**
 * A Fetch-API-compatible function whose every request obeys a NetworkPolicy:
 * the host is resolved and checked, and the connection goes to the address
 * checked (no DNS rebinding between check and connect). Redirects are never
 * followed and answers are capped, so a configured URL cannot turn the
 * appliance into a proxy into its own network. Used for identity providers
 * (openid-client's customFetch, the directory's graph API).
 * @throws TargetRefused (the policy refused the address), the request's network error or abort
 */
export type GuardedFetch = (
  url: string,
  init?: { method?: string; headers?: Record<string, string>; body?: unknown; signal?: AbortSignal },
) => Promise<Response>;

/** What is read of an answer at most (discovery documents, key sets and token answers are a few kB). */
const MAX_ANSWER_BYTES = 1_000_000;

export function guardedFetch(policy: NetworkPolicy): GuardedFetch {
  return async (href, init = {}) => {
    const url = new URL(href);
    const target = await policy.resolve(url);
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all)
        (callback as (error: null, addresses: LookupAddress[]) => void)(null, [{ address: target.address, family: target.family }]);
      else callback(null, target.address, target.family);
    };
    const body = bodyBytes(init.body);
    const headers = { ...init.headers, ...(body && { 'content-length': String(body.length) }) };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<Response>((resolve, reject) => {
      const request = client.request(url, { method: init.method ?? 'GET', headers, lookup, signal: init.signal }, (answer) => {
        const chunks: Buffer[] = [];
        let read = 0;
        answer.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) answer.destroy(new Error(`the answer of ${url.host} exceeds ${MAX_ANSWER_BYTES} bytes`));
          else chunks.push(chunk);
        });
        answer.on('error', reject);
        answer.on('end', () => {
          const status = answer.statusCode ?? 502;
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(answer.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(name, one);
          }
          const noBody = status === 204 || status === 304 || init.method === 'HEAD';
          resolve(
            new Response(noBody ? null : Buffer.concat(chunks), {
              status,
              statusText: answer.statusMessage ?? '',
              headers: responseHeaders,
            }),
          );
        });
      });
      request.on('error', reject);
      request.end(body);
    });
  };
}

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body);
  if (body instanceof ArrayBuffer) return Buffer.from(new Uint8Array(body));
  throw new TypeError('guardedFetch sends string, form or byte bodies only');
}
