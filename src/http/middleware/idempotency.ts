import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { AppError } from '#errors';
import { canonicalJson } from '#lib/canonical-json';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '#repos/idempotency';
import type { RouteSpec } from '../route-spec';
import type { AppContext, AppState } from '../state';

/** How long a first answer is kept for replay. */
export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
/** A key in progress for longer than this belonged to a request that died (e.g. with the process). */
const ABANDONED_MS = 5 * 60_000;
const MAX_KEY_LENGTH = 255;
const SCOPED_PATH = /^\/api\/(client|admin)(\/|$)/;

/**
 * Idempotency-Key (IETF httpapi draft) for every POST, PUT, PATCH and DELETE
 * route under /api/client and /api/admin, GraphQL mutations included. Mounted
 * per route after authentication and the gates, so the key belongs to a principal (user:<id>,
 * admin:<id>) and a refused request never takes it.
 *
 * The first answer (status, body) of a request that reached its handler and
 * did not fail with 5xx is kept 24 h; a retry with the same key and body gets
 * it again with `Idempotency-Replayed: true` and runs nothing. Same key, other
 * request → 422 IDEMPOTENCY_KEY_REUSED; while the first still runs → 409
 * IDEMPOTENCY_IN_PROGRESS. A request that failed with an error frees its key
 * (its transaction rolled back, so a corrected retry may run). Without the
 * header nothing changes.
 */
export function idempotency(spec: Pick<RouteSpec, 'path' | 'method'>): Middleware<AppState> | undefined {
  if (spec.method === 'get' || !SCOPED_PATH.test(spec.path)) return undefined;
  return async (ctx, next) => {
    const key = ctx.get('idempotency-key');
    const actor = ctx.state.actor;
    if (!key || !actor) return next();
    if (key.length > MAX_KEY_LENGTH) {
      throw new AppError('IDEMPOTENCY_KEY_INVALID', `The Idempotency-Key header is longer than ${MAX_KEY_LENGTH} characters`, {
        maxLength: MAX_KEY_LENGTH,
      });
    }
    const { db, clock } = ctx.state.deps;
    const principal = actor.kind === 'user' ? `user:${actor.userId}` : `admin:${actor.adminId}`;
    const now = clock.now();
    const existing = await claimIdempotencyKey(
      db.kysely,
      {
        principal,
        key,
        fingerprint: fingerprint(ctx),
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
      },
      new Date(now.getTime() - ABANDONED_MS).toISOString(),
    );
    if (existing) {
      if (existing.fingerprint !== fingerprint(ctx)) {
        throw new AppError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used for a different request; use a new key for a new request',
        );
      }
      if (existing.status === 'in_progress') {
        throw new AppError(
          'IDEMPOTENCY_IN_PROGRESS',
          'A request with this Idempotency-Key is still being processed; retry later',
          undefined,
          { headers: { 'Retry-After': 1 } },
        );
      }
      const stored = JSON.parse(existing.response_body!) as StoredResponse;
      ctx.status = existing.response_status!;
      ctx.body = stored.base64 === true ? Buffer.from(stored.body as string, 'base64') : stored.body;
      if (stored.type) ctx.type = stored.type;
      ctx.set('Idempotency-Replayed', 'true');
      return;
    }
    try {
      await next();
    } catch (error) {
      await releaseIdempotencyKey(db.kysely, principal, key);
      throw error;
    }
    const stored = storedResponse(ctx);
    if (stored) await completeIdempotencyKey(db.kysely, principal, key, ctx.status, JSON.stringify(stored));
    else await releaseIdempotencyKey(db.kysely, principal, key);
  };
}

/** What makes two requests "the same": method, path, query and body (JSON canonicalised; other bodies by type and size). */
function fingerprint(ctx: AppContext): string {
  const parsed = (ctx.request as { body?: unknown }).body;
  const body =
    ctx.is('json') || parsed === undefined ? canonicalJson(parsed ?? null) : `${ctx.get('content-type')};${ctx.get('content-length')}`;
  return createHash('sha256').update(`${ctx.method} ${ctx.path}?${ctx.querystring}\n${body}`).digest('hex');
}

/** A response as the key keeps it for replays: bytes (GraphQL answers are, see graphql/handler.ts) as base64. */
interface StoredResponse {
  type: string;
  body: unknown;
  base64?: true;
}

/** The response to keep, or undefined when it cannot be replayed (a 5xx, a stream): the key is released instead. */
function storedResponse(ctx: AppContext): StoredResponse | undefined {
  const body: unknown = ctx.body;
  if (ctx.status >= 500) return undefined;
  if (Buffer.isBuffer(body)) return { type: ctx.type, body: body.toString('base64'), base64: true };
  if (typeof body === 'object' && body !== null && isStream(body)) return undefined;
  return { type: ctx.type, body: body ?? null };
}

function isStream(value: object): boolean {
  return typeof (value as { pipe?: unknown }).pipe === 'function';
}
