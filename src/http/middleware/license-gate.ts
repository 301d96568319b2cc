import type { Middleware } from 'koa';
import { licenseExpired } from '../../errors';
import { currentLicense } from '../../services/licensing';
import type { AppState } from '../state';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Writes that stay open in read-only mode: signing in and out (reads still
 * work), admin sign-in and licensing (so an operator can always install a new
 * key), and accepting agreements (without which nothing can be read).
 */
const OPEN_FOR_WRITES = [
  /^\/api\/admin\/auth(\/|$)/,
  /^\/api\/admin\/license-on-prem$/,
  /^\/api\/admin\/license(\/\d+)?$/,
  /^\/api\/client\/auth\/(sign-in|sign-in-v2|verify-two-factor|sign-out|refresh|refresh-token)$/,
  /^\/api\/client\/(eula\/accept|accept-msa)$/,
  // the platform the appliance runs on keeps telling it about restarts and updates
  /^\/api\/admin\/container-notification-center$/,
];

/**
 * License enforcement, one middleware after authentication: resolves the
 * license in force (ctx.state.license), flags a license in its grace period
 * with `X-License-Warning`, and in read-only mode (expired past the grace
 * period, or clock turned back) answers writes 403 LICENSE_EXPIRED.
 */
export function licenseGate(): Middleware<AppState> {
  return async (ctx, next) => {
    // the router matches case-insensitively and ignores a trailing slash: so does this
    const path = ctx.path.toLowerCase().replace(/\/+$/, '');
    // health, readiness and metrics must answer without the database
    if (!path.startsWith('/api/')) return next();
    const license = await currentLicense(ctx.state.deps);
    ctx.state.license = license;
    if (license.warning) ctx.set('X-License-Warning', license.status);
    if (license.readOnly && !READS.has(ctx.method)) {
      if (!OPEN_FOR_WRITES.some((open) => open.test(path))) {
        throw licenseExpired({ status: license.status, expiresAt: license.terms.expiresAt, clockRollback: license.clockRollback });
      }
    }
    await next();
  };
}
