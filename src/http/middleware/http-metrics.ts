import type { Middleware } from 'koa';
import type { AppState } from '../state';

/**
 * Counts and times every request by method, route pattern (ctx.state.routePath,
 * set by the route helper; `unmatched` otherwise, so scanners cannot blow up
 * the label set) and final status. Runs outside the error handler, so it sees
 * the status the client got.
 */
export function httpMetrics(): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      ctx.state.deps.metrics.observeRequest(ctx.method, ctx.state.routePath ?? 'unmatched', ctx.status, seconds);
    }
  };
}
