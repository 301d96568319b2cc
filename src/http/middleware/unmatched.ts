import type { Middleware } from 'koa';
import { AppError, notFound } from '../../errors';

/**
 * Answers what no route handled, in the envelope: an unknown path is 404
 * NOT_FOUND; a known path with another method is 405 METHOD_NOT_ALLOWED with
 * the `Allow` header the router computed (RFC 9110 requires it). Wraps the
 * router and its allowedMethods(), which also answers a plain OPTIONS with
 * `Allow`.
 */
export function unmatched(): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.body !== undefined && ctx.body !== null) return;
    if (ctx.status === 404) throw notFound('Route');
    // 501: a method the router does not know at all (e.g. PROPFIND) — still "not allowed here"
    if (ctx.status === 405 || ctx.status === 501) {
      throw new AppError('METHOD_NOT_ALLOWED', 'Method not allowed on this route', undefined, { headers: { Allow: ctx.response.get('Allow') } });
    }
  };
}
