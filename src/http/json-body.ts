import type { Context } from 'koa';

const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * Answers `value` as JSON, serialized here with its type named directly. Koa
 * would do both itself for an object body, but its body setter and respond()
 * first test the object with `instanceof ReadableStream`, `Blob` and
 * `Response`, and touching those globals loads Node's web streams and undici
 * (≈ 30 ms of the daemon's first answer); a string body skips those tests, and
 * the MIME-table lookup of `ctx.type = 'json'`.
 */
export function sendJson(ctx: Context, value: unknown): void {
  // as Koa's own setters: nothing to set once a streamed answer has begun
  if (!ctx.headerSent) ctx.res.setHeader('Content-Type', JSON_UTF8);
  ctx.body = JSON.stringify(value);
}
