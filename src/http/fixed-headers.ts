import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

type StoredHeaders = Record<string, [string, string | number]>;
type WithHeaderMap = Record<symbol, StoredHeaders | null | undefined> & { _header?: string | null };

/**
 * Response headers set on every request, written straight into the response's
 * header map.
 *
 * `res.setHeader` validates the name and the value and lower-cases the name on
 * every call: about 0.4 µs a header, and every answer carries a dozen constant
 * ones (no-store, Vary, the security headers) and a few whose values are known
 * to be valid (the request id, the rate-limit numbers) — measurable on the
 * request path. Here Node's own setHeader stores a header once on a probe
 * response (validating it: a bad header throws at start-up), and each request
 * puts the same entry (`[name, value]` under the lower-cased name, as setHeader
 * does) into the response's map. Where that map is not what this Node version
 * was seen to use (an internal of `http.OutgoingMessage`), or the headers were
 * already sent, it falls back to setHeader: the same headers either way.
 */
const kOutHeaders = (() => {
  const probe = new ServerResponse(new IncomingMessage(new Socket()));
  probe.setHeader('X-Probe', 'yes');
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kOutHeaders');
  const stored = symbol && (probe as unknown as WithHeaderMap)[symbol];
  const entry = stored?.['x-probe'];
  return Array.isArray(entry) && entry[0] === 'X-Probe' && entry[1] === 'yes' ? symbol : undefined;
})();

/** The response's header map (made as setHeader makes it), or undefined where setHeader must be used. */
function headerMap(res: ServerResponse): StoredHeaders | undefined {
  if (kOutHeaders === undefined) return undefined;
  const target = res as unknown as WithHeaderMap;
  if (target._header) return undefined; // sent: setHeader throws, as it should
  let map = target[kOutHeaders];
  if (map === undefined) return undefined;
  if (map === null) map = target[kOutHeaders] = Object.create(null) as StoredHeaders;
  return map;
}

/** Puts a constant set of response headers on a response (validated once, here). */
export function fixedHeaderSetter(headers: readonly [string, string][]): (res: ServerResponse) => void {
  // validates every header now: a bad one throws at start-up
  const probe = new ServerResponse(new IncomingMessage(new Socket()));
  for (const [name, value] of headers) probe.setHeader(name, value);
  const entries = headers.map(([name, value]) => [name.toLowerCase(), name, value] as const);
  return (res) => {
    const map = headerMap(res);
    if (map === undefined) {
      for (const [name, value] of headers) res.setHeader(name, value);
      return;
    }
    // fresh arrays: the response may change its own entries later
    for (const [key, name, value] of entries) map[key] = [name, value];
  };
}

/**
 * Sets one header whose name is constant and whose values the caller knows to
 * be valid — numbers, or text of header-safe characters (a request id matched
 * against a pattern, a UUID) — the same way.
 */
export function headerWriter(name: string): (res: ServerResponse, value: string | number) => void {
  new ServerResponse(new IncomingMessage(new Socket())).setHeader(name, 'probe');
  const key = name.toLowerCase();
  return (res, value) => {
    const map = headerMap(res);
    if (map === undefined) res.setHeader(name, value);
    else map[key] = [name, value];
  };
}
