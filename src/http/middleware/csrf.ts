import type { Middleware } from 'koa';
import { AppError } from '#errors';
import { safeEqual } from '#lib/tokens';
import { CSRF_HEADER, csrfTokenFor, readSessionCookie } from '../cookies';
import type { AppContext, AppState } from '../state';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence for cookie-authenticated writes. The cookie is SameSite=Lax,
 * which does not stop a sibling site (another port or subdomain is the same
 * "site"), so two checks: the request must not come from a page on another
 * origin (`refuseCrossSite`), and it must echo the `wip_csrf` cookie in
 * `X-CSRF-Token`, checked against an HMAC of the session cookie. Every
 * cookie-authenticated answer carries the token in `X-CSRF-Token` too.
 * Bearer-authenticated requests carry no ambient credential and are exempt.
 * Routes that create a session run `refuseCrossSite` themselves (login CSRF).
 * Mounted right after authenticate.
 */
export function csrf(): Middleware<AppState> {
  // not async: a bearer request passes straight on (no promise of its own on the hot path)
  return (ctx, next) => {
    const actor = ctx.state.actor;
    if (actor?.via === 'cookie') {
      // the actor came from this cookie (`?? ''` only satisfies the type)
      const expected = csrfTokenFor(ctx.state.deps, readSessionCookie(ctx) ?? '');
      if (!SAFE_METHODS.has(ctx.method)) {
        refuseCrossSite(ctx);
        const presented = ctx.get(CSRF_HEADER);
        if (!presented || !safeEqual(presented, expected)) {
          throw new AppError(
            'CSRF_FAILED',
            'Missing or invalid CSRF token: send the wip_csrf cookie value (also given in the X-CSRF-Token response header) in X-CSRF-Token',
          );
        }
      }
      // A web app on another origin cannot read the wip_csrf cookie; it reads the
      // token from this header instead (exposed by CORS to listed origins only).
      ctx.set(CSRF_HEADER, expected);
    }
    return next();
  };
}

/**
 * 403 CSRF_FAILED when a browser says the request comes from a page on another
 * origin that is not trusted (config corsOrigins, or the origin of publicUrl).
 * The algorithm of Go's net/http CrossOriginProtection: `Sec-Fetch-Site` when
 * the browser sends it (it knows the page's origin even behind a proxy that
 * rewrites Host), else `Origin` against the Host the request was sent to.
 * A request with neither header is not from a browser page (curl, mobile
 * apps, servers) or from a same-origin page of an old browser: allowed.
 */
export function refuseCrossSite(ctx: AppContext): void {
  const origin = ctx.get('origin');
  const site = ctx.get('sec-fetch-site');
  if (site === 'same-origin' || site === 'none') return;
  if (!site && (!origin || parseUrl(origin)?.host === ctx.host)) return;
  if (origin && trustedOrigins(ctx).includes(origin)) return;
  throw new AppError(
    'CSRF_FAILED',
    'Cross-origin request refused: the page calling the API is not on a trusted origin (config corsOrigins)',
  );
}

function trustedOrigins(ctx: AppContext): string[] {
  const { corsOrigins, publicUrl } = ctx.state.deps.config;
  const own = publicUrl ? parseUrl(publicUrl)?.origin : undefined;
  return own ? [...corsOrigins, own] : corsOrigins;
}

/** undefined for what is not a URL, such as `Origin: null` (sandboxed frames, file: pages), which is never ours */
function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
