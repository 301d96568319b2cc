import type { Middleware, Next } from 'koa';
import { licenseExpired } from '#errors';
import { currentLicense, settledLicense, type CurrentLicense } from '#services/licensing/index';
import type { RouteSpec } from '../route-spec';
import type { AppContext, AppState } from '../state';

/**
 * Write routes that stay open in read-only mode: signing in and out (reads
 * still work), admin sign-in and licensing (so an operator can always install
 * a new key), and accepting agreements (without which nothing can be read).
 * Matched against route patterns, once, when the routes are mounted.
 */
const OPEN_FOR_WRITES = [
  /^\/api\/admin\/auth(\/|$)/,
  /^\/api\/admin\/license-on-prem$/,
  /^\/api\/admin\/license(\/:id)?$/,
  /^\/api\/client\/auth\/(sign-in|sign-in-v2|verify-two-factor|sign-out|refresh|refresh-token)$/,
  /^\/api\/client\/(eula\/accept|accept-msa)$/,
  // the platform the appliance runs on keeps telling it about restarts and updates
  /^\/api\/admin\/container-notification-center$/,
];

/**
 * License enforcement for one route under /api/ (health, readiness and
 * metrics answer without the database): resolves the license in force
 * (ctx.state.license), flags a license in its grace period with
 * `X-License-Warning`, and in read-only mode (expired past the grace period,
 * or clock turned back) answers writes 403 LICENSE_EXPIRED.
 */
export function licenseGate(spec: Pick<RouteSpec, 'path' | 'method'>): Middleware<AppState> | undefined {
  if (!spec.path.startsWith('/api/')) return undefined;
  const refusedWhenReadOnly = spec.method !== 'get' && !OPEN_FOR_WRITES.some((open) => open.test(spec.path));
  const pass = (ctx: AppContext, next: Next, license: CurrentLicense) => {
    ctx.state.license = license;
    if (license.warning) ctx.set('X-License-Warning', license.status);
    if (license.readOnly && refusedWhenReadOnly) {
      throw licenseExpired({ status: license.status, expiresAt: license.terms.expiresAt, clockRollback: license.clockRollback });
    }
    return next();
  };
  // not async when the license is settled (the usual case): no promise of its own on the request path
  return (ctx, next) => {
    const { deps, hotPathChecks } = ctx.state;
    const settled = settledLicense(deps, hotPathChecks);
    if (settled) return pass(ctx, next, settled);
    return currentLicense(deps, { checkedSince: hotPathChecks }).then((license) => pass(ctx as AppContext, next, license));
  };
}
