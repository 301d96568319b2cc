import type { Middleware } from 'koa';
import { AppError, unauthorized } from '../../errors';
import { actorFromBearer, actorFromCookie } from '../../services/auth';
import { readSessionCookie } from '../cookies';
import type { AppState } from '../state';

/**
 * Resolves the caller from `Authorization: Bearer` or the session cookie into
 * ctx.state.actor. A refused credential is kept in ctx.state.authError and
 * raised only by routes that require authentication, so public routes keep
 * working for a client holding a stale token.
 */
export function authenticate(): Middleware<AppState> {
  return async (ctx, next) => {
    const deps = ctx.state.deps;
    try {
      const header = ctx.req.headers.authorization;
      if (header) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!match) throw unauthorized('Unsupported authorization scheme; use Bearer');
        ctx.state.actor = actorFromBearer(deps, match[1]!);
      } else {
        const cookie = readSessionCookie(ctx);
        if (cookie) ctx.state.actor = actorFromCookie(deps, cookie);
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      ctx.state.authError = error;
    }
    await next();
  };
}
