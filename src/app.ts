import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { securityHeaders } from './http/middleware/security-headers';
import { globalRateLimits } from './http/middleware/rate-limit';
import type { Deps } from './deps';
import { bodyLimitBytes } from './config';
import { requestId } from './http/middleware/request-id';
import { httpMetrics } from './http/middleware/http-metrics';
import { errorHandler } from './http/middleware/error-handler';
import { cors } from './http/middleware/cors';
import { noStore } from './http/middleware/no-store';
import { JSON_TYPES } from './http/middleware/body-type';
import { unmatched } from './http/middleware/unmatched';
import { authenticate } from './http/middleware/authenticate';
import { csrf } from './http/middleware/csrf';
import { twoFactorGate } from './http/middleware/two-factor-gate';
import { licenseGate } from './http/middleware/license-gate';
import { agreementGate } from './http/middleware/agreement-gate';
import { idempotency } from './http/middleware/idempotency';
import { mountRoutes, type RouteSpec } from './http/route';
import { allRoutes } from './http/routes';
import type { AppState } from './http/state';

/**
 * The HTTP application. The global middleware order is listed here once:
 * deps → metrics → request id → error envelope → CORS (answers listed origins'
 * preflights) → no-store → security headers → per-IP rate limit (requests
 * without credentials) → authentication → per-principal rate limit → JSON body
 * parsing (POST, PUT, PATCH, DELETE) → CSRF (cookie writes: origin + token) → 2FA-required gate →
 * license gate → agreement gate → Idempotency-Key → 404/405 (with Allow) → routes.
 * CORS sits inside the error envelope so errors carry its headers, and ahead
 * of every gate so a preflight (which has no credentials) is never refused.
 * Idempotency-Key comes after authentication (a key belongs to a principal)
 * and after the gates (a refused request never takes a key), right before the
 * routes, so a replay answers without running anything.
 */
/** DELETE too: unsubscribe names what to remove in its body. (koa-body does not export its method enum.) */
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as never[];

export function createApp(deps: Deps, routes: RouteSpec[] = allRoutes): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: deps.config.trustProxy, keys: deps.secrets.cookieKeys });
  const router = new Router<AppState>();
  mountRoutes(router, routes, deps);
  const limit = bodyLimitBytes(deps.config);

  app.use(async (ctx, next) => {
    ctx.state.deps = deps;
    ctx.state.routes = routes;
    await next();
  });
  app.use(httpMetrics());
  app.use(requestId());
  app.use(errorHandler(deps.logger));
  app.use(cors(deps.config.corsOrigins));
  app.use(noStore());
  app.use(securityHeaders());
  const limits = globalRateLimits(deps.config);
  // requests without credentials, per IP, before any session lookup
  app.use(limits.anonymous);
  app.use(authenticate());
  // the caller's own budget (per user / system admin and route group); per IP for a refused credential
  app.use(limits.perPrincipal);
  // JSON only (the raw text kept beside it for signature checks over the exact bytes, e.g. container notifications);
  // a route declaring another body type (multipart) parses it in its own chain; any other body is 415 there
  app.use(
    koaBody({ jsonLimit: limit, jsonTypes: JSON_TYPES, urlencoded: false, text: false, multipart: false, parsedMethods: BODY_METHODS, includeUnparsed: true }) as never,
  );
  app.use(csrf());
  app.use(twoFactorGate());
  app.use(licenseGate());
  app.use(agreementGate());
  app.use(idempotency());
  app.use(unmatched());
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
