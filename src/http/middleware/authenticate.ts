import type { Middleware, Next } from 'koa';
import type { Answer } from '#lib/answer';
import type { Actor } from '#services/actor';
import { AppError, unauthorized } from '#errors';
import { actorFromBearer, actorFromCookie } from '#services/auth';
import { actorFromDirectoryToken, directoryClaims } from '#services/sso/directory';
import { readSessionCookie } from '../cookies';
import { requestMeta } from '../request-meta';
import type { AppState } from '../state';

type Ctx = Parameters<Middleware<AppState>>[0];

/**
 * Resolves the caller from `Authorization: Bearer` (our access token, or a
 * token of a client's directory: src/services/sso/directory.ts) or the session cookie into
 * ctx.state.actor. A refused credential is kept in ctx.state.authError and
 * raised only by routes that require authentication, so public routes keep
 * working for a client holding a stale token.
 */
export function authenticate(): Middleware<AppState> {
  // not async: a bearer caller resolved from the hot path's cache continues without a promise of its own
  return (ctx, next) => {
    let actor: Answer<Actor | undefined>;
    try {
      actor = resolveActor(ctx);
    } catch (error) {
      return refused(ctx, next, error);
    }
    if (actor instanceof Promise) {
      return actor.then(
        (resolved) => {
          ctx.state.actor = resolved;
          return next();
        },
        (error: unknown) => refused(ctx, next, error),
      );
    }
    ctx.state.actor = actor;
    return next();
  };
}

function resolveActor(ctx: Ctx): Answer<Actor | undefined> {
  const deps = ctx.state.deps;
  const header = ctx.req.headers.authorization;
  if (header) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized('Unsupported authorization scheme; use Bearer');
    const token = match[1];
    // a directory's token is told apart by format and issuer first: never tried both ways (a token
    // already verified as ours is not read again: decoding its claims is most of this step's cost)
    const directory = deps.verifiedTokens.has(token) ? undefined : directoryClaims(token);
    return directory ? actorFromDirectoryToken(deps, token, directory, requestMeta(ctx)) : actorFromBearer(deps, token);
  }
  const cookie = readSessionCookie(ctx);
  return cookie ? actorFromCookie(deps, cookie) : undefined;
}

/** A refused credential is kept for the routes that require authentication; anything else is an error. */
function refused(ctx: Ctx, next: Next, error: unknown) {
  if (!(error instanceof AppError)) throw error;
  ctx.state.authError = error;
  return next();
}
