import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  id: (ctx: Context) => string;
}

/**
 * koa-ratelimit with the headers SPEC.md section 8 describes: X-RateLimit-Limit,
 * X-RateLimit-Remaining, and X-RateLimit-Reset as whole Unix seconds (the memory
 * driver reports a fraction). Past the limit it throws 429, which the error
 * handler renders as RATE_LIMITED with Retry-After.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const limiter = ratelimit({
    driver: 'memory',
    db: new Map(),
    duration: options.windowMs,
    max: options.max,
    id: options.id,
    throw: true,
  });
  return async (ctx, next) => {
    try {
      await limiter(ctx, async () => {
        wholeSecondsReset(ctx);
        await next();
      });
    } catch (error) {
      const headers = (error as { headers?: Record<string, unknown> }).headers;
      if ((error as { status?: number }).status === 429 && headers) {
        headers['X-RateLimit-Reset'] = Math.ceil(Number(headers['X-RateLimit-Reset']));
        headers['Retry-After'] = Math.max(1, Number(headers['Retry-After']) || 1);
      }
      throw error;
    }
  };
}

function wholeSecondsReset(ctx: Context): void {
  const reset = ctx.response.get('X-RateLimit-Reset');
  if (reset) ctx.set('X-RateLimit-Reset', String(Math.ceil(Number(reset))));
}
