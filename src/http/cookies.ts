import type { AppContext } from './state';

/** On TLS the cookie is `__Host-`-prefixed and Secure; on plain HTTP (a LAN without TLS) it cannot be. */
export function sessionCookieName(ctx: AppContext): string {
  return ctx.secure ? '__Host-wip_session' : 'wip_session';
}

export function setSessionCookie(ctx: AppContext, value: string): void {
  ctx.cookies.set(sessionCookieName(ctx), value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: '/',
    signed: true,
    maxAge: ctx.state.deps.config.sessionIdleTtl,
    overwrite: true,
  });
}

export function clearSessionCookie(ctx: AppContext): void {
  ctx.cookies.set(sessionCookieName(ctx), null, { path: '/', secure: ctx.secure, signed: true, overwrite: true });
}

export function readSessionCookie(ctx: AppContext): string | undefined {
  return ctx.cookies.get(sessionCookieName(ctx), { signed: true });
}
