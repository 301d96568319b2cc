import type { Context, Middleware, Next } from 'koa';
import { sql, type Kysely } from 'kysely';
import type { Config, RateLimitGroup } from '#config';
import type { Database } from '#db/connection';
import type { DB } from '#db/schema';
import type { Logger } from '#logger';
import { AppError } from '#errors';
import { whenReady, type Answer } from '#lib/answer';
import { readSessionCookie } from '../cookies';
import { headerWriter } from '../fixed-headers';
import type { AppContext, AppState } from '../state';

/**
 * Where the counters live: a fixed window per key. In-process (a Map) for the
 * single node; in PostgreSQL mode a table every node counts in (see
 * postgresRateLimitStore), so a budget holds whichever node a request reaches.
 *
 * `hit` counts one request and answers how many requests the window still had
 * before it (0: the budget is spent, the request is refused) and when the
 * window ends (Unix milliseconds). The memory store answers synchronously: the
 * global budgets run on every request, and a promise per request is measurable.
 */
export interface RateLimitStore {
  hit(key: string, nowMs: number, windowMs: number, max: number): Answer<RateLimitHit>;
}
export interface RateLimitHit {
  remaining: number;
  resetMs: number;
}

/** Expired windows are deleted at most this often (per store). */
const PRUNE_EVERY_MS = 60_000;

export function memoryRateLimitStore(): RateLimitStore {
  const windows = new Map<string, { count: number; resetMs: number }>();
  let prunedAt = 0;
  return {
    hit(key, now, windowMs, max) {
      if (now - prunedAt > PRUNE_EVERY_MS) {
        prunedAt = now;
        for (const [k, w] of windows) if (w.resetMs <= now) windows.delete(k);
      }
      let window = windows.get(key);
      if (window === undefined || window.resetMs <= now) {
        window = { count: 0, resetMs: now + windowMs };
        windows.set(key, window);
      }
      const remaining = max - window.count;
      // stops one past the budget, like the shared store
      if (remaining > 0) window.count++;
      return { remaining: Math.max(0, remaining), resetMs: window.resetMs };
    },
  };
}

/**
 * The rate-limit store of PostgreSQL mode: a fixed window per key in the
 * `rate_limits` table, counted by one atomic upsert (a new key, or an expired
 * window, starts at 1; otherwise the count goes up, stopping one past the
 * budget). The store is per app; the table is shared by every node.
 *
 * When the database cannot answer, the request is let through (and logged):
 * the request itself then meets the same database and gets its 503, and
 * `/healthz` keeps answering while PostgreSQL fails over.
 */
export function postgresRateLimitStore(db: Kysely<DB>, logger: Logger): RateLimitStore {
  let prunedAt = 0;
  return {
    async hit(key, nowMs, windowMs, max) {
      const now = Math.floor(nowMs);
      try {
        if (now - prunedAt > PRUNE_EVERY_MS) {
          prunedAt = now;
          await db.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
        }
        const row = await db
          .insertInto('rate_limits')
          .values({ key, hits: 1, reset_at: now + windowMs })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              hits: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN 1 WHEN rate_limits.hits > ${max} THEN rate_limits.hits ELSE rate_limits.hits + 1 END`,
              reset_at: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN excluded.reset_at ELSE rate_limits.reset_at END`,
            }),
          )
          .returning(['hits', 'reset_at'])
          .executeTakeFirstOrThrow();
        return { remaining: Math.max(0, max - (row.hits - 1)), resetMs: Number(row.reset_at) };
      } catch (error) {
        logger.warn({ err: error }, 'rate-limit store unavailable; request let through');
        return { remaining: max, resetMs: now + windowMs };
      }
    },
  };
}

/** The store a limit that should hold across nodes uses: shared in PostgreSQL mode, undefined (in memory) otherwise. */
export function sharedRateLimitStore(deps: { db: Database; logger: Logger }): RateLimitStore | undefined {
  if (deps.db.dialect !== 'postgres') return undefined;
  let store = sharedStores.get(deps.db);
  if (!store) sharedStores.set(deps.db, (store = postgresRateLimitStore(deps.db.kysely, deps.logger)));
  return store;
}
const sharedStores = new WeakMap<Database, RateLimitStore>();

/**
 * A budget one operation spends from inside its handler (a GraphQL mutation, which shares its route, and so the
 * route group's budget, with every other): `max` uses per `windowMs` per id, counted where the global limits count
 * (shared in PostgreSQL mode). The returned function counts one use.
 * @throws AppError RATE_LIMITED (with `details.retryAfter` and Retry-After) past `max`
 */
export function operationLimit(
  deps: { db: Database; logger: Logger },
  options: { namespace: string; max: number; windowMs: number; what: string },
): (id: string) => Promise<void> {
  const store = sharedRateLimitStore(deps) ?? memoryRateLimitStore();
  return async (id) => {
    const hit = await store.hit(`${options.namespace}:${id}`, Date.now(), options.windowMs, options.max);
    if (hit.remaining > 0) return;
    const retryAfter = Math.max(1, Math.ceil((hit.resetMs - Date.now()) / 1000));
    throw new AppError(
      'RATE_LIMITED',
      `Too many ${options.what}; retry in ${retryAfter} s`,
      { retryAfter },
      { headers: { 'Retry-After': retryAfter } },
    );
  };
}

