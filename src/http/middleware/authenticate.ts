import type { Middleware } from 'koa';
import { AppError, unauthorized } from '../../errors';
import { actorFromBearer, actorFromCookie } from '../../services/auth';
import { actorFromDirectoryToken, directoryClaims } from '../../services/sso/directory';
import { readSessionCookie } from '../cookies';
import type { AppState } from '../state';

/**
 * Resolves the caller from `Authorization: Bearer` (our access token, or a
 * token of a client's directory: src/services/sso/directory.ts) or the session cookie into
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
        const token = match[1]!;
        // a directory's token is told apart by format and issuer first: never tried both ways (a token
        // already verified as ours is not read again: decoding its claims is most of this step's cost)
        const directory = deps.verifiedTokens.has(token) ? undefined : directoryClaims(token);
        ctx.state.actor = directory
          ? await actorFromDirectoryToken(deps, token, directory, { ip: ctx.ip || null, userAgent: ctx.get('user-agent') || null, requestId: ctx.state.requestId })
          : await actorFromBearer(deps, token);
      } else {
        const cookie = readSessionCookie(ctx);
        if (cookie) ctx.state.actor = await actorFromCookie(deps, cookie);
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      ctx.state.authError = error;
    }
    await next();
  };
}
