import type { Middleware } from 'koa';
import helmet from 'koa-helmet';

/**
 * Security headers on every response (helmet). The API serves JSON and files,
 * never pages, so the content policy forbids everything. HSTS only over TLS:
 * sent on plain HTTP it would be ignored, and it must not pin a LAN host to
 * HTTPS that does not serve it.
 */
export function securityHeaders(): Middleware {
  const base = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    strictTransportSecurity: false,
  }) as Middleware;
  return async (ctx, next) => {
    if (ctx.secure) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    await base(ctx, next);
  };
}
