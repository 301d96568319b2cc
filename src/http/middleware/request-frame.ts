import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppDeps } from '#workers';
import type { AppState } from '../state';
import type { RouteSpec } from '../route-spec';
import { HSTS, securityHeaderList } from './security-headers';
import { errorResponse } from './error-handler';
import { requestLog } from './request-log';
import { unmatched } from './unmatched';
import { VARY_ORIGIN } from './cors';
import { fixedHeaderSetter, headerWriter } from '../fixed-headers';
import { runningRequest } from '../crash-guard';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CLIENT_API = /^\/api\/client(\/|$)/;

/**
 * The outermost layer, one middleware doing what every request needs, in this
 * order: ctx.state (deps, routes), the request id (`X-Request-Id`, a sane
 * incoming one kept so traces join up across proxies), `Date` from the
 * server's clock, the fixed response headers (`Cache-Control: no-store` —
 * routes may declare another cache policy for their successes — and the
 * security headers, computed once; under /api/client the data epoch,
 * `Wip-Data-Epoch`), then the
 * rest of the chain; what nothing answered becomes 404 or 405; an error becomes the envelope (errors are always
 * no-store); finally the request's log line and its metrics (by method, route
 * pattern — `unmatched` when no route took it, so scanners cannot blow up the
 * label set — and the status the client got). The request's work runs as
 * `runningRequest`, which an uncaught exception is charged to (crash-guard.ts).
 */
export function requestFrame(deps: AppDeps, routes: () => readonly RouteSpec[]): Middleware<AppState> {
  const fixedHeaders: [string, string][] = [['Cache-Control', 'no-store'], VARY_ORIGIN, ...securityHeaderList()];
  const setFixedHeaders = fixedHeaderSetter(fixedHeaders);
  const setRequestId = headerWriter('X-Request-Id');
  const setDate = headerWriter('Date');
  const logRequest = requestLog(deps.logger, deps.config);
  const { metrics } = deps;
  return async (ctx, next) => {
    const started = performance.now();
    const state = ctx.state;
    state.deps = deps;
    state.routes = routes;
    state.hotPathChecks = deps.hotPath.checks;
    const incoming = ctx.req.headers['x-request-id'];
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
    state.requestId = id;
    const res = ctx.res;
    // a UUID or an incoming id of SAFE_ID's characters: a valid header value
    setRequestId(res, id);
    setFixedHeaders(res);
    // the server's clock, not Node's: the floor app measures its offset to the server from this header and sends its
    // capture times in server time (docs/app.md), which the server bounds by this same clock
    setDate(res, deps.clock.now().toUTCString());
    if (ctx.secure) res.setHeader(HSTS[0], HSTS[1]);
    // devices compare it with the epoch their acknowledged writes were made under (docs/reliability.md)
    const epoch = deps.dataEpoch.current;
    if (epoch && CLIENT_API.test(ctx.path)) res.setHeader('Wip-Data-Epoch', epoch);
    // everything the request starts runs as its own: an uncaught exception fails it, not the process (crash-guard.ts)
    await runningRequest.run({ deps, requestId: id, method: ctx.req.method!, path: ctx.path, ip: ctx.ip, res }, async () => {
      try {
        await next();
        unmatched(ctx);
      } catch (caught) {
        res.setHeader('Cache-Control', 'no-store');
        await errorResponse(ctx, caught);
      } finally {
        const seconds = (performance.now() - started) / 1000;
        logRequest(ctx, seconds);
        metrics.observeRequest(ctx.req.method!, state.routePath ?? 'unmatched', res.statusCode, seconds);
      }
    });
  };
}
