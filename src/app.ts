import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { securityHeaders } from './http/middleware/security-headers';
import { rateLimit } from './http/middleware/rate-limit';
import type { Deps } from './deps';
import { AppError, notFound } from './errors';
import { bodyLimitBytes } from './config';
import { requestId } from './http/middleware/request-id';
import { httpMetrics } from './http/middleware/http-metrics';
import { errorHandler } from './http/middleware/error-handler';
import { authenticate } from './http/middleware/authenticate';
import { csrf } from './http/middleware/csrf';
import { twoFactorGate } from './http/middleware/two-factor-gate';
import { licenseGate } from './http/middleware/license-gate';
import { agreementGate } from './http/middleware/agreement-gate';
import { mountRoutes, type RouteSpec } from './http/route';
import { allRoutes } from './http/routes';
import type { AppState } from './http/state';

/**
 * The HTTP application. The global middleware order is listed here once:
 * deps → metrics → request id → error envelope → security headers → rate limit →
 * body parsing → authentication → CSRF (cookie writes) → 2FA-required gate →
 * license gate → agreement gate → 404 → routes → 405.
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
  app.use(securityHeaders());
  app.use(
    rateLimit({
      max: deps.config.rateLimitMax,
      windowMs: deps.config.rateLimitWindow,
      // per IP: it runs before authentication, so it also shields the sign-in routes
      id: (ctx) => ctx.ip,
    }) as never,
  );
  app.use(koaBody({ jsonLimit: limit, formLimit: limit, textLimit: limit, multipart: false }) as never);
  app.use(authenticate());
  app.use(csrf());
  app.use(twoFactorGate());
  app.use(licenseGate());
  app.use(agreementGate());
  app.use(async (ctx, next) => {
    await next();
    // nothing matched and the router found no other method for the path
    if (ctx.body === undefined && ctx.status === 404) throw notFound('Route');
  });
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new AppError('METHOD_NOT_ALLOWED', 'Method not allowed on this route'),
      notImplemented: () => new AppError('METHOD_NOT_ALLOWED', 'Method not allowed on this route'),
    }),
  );
  return app;
}