export interface RateLimitOptions {
  max: number;
  windowMs: number;
  id: (ctx: Context) => string;
  /** default: a store of its own */
  store?: RateLimitStore;
  /** separates budgets sharing one store */
  namespace?: string;
}

/**
 * A budget with the headers docs/api/contract.md section 8 describes: X-RateLimit-Limit,
 * X-RateLimit-Remaining (after this request) and X-RateLimit-Reset (whole Unix
 * seconds). Past the limit it throws 429 carrying those headers and
 * Retry-After, which the error handler renders as RATE_LIMITED.
 *
 * Not async when the store answers synchronously (memory): the headers go
 * straight into the response's header map (constant names, numbers: see fixed-headers.ts).
 */
const setRemaining = headerWriter('X-RateLimit-Remaining');
const setReset = headerWriter('X-RateLimit-Reset');
const setLimit = headerWriter('X-RateLimit-Limit');

export function rateLimit(options: RateLimitOptions): Middleware {
  const store = options.store ?? memoryRateLimitStore();
  const prefix = `${options.namespace ?? 'limit'}:`;
  const { max, windowMs, id } = options;
  const limit = String(max);
  const apply = (ctx: Context, next: Next, hit: RateLimitHit) => {
    const reset = Math.ceil(hit.resetMs / 1000);
    if (hit.remaining > 0) {
      const res = ctx.res;
      setRemaining(res, hit.remaining - 1);
      setReset(res, reset);
      setLimit(res, limit);
      return next();
    }
    const retryAfter = Math.max(1, Math.floor(reset - Date.now() / 1000));
    throw Object.assign(new Error('Rate limit exceeded'), {
      status: 429,
      expose: true,
      headers: { 'X-RateLimit-Remaining': 0, 'X-RateLimit-Reset': reset, 'X-RateLimit-Limit': max, 'Retry-After': retryAfter },
    });
  };
  return (ctx, next) => {
    return whenReady(store.hit(prefix + id(ctx), Date.now(), windowMs, max), (hit) => apply(ctx, next, hit));
  };
}

// ── The global limits ────────────────────────────────────────────────────────

/** The route group of a path, for `rateLimitGroups` (the group names live in config.ts). */
export function rateLimitGroupOf(path: string): RateLimitGroup {
  if (path === '/api/client/graphql') return 'graphql';
  if (path.startsWith('/api/admin/')) return 'admin';
  if (path.startsWith('/api/')) return 'client';
  return 'ops';
}

/**
 * The global budgets. Authenticated traffic counts per principal (a user, a
 * system administrator), so a site behind one NAT or proxy does not share one
 * budget and one noisy token exhausts only its own. Everything else —
 * requests without credentials, and those whose credentials were refused —
 * counts per client IP. Each request counts once:
 * - `anonymous` runs before authentication and counts requests that carry no
 *   credentials at all, so a flood never reaches the session lookups;
 * - `perPrincipal` runs after it: the caller's budget for the route group
 *   (its own when `rateLimitGroups` names the group, the shared default
 *   otherwise), or the IP's for a refused credential.
 */
export function globalRateLimits(
  config: Pick<Config, 'rateLimitMax' | 'rateLimitWindow' | 'rateLimitAnonymousMax' | 'rateLimitGroups'>,
  store: RateLimitStore = memoryRateLimitStore(),
) {
  const windowMs = config.rateLimitWindow;
  const perIp = rateLimit({ store, namespace: 'ip', max: config.rateLimitAnonymousMax, windowMs, id: (ctx) => ctx.ip });
  const principalId = (ctx: Context) => {
    const actor = (ctx as AppContext).state.actor!;
    return actor.kind === 'user' ? `user:${actor.userId}` : `admin:${actor.adminId}`;
  };
  const byGroup = new Map<string, Middleware>();
  const budgetFor = (group: RateLimitGroup): Middleware => {
    const own = config.rateLimitGroups[group];
    const namespace = own === undefined ? 'principal' : `principal:${group}`;
    let limiter = byGroup.get(namespace);
    if (!limiter) {
      limiter = rateLimit({ store, namespace, max: own ?? config.rateLimitMax, windowMs, id: principalId });
      byGroup.set(namespace, limiter);
    }
    return limiter;
  };
  const hasCredentials = (ctx: AppContext) => !!ctx.req.headers.authorization || readSessionCookie(ctx) !== undefined;

  // plain functions, not async: each only chooses which limiter (if any) runs
  const anonymous: Middleware<AppState> = (ctx, next) => {
    if (hasCredentials(ctx)) return next();
    return perIp(ctx, next);
  };
  const perPrincipal: Middleware<AppState> = (ctx, next) => {
    if (ctx.state.actor) return budgetFor(rateLimitGroupOf(ctx.path))(ctx, next);
    if (hasCredentials(ctx)) return perIp(ctx, next);
    return next();
  };
  return { anonymous, perPrincipal };
}
