import type { Middleware } from 'koa';
import { AppError } from '../../errors';
import { safeEqual } from '../../lib/tokens';
import { CSRF_HEADER, csrfTokenFor, readSessionCookie } from '../cookies';
import type { AppState } from '../state';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for cookie-authenticated writes (the cookie is also SameSite=Lax).
 * A state-changing request authenticated by the session cookie must echo the
 * `wip_csrf` cookie in `X-CSRF-Token`; the value is checked against an HMAC of
 * the session cookie. Bearer-authenticated requests carry no ambient
 * credential and are exempt. Mounted right after authenticate.
 */
export function csrf(): Middleware<AppState> {
  return async (ctx, next) => {
    const actor = ctx.state.actor;
    if (actor?.kind === 'user' && actor.via === 'cookie' && !SAFE_METHODS.has(ctx.method)) {
      const presented = ctx.get(CSRF_HEADER);
      const session = readSessionCookie(ctx);
      if (!presented || !session || !safeEqual(presented, csrfTokenFor(ctx.state.deps, session))) {
        throw new AppError('CSRF_FAILED', 'Missing or invalid CSRF token: send the wip_csrf cookie value in X-CSRF-Token');
      }
    }
    await next();
  };
}
