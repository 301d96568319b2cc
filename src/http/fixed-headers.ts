import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';

type StoredHeaders = Record<string, [string, string]>;

/**
 * Puts a constant set of response headers on a response, validated once.
 *
 * `res.setHeader` validates the name and the value and lower-cases the name on
 * every call: about 0.4 µs a header, and every answer carries a dozen constant
 * ones (no-store, Vary, the security headers) — measurable on the request path.
 * Here Node's own setHeader stores the set once on a probe response (validating
 * it: a bad header throws at start-up), and each request copies the stored
 * entries into the response's header map. Where that map is not what this
 * Node version was seen to use (an internal of `http.OutgoingMessage`), it falls
 * back to setHeader per header: the same headers either way.
 *
 * The copy needs the response's map to exist: call it after one setHeader.
 */
export function fixedHeaderSetter(headers: readonly [string, string][]): (res: ServerResponse) => void {
  const slow = (res: ServerResponse) => {
    for (const [name, value] of headers) res.setHeader(name, value);
  };
  const probe = new ServerResponse(new IncomingMessage(new Socket()));
  slow(probe);
  const symbol = Object.getOwnPropertySymbols(probe).find((s) => s.description === 'kOutHeaders');
  const stored = symbol && ((probe as unknown as Record<symbol, unknown>)[symbol] as StoredHeaders | null | undefined);
  const usable =
    !!stored &&
    Object.keys(stored).length === headers.length &&
    headers.every(([name, value]) => {
      const entry = stored[name.toLowerCase()];
      return Array.isArray(entry) && entry[0] === name && entry[1] === value;
    });
  if (!usable) return slow;
  const entries = Object.entries(stored);
  return (res) => {
    const map = (res as unknown as Record<symbol, StoredHeaders | null | undefined>)[symbol!];
    if (!map) return slow(res);
    // fresh arrays: the response may change its own entries later
    for (const [key, [name, value]] of entries) map[key] = [name, value];
  };
}
