import type { Middleware } from 'koa';

/**
 * Every answer is `Cache-Control: no-store` unless its route declares a cache
 * policy (RouteSpec.cacheControl): API answers carry tokens, recovery codes and
 * tenant data that no browser or proxy cache may keep. Errors are always
 * no-store, even from a route that declared caching for its successes.
 */
export function noStore(): Middleware {
  return async (ctx, next) => {
    ctx.set('Cache-Control', 'no-store');
    try {
      await next();
    } catch (error) {
      ctx.set('Cache-Control', 'no-store');
      throw error;
    }
  };
}
