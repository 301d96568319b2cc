import koaCors from '@koa/cors';
import type { Middleware } from 'koa';

/** Request headers a web app sends to the API (credentials, CSRF token, client selection, retries, tracing). */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-CSRF-Token',
  'X-Client-ID',
  'Idempotency-Key',
  'X-Request-Id',
  'Last-Event-ID',
];
/** Response headers a web app may read besides the CORS-safelisted ones: tracing, rate limits, license grace period, CSRF token, idempotent replay, data epoch. */
const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-License-Warning',
  'X-CSRF-Token',
  'Idempotency-Replayed',
  'Wip-Data-Epoch',
];

/**
 * CORS for the web apps on other origins listed in config corsOrigins (@koa/cors).
 * A listed origin is echoed with credentials allowed, so a browser app may use
 * the session cookie; an unlisted one gets no CORS header at all, so its page
 * cannot read any answer. A listed origin's preflight is answered here (204),
 * before authentication, CSRF and the gates, which must never see it.
 * Mounted inside the error handler so error answers carry the headers too.
 */
export function cors(origins: readonly string[]): Middleware {
  const allowed = new Set(origins);
  const listed = koaCors({
    origin: (ctx) => ctx.get('origin'),
    credentials: true,
    allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    // preflights are cached this long (seconds); browsers cap it themselves (Chromium at 2 hours)
    maxAge: 600,
  });
  // Without a listed Origin there is nothing to add (`Vary: Origin` is among the request frame's
  // fixed headers): most requests (same origin, apps, scripts) pass straight on, with no promise of their own.
  return (ctx, next) => {
    const origin = ctx.req.headers.origin;
    return origin !== undefined && allowed.has(origin) ? listed(ctx, next) : next();
  };
}

/** Every answer depends on the request's Origin (listed or not): set by the request frame on every response. */
export const VARY_ORIGIN: [string, string] = ['Vary', 'Origin'];
