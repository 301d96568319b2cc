import type { Middleware } from 'koa';
import { AppError } from '#errors';
import type { RouteSpec } from '../route-spec';
import type { AppState } from '../state';

/**
 * Enforces a client's "two-factor required" policy: a user it applies to who
 * has not enabled a second factor may only enrol (and read who they are, sign
 * out, refresh, change the password). Everything else is 403
 * TWO_FACTOR_SETUP_REQUIRED. Mounted per route (see mountRoutes), after CSRF.
 */
const OPEN_PATHS = new Set([
  '/api/client/auth/me',
  '/api/client/auth/sign-out',
  '/api/client/auth/refresh',
  '/api/client/auth/two-factor/setup',
  '/api/client/auth/two-factor/enable',
  '/api/client/auth/client',
  '/api/client/auth/client-security-settings',
  '/api/client/auth/get-admin-email',
  '/api/client/auth/change-password',
  '/api/client/auth/update-password',
]);

/** The gate of one route; none for the routes open to a user who has yet to enrol. */
export function twoFactorGate(spec: Pick<RouteSpec, 'path'>): Middleware<AppState> | undefined {
  if (OPEN_PATHS.has(spec.path)) return undefined;
  // the web apps' pages and files (/app/, /console/) are not the API: they must load for the user to enrol there
  if (!spec.path.startsWith('/api/')) return undefined;
  return (ctx, next) => {
    const actor = ctx.state.actor;
    if (actor?.kind === 'user' && actor.twoFactorSetupRequired) {
      throw new AppError('TWO_FACTOR_SETUP_REQUIRED', 'Your organisation requires two-factor authentication: set it up first');
    }
    return next();
  };
}
