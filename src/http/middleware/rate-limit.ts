import type { Context, Middleware } from 'koa';
import ratelimit from 'koa-ratelimit';
import { sql, type Kysely } from 'kysely';
import type { Config, RateLimitGroup } from '../../config';
import type { Database } from '../../db/connection';
import type { DB } from '../../db/schema';
import type { Logger } from '../../logger';
import { readSessionCookie } from '../cookies';
import type { AppContext, AppState } from '../state';

/**
 * Where the counters live: koa-ratelimit's store interface. In-process (a Map)
 * for the single node; in PostgreSQL mode a table every node counts in (see
 * postgresRateLimitStore), so a budget holds whichever node a request reaches.
 */
export type RateLimitStore = { driver: 'memory'; db: Map<string, unknown> } | { driver: 'redis'; db: SharedCounter };

export function memoryRateLimitStore(): RateLimitStore {
  return { driver: 'memory', db: new Map() };
}

/**
 * What koa-ratelimit's `redis` driver (async-ratelimiter) calls on its client:
 * `ratelimiter(key, nowMs, durationMs, max, peek)` answering
 * `[remaining before this request, reset in Unix seconds, max]`.
 */
interface SharedCounter {
  defineCommand(): void;
  ratelimiter(key: string, nowMs: number, durationMs: number, max: number, peek: '0' | '1'): Promise<[number, number, number]>;
}

/** Expired windows are deleted at most this often per node. */
const PRUNE_EVERY_MS = 60_000;

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
  const counter: SharedCounter = {
    defineCommand() {},
    async ratelimiter(key, nowMs, durationMs, max) {
      const now = Math.floor(nowMs);
      try {
        if (now - prunedAt > PRUNE_EVERY_MS) {
          prunedAt = now;
          await db.deleteFrom('rate_limits').where('reset_at', '<=', now).execute();
        }
        const row = await db
          .insertInto('rate_limits')
          .values({ key, hits: 1, reset_at: now + durationMs })
          .onConflict((oc) =>
            oc.column('key').doUpdateSet({
              hits: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN 1 WHEN rate_limits.hits > ${max} THEN rate_limits.hits ELSE rate_limits.hits + 1 END`,
              reset_at: sql<number>`CASE WHEN rate_limits.reset_at <= ${now} THEN excluded.reset_at ELSE rate_limits.reset_at END`,
            }),
          )
          .returning(['hits', 'reset_at'])
          .executeTakeFirstOrThrow();
        return [Math.max(0, max - (row.hits - 1)), Math.floor(Number(row.reset_at) / 1000), max];
      } catch (error) {
        logger.warn({ err: error }, 'rate-limit store unavailable; request let through');
        return [max, Math.floor((now + durationMs) / 1000), max];
      }
    },
  };
  return { driver: 'redis', db: counter };
}

/** The store a limit that should hold across nodes uses: shared in PostgreSQL mode, undefined (in memory) otherwise. */
export function sharedRateLimitStore(deps: { db: Database; logger: Logger }): RateLimitStore | undefined {
  if (deps.db.dialect !== 'postgres') return undefined;
  let store = sharedStores.get(deps.db);
  if (!store) sharedStores.set(deps.db, (store = postgresRateLimitStore(deps.db.kysely, deps.logger)));
  return store;
}
const sharedStores = new WeakMap<Database, RateLimitStore>();

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
 * koa-ratelimit with the headers SPEC.md section 8 describes: X-RateLimit-Limit,
 * X-RateLimit-Remaining, and X-RateLimit-Reset as whole Unix seconds (the memory
 * driver reports a fraction). Past the limit it throws 429, which the error
 * handler renders as RATE_LIMITED with Retry-After.
 */
export function rateLimit(options: RateLimitOptions): Middleware {
  const store = options.store ?? memoryRateLimitStore();
  const limiter = ratelimit({
    driver: store.driver,
    db: store.db as never,
    namespace: options.namespace ?? 'limit',
    duration: options.windowMs,
    max: options.max,
    id: options.id,
    throw: true,
  } as ratelimit.MiddlewareOptions);
  return async (ctx, next) => {
    try {
      await limiter(ctx, async () => {
        wholeSecondsReset(ctx);
        await next();
      });
    } catch (error) {
      const headers = (error as { headers?: Record<string, unknown> }).headers;
      if ((error as { status?: number }).status === 429 && headers) {
        headers['X-RateLimit-Reset'] = Math.ceil(Number(headers['X-RateLimit-Reset']));
        headers['Retry-After'] = Math.max(1, Number(headers['Retry-After']) || 1);
      }
      throw error;
    }
  };
}

function wholeSecondsReset(ctx: Context): void {
  const reset = ctx.response.get('X-RateLimit-Reset');
  if (reset) ctx.set('X-RateLimit-Reset', String(Math.ceil(Number(reset))));
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
export function globalRateLimits(config: Pick<Config, 'rateLimitMax' | 'rateLimitWindow' | 'rateLimitAnonymousMax' | 'rateLimitGroups'>, store: RateLimitStore = memoryRateLimitStore()) {
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
  const hasCredentials = (ctx: AppContext) => ctx.get('authorization') !== '' || readSessionCookie(ctx) !== undefined;

  // plain functions, not async: each only chooses which limiter (if any) runs
  const anonymous: Middleware<AppState> = (ctx, next) => {
    if (hasCredentials(ctx as AppContext)) return next();
    return perIp(ctx, next);
  };
  const perPrincipal: Middleware<AppState> = (ctx, next) => {
    if (ctx.state.actor) return budgetFor(rateLimitGroupOf(ctx.path))(ctx, next);
    if (hasCredentials(ctx as AppContext)) return perIp(ctx, next);
    return next();
  };
  return { anonymous, perPrincipal };
}
