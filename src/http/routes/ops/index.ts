import { z } from 'zod';
import { createHash, timingSafeEqual } from 'node:crypto';
import { version } from '../../../../package.json';
import { defineRoute, type RouteSpec } from '../../route';
import { sendJson } from '../../json-body';
import { AppError, forbidden, unauthorized } from '#errors';
import { checkReadiness } from '#services/health';
import type { AppContext } from '../../state';
import type { Deps } from '#deps';

/**
 * Operations endpoints for load balancers, orchestrators and Prometheus. They
 * live outside /api: /healthz and /metrics answer plain JSON and text, /readyz
 * the usual envelope.
 */
export const opsRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    produces: { type: 'application/json', schema: z.object({ status: z.literal('ok'), version: z.string() }).meta({ id: 'Health' }) },
    summary: 'Liveness: the process answers (no authentication, no database)',
    auth: 'public',
    async handler({ ctx }) {
      ctx.set('Cache-Control', 'no-store');
      sendJson(ctx, { status: 'ok', version });
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    response: z.object({ status: z.string(), checks: z.record(z.string(), z.string()) }),
    summary: 'Readiness: database reachable, migrations current, data directory writable; 503 SERVICE_UNAVAILABLE otherwise',
    auth: 'public',
    async handler({ deps, ctx }) {
      ctx.set('Cache-Control', 'no-store');
      const readiness = await checkReadiness(deps);
      if (!readiness.ready) throw new AppError('SERVICE_UNAVAILABLE', 'Not ready', { checks: readiness.checks });
      return { status: 'ready', checks: readiness.checks };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    produces: { type: 'text/plain' },
    errors: ['UNAUTHORIZED', 'FORBIDDEN'],
    summary: 'Prometheus metrics (text exposition); bearer metricsToken when configured, otherwise loopback callers only',
    auth: 'public',
    async handler({ deps, ctx }) {
      assertMayScrapeMetrics(deps, ctx);
      const registry = deps.metrics.registry;
      ctx.set('Cache-Control', 'no-store');
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
      return undefined;
    },
  }),
];

/**
 * With a configured metricsToken, the scraper presents it as a bearer token
 * (compared in constant time). Without one, only loopback callers may scrape:
 * the socket peer, and when a proxy is trusted the forwarded client too.
 * @throws AppError UNAUTHORIZED (missing or wrong token), FORBIDDEN (not loopback)
 */
function assertMayScrapeMetrics(deps: Deps, ctx: AppContext): void {
  const expected = deps.config.metricsToken;
  if (expected) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
    if (!presented || !timingSafeEqual(digest(presented), digest(expected))) throw unauthorized('A valid metrics token is required');
    return;
  }
  const peer = ctx.req.socket.remoteAddress ?? '';
  if (!isLoopback(peer) || (deps.config.trustProxy && !isLoopback(ctx.ip))) {
    throw forbidden('Metrics are served to loopback callers only; set metricsToken to scrape from elsewhere');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function isLoopback(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}
