import Koa from 'koa';
import Router from '@koa/router';
import { globalRateLimits, sharedRateLimitStore } from '#http/middleware/rate-limit';
import type { AppDeps } from '#workers';
import { requestFrame } from '#http/middleware/request-frame';
import { cors } from '#http/middleware/cors';
import { authenticate } from '#http/middleware/authenticate';
import { csrf } from '#http/middleware/csrf';
import { mountRoutes, routeSpec, type MountableRoute, type RouteSpec } from '#http/route';
import { lazyRoutes } from '#http/routes/index';
import type { AppState } from '#http/state';
import { responseErrorListener } from '#http/response-errors';

/**
 * The HTTP application. The global middleware order is listed here once:
 * request frame (state, request id, no-store and security headers, error
 * envelope, log line, metrics) → CORS (answers listed origins' preflights) →
 * per-IP rate limit (requests without credentials) → authentication →
 * per-principal rate limit → CSRF (cookie writes: origin + token) → routes
 * (what none answers: 404/405 with Allow, in the frame). Whatever applies to some routes only — JSON body
 * parsing, the 2FA-required, license and agreement gates, Idempotency-Key — is
 * part of each route's own chain (see mountRoutes), decided once at mount time.
 * CORS sits inside the error envelope so errors carry its headers, and ahead
 * of every gate so a preflight (which has no credentials) is never refused.
 * Idempotency-Key comes after authentication (a key belongs to a principal)
 * and after the gates (a refused request never takes a key), right before the
 * route's own rate limit and guards, so a replay answers without running anything.
 */
export function createApp(deps: AppDeps, routes: readonly MountableRoute[] = lazyRoutes()): Koa<AppState> {
  // maxIpsCount: only the entries our own proxies appended name the client (ctx.ip), never one it wrote itself
  const app = new Koa<AppState>({ proxy: deps.config.trustProxy, maxIpsCount: deps.config.proxyHops, keys: deps.secrets.cookieKeys });
  const router = new Router<AppState>();
  const dispatch = mountRoutes(router, routes, deps);
  // every route's declaration, for the OpenAPI document: loads every route group, so only when asked
  let specs: readonly RouteSpec[] | undefined;
  const routeSpecs = () => (specs ??= routes.map(routeSpec));

  // what fails while the answer is being sent (the client went away, mostly): our log, not Koa's stderr
  app.on('error', responseErrorListener(deps.logger));
  app.use(requestFrame(deps, routeSpecs));
  app.use(cors(deps.config.corsOrigins));
  const limits = globalRateLimits(deps.config, sharedRateLimitStore(deps));
  // requests without credentials, per IP, before any session lookup
  app.use(limits.anonymous);
  app.use(authenticate());
  // the caller's own budget (per user / system admin and route group); per IP for a refused credential
  app.use(limits.perPrincipal);
  app.use(csrf());
  app.use(dispatch);
  app.use(router.allowedMethods());
  return app;
}
