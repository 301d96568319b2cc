import { createHmac } from 'node:crypto';
import type { Deps } from '#deps';
import type { AppContext } from './state';

/**
 * The double-submit CSRF cookie: readable by a same-origin page's script,
 * echoed in X-CSRF-Token. Answers that set or use the session also carry the
 * token in an X-CSRF-Token response header, for web apps on another origin.
 */
export const CSRF_COOKIE = 'wip_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The CSRF token of a session: an HMAC of the session cookie's value, so the
 * server checks the header against the session itself (a cookie planted by a
 * sibling site cannot match) and needs no storage.
 */
export function csrfTokenFor(deps: Deps, sessionCookieValue: string): string {
  return createHmac('sha256', deps.secrets.cookieKeys[0]).update(`csrf:${sessionCookieValue}`).digest('base64url');
}

/** On TLS the cookie is `__Host-`-prefixed and Secure; on plain HTTP (a LAN without TLS) it cannot be. */
export function sessionCookieName(ctx: AppContext): string {
  return ctx.secure ? '__Host-wip_session' : 'wip_session';
}

export function setSessionCookie(ctx: AppContext, value: string): void {
  const csrfToken = csrfTokenFor(ctx.state.deps, value);
  ctx.set(CSRF_HEADER, csrfToken);
  ctx.cookies.set(sessionCookieName(ctx), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    signed: true,
    maxAge: ctx.state.deps.config.sessionIdleTtl,
    overwrite: true,
  });
  ctx.cookies.set(CSRF_COOKIE, csrfToken, {
    httpOnly: false,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    maxAge: ctx.state.deps.config.sessionIdleTtl,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: AppContext): void {
  ctx.cookies.set(sessionCookieName(ctx), null, { path: '/', secure: ctx.secure, signed: true, overwrite: true });
  ctx.cookies.set(CSRF_COOKIE, null, { path: '/', secure: ctx.secure, overwrite: true });
}

export function readSessionCookie(ctx: AppContext): string | undefined {
  return ctx.cookies.get(sessionCookieName(ctx), { signed: true });
}
