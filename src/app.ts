import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { securityHeaders } from './http/middleware/security-headers';
import { rateLimit } from './http/middleware/rate-limit';
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
 * preflights) → no-store → security headers → rate limit → JSON body parsing →
 * authentication → CSRF (cookie writes: origin + token) → 2FA-required gate →
 * license gate → agreement gate → Idempotency-Key → 404/405 (with Allow) → routes.
 * CORS sits inside the error envelope so errors carry its headers, and ahead
 * of every gate so a preflight (which has no credentials) is never refused.
 * Idempotency-Key comes after authentication (a key belongs to a principal)
 * and after the gates (a refused request never takes a key), right before the
 * routes, so a replay answers without running anything.
 */
export function createApp(deps: Deps, routes: RouteSpec[] = allRoutes): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: deps.config.trustProxy, keys: deps.secrets.cookieKeys });
  const router = new Router<AppState>();
  mountRoutes(router, routes, deps);
  const limit = bodyLimitBytes(deps.config);

  app.use(async (ctx, next) => {
    ctx.state.deps = deps;
    await next();
  });
  app.use(httpMetrics());
  app.use(requestId());
  app.use(errorHandler(deps.logger));
  app.use(cors(deps.config.corsOrigins));
  app.use(noStore());
  app.use(securityHeaders());
  app.use(
    rateLimit({
      max: deps.config.rateLimitMax,
      windowMs: deps.config.rateLimitWindow,
      // per IP: it runs before authentication, so it also shields the sign-in routes
      id: (ctx) => ctx.ip,
    }) as never,
  );
  // JSON only: a route declaring another body type (multipart) parses it in its own chain; any other body is 415 there
  app.use(koaBody({ jsonLimit: limit, jsonTypes: JSON_TYPES, urlencoded: false, text: false, multipart: false }) as never);
  app.use(authenticate());
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
