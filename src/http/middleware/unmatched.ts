import type { Context } from 'koa';
import { AppError, notFound } from '#errors';

/**
 * What no route handled, as an error for the envelope (the request frame
 * calls this once the router is done): an unknown path is 404 NOT_FOUND; a
 * known path with another method is 405 METHOD_NOT_ALLOWED with the `Allow`
 * header the router computed (RFC 9110 requires it). The router's
 * allowedMethods() also answers a plain OPTIONS with `Allow`.
 */
export function unmatched(ctx: Context): void {
  if (ctx.body !== undefined && ctx.body !== null) return;
  if (ctx.status === 404) throw notFound('Route');
  // 501: a method the router does not know at all (e.g. PROPFIND) — still "not allowed here"
  if (ctx.status === 405 || ctx.status === 501) {
    throw new AppError('METHOD_NOT_ALLOWED', 'Method not allowed on this route', undefined, {
      headers: { Allow: ctx.response.get('Allow') },
    });
  }
}
