import type Router from '@koa/router';
import { parse as parseQueryString } from 'node:querystring';
import compose from 'koa-compose';
import type { Middleware } from 'koa';
import { rateLimit, sharedRateLimitStore } from './middleware/rate-limit';
import { assertBodyType, JSON_TYPES, type BodyType } from './middleware/body-type';
import { refuseCrossSite } from './middleware/csrf';
import { twoFactorGate } from './middleware/two-factor-gate';
import { licenseGate } from './middleware/license-gate';
import { agreementGate } from './middleware/agreement-gate';
import { idempotency } from './middleware/idempotency';
import { sendJson } from './json-body';
import { requestMeta } from './request-meta';
import { parseOrFail } from '#lib/parse-or-fail';
import { bodyLimitBytes } from '#config';
import { z } from 'zod';
import { AppError, featureNotLicensed, forbidden, notFound, unauthorized } from '#errors';
import type { Feature } from '#licensing/terms';
import { currentLicense } from '#services/licensing/index';
import { permitted } from '#policies/permissions';
import type { AppDeps } from '#workers';
import type { AppContext, AppState } from './state';
import type { MountableRoute, RateLimitSpec, RouteSpec } from './route-spec';
// the declarations live in route-spec.ts (the middleware reads them without importing the helper); route files import them from here
export { defineRoute, principalBudget, routeSpec } from './route-spec';
export type { AuthMode, LazyRoute, MountableRoute, RateLimitSpec, RouteSpec } from './route-spec';

/**
 * The one route helper. A route is a declaration — method, path, who may call
 * it, its schemas, its rate limit, what it accepts and how it may be cached —
 * plus a handler that calls one service and returns presented data.
 * `mountRoutes` turns declarations into a visible chain: cache policy → JSON
 * body parsing (writes) → 2FA-required gate → license gate → agreement gate →
 * Idempotency-Key (writes) → rate limit → cross-site refusal
 * (session-creating routes) → authentication guard → role guard → body media
 * type → validation → handler → envelope. Each gate decides when the route is
 * mounted whether it applies to it (a gate that cannot apply is not in the
 * chain at all), so a request pays only for the layers of its route. The same
 * declarations feed the OpenAPI document.
 */
/** Path parameter `:id` as a positive integer; anything else cannot name a resource, so it is 404. */
export const IdParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

/** DELETE too: unsubscribe names what to remove in its body. (koa-body does not export its method enum.) */
const BODY_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as never[];

/**
 * koa-body for JSON (and its raw text), loaded with the first write rather
 * than at start-up: with co-body, formidable and their MIME tables it is a
 * noticeable share of the start, and no read needs it.
 */
function jsonBodyParser(deps: AppDeps): Middleware<AppState> {
  let parse: Middleware<AppState> | undefined;
  return (ctx, next) => {
    parse ??= (require('koa-body') as typeof import('koa-body')).koaBody({
      jsonLimit: bodyLimitBytes(deps.config),
      jsonTypes: JSON_TYPES,
      urlencoded: false,
      text: false,
      multipart: false,
      parsedMethods: BODY_METHODS,
      // the raw text kept beside the JSON for signature checks over the exact bytes (container notifications)
      includeUnparsed: true,
    }) as unknown as Middleware<AppState>;
    return parse(ctx, next);
  };
}

/**
 * Registers every route on the router; returns the middleware that dispatches to them (see routerWithFixedPaths).
 * A lazy route's chain is built on its first request, from the same declaration and in the same order as an eager one.
 */
export function mountRoutes(router: Router<AppState>, routes: readonly MountableRoute[], deps: AppDeps): Middleware<AppState> {
  const fixedPaths: FixedPath[] = [];
  // JSON only (and its raw text): a route declaring another body type (multipart) parses it in its own chain; any other body is 415 there
  const parseJson = jsonBodyParser(deps);
  for (const route of routes) {
    let chain: Middleware<AppState>[];
    let run: Middleware<AppState>;
    if ('load' in route) {
      let loaded: Middleware<AppState> | undefined;
      run = (ctx, next) => (loaded ??= compose(routeChain(route.load(), deps, parseJson)))(ctx, next);
      chain = [run];
    } else {
      chain = routeChain(route, deps, parseJson);
      run = compose(chain);
    }
    router.register(route.path, [route.method.toUpperCase()], chain as never);
    if (!/[:*(]/.test(route.path))
      fixedPaths.push({ layer: router.stack.at(-1)!, method: route.method.toUpperCase(), path: route.path, chain: run });
  }
  return routerWithFixedPaths(router, fixedPaths);
}

/** One route's chain: cache policy → JSON body → gates → Idempotency-Key → rate limits → cross-site refusal → guards → validation → handler. */
function routeChain(spec: RouteSpec, deps: AppDeps, parseJson: Middleware<AppState>): Middleware<AppState>[] {
  const chain: Middleware<AppState>[] = [];
  chain.push(
    spec.cacheControl
      ? (ctx, next) => {
          ctx.state.routePath = spec.path;
          ctx.set('Cache-Control', spec.cacheControl!);
          return next();
        }
      : (ctx, next) => {
          ctx.state.routePath = spec.path;
          return next();
        },
  );
  if (spec.method !== 'get') chain.push(parseJson);
  for (const gate of [twoFactorGate(spec), licenseGate(spec), agreementGate(spec, deps), idempotency(spec)]) if (gate) chain.push(gate);
  [spec.rateLimit ?? []]
    .flat()
    .forEach((limit, i) => chain.push(rateLimiter(limit, deps, `route:${spec.method} ${spec.path}:${i}`) as Middleware<AppState>));
  if (spec.createsSession) {
    chain.push(async (ctx, next) => {
      refuseCrossSite(ctx);
      await next();
    });
  }
  const accepts = spec.accepts ?? 'json';
  chain.push(async (ctx) => {
    assertAllowed(spec, ctx);
    if (spec.feature) await assertLicensed(ctx, spec.feature);
    spec.authenticate?.({ deps, actor: ctx.state.actor, ctx: ctx });
    // after the guard: an upload is parsed only for a caller allowed to make it
    assertBodyType(ctx, accepts);
    const params = spec.params ? parseParams(spec.params, ctx.params) : ctx.params;
    const query = spec.query ? parseOrFail(spec.query, parseQuery(ctx.querystring), 'query') : undefined;
    const body = spec.body ? parseOrFail(spec.body, (ctx.request as { body?: unknown }).body ?? {}, 'body') : undefined;
    const data = await runHandler(
      spec,
      {
        actor: ctx.state.actor,
        body: body,
        query: query,
        params: params as never,
        deps,
        meta: requestMeta(ctx),
        ctx: ctx,
      },
      accepts,
    );
    // a handler that streams set ctx.body itself, or answered on the socket (ctx.respond = false)
    if ((ctx.body !== undefined || ctx.respond === false) && data === undefined) return;
    ctx.status = spec.status ?? 200;
    sendJson(ctx, { success: true, data: data ?? null });
  });
  return chain;
}

/**
 * The handler, with one convention for `details.fields[].path` in its validation errors: where the value came
 * from (`body`, `query`, `path`, `header`) then the field (`body.changes.0.licenseType`). Services are shared with
 * GraphQL and name bare fields (`roles`); here a bare path is the field of what the route reads — its body if it
 * takes one, else its query.
 */
async function runHandler(spec: RouteSpec, args: Parameters<RouteSpec['handler']>[0], accepts: BodyType): Promise<unknown> {
  try {
    return await spec.handler(args);
  } catch (error) {
    const fields = error instanceof AppError ? (error.details as { fields?: unknown } | undefined)?.fields : undefined;
    if (!Array.isArray(fields)) throw error;
    const where = spec.body || accepts !== 'json' ? 'body' : spec.query ? 'query' : spec.method === 'get' ? 'query' : 'body';
    for (const field of fields as { path?: unknown }[]) {
      if (typeof field.path !== 'string' || FIELD_SOURCE.test(field.path)) continue;
      // a path parameter's name (`lang` of /internalization/:lang) is path.x
      const source = spec.path.split('/').includes(`:${field.path.split('.')[0]}`) ? 'path' : where;
      field.path = `${source}.${field.path}`;
    }
    throw error;
  }
}

/** A field path that already says where the value came from. */
export const FIELD_SOURCE = /^(body|query|path|header)(\.|$)/;

interface FixedPath {
  layer: Router<AppState>['stack'][number];
  method: string;
  path: string;
  chain: Middleware<AppState>;
}

/**
 * The router's middleware, with a shortcut for routes whose path has no
 * parameter: `@koa/router` tests every route's pattern against each request
 * and composes the matched chain anew (about 5 % of the daemon's busy time in
 * a CPU profile of the `me` benchmark, with ~150 routes), so a request for a
 * fixed path (`/api/client/auth/me`) runs that route's chain, composed once,
 * from a lookup by path and method.
 * Only where the router would have run that very chain: a fixed path is taken
 * when no route registered before it matches it with its method;
 * anything else — other methods, HEAD, trailing slashes, other letter case,
 * 404 and 405 — goes through the router as before.
 */
function routerWithFixedPaths(router: Router<AppState>, fixedPaths: FixedPath[]): Middleware<AppState> {
  const byPath = new Map<string, Record<string, Middleware<AppState>>>();
  // each layer's path up to its first pattern character, without a trailing slash: a layer can match a path
  // only if the path starts with it (the router ignores case), so most of the ~150 × 300 pattern tests are skipped
  const literal = new Map(
    router.stack.map((other) => [
      other,
      typeof other.path === 'string'
        ? other.path
            .split(/[:*(){}[\]+?!\\]/, 1)[0]
            .replace(/\/+$/, '')
            .toLowerCase()
        : '',
    ]),
  );
  for (const { layer, method, path, chain } of fixedPaths) {
    const lower = path.toLowerCase();
    const shadowed = router.stack
      .slice(0, router.stack.indexOf(layer))
      .some(
        (other) =>
          (other.methods.length === 0 || other.methods.includes(method)) && lower.startsWith(literal.get(other)!) && other.match(path),
      );
    if (shadowed || byPath.get(path)?.[method]) continue;
    const methods = byPath.get(path) ?? {};
    methods[method] = chain;
    byPath.set(path, methods);
  }
  const routed = router.routes() as Middleware<AppState>;
  return (ctx, next) => {
    const chain = byPath.get(ctx.path)?.[ctx.method];
    if (chain === undefined) return routed(ctx, next);
    (ctx as { params?: Record<string, string> }).params = {};
    return chain(ctx, next);
  };
}

/** The authentication and role guard. */
function assertAllowed(spec: RouteSpec, ctx: AppContext): void {
  if (spec.auth === 'public') return;
  const actor = ctx.state.actor;
  if (!actor) throw ctx.state.authError ?? unauthorized();
  if (spec.auth === 'user' && actor.kind !== 'user') throw forbidden('This route is for client users');
  if (spec.auth === 'admin' && actor.kind !== 'admin') throw forbidden('This route is for system administrators');
  if (spec.permission && actor.kind === 'user' && !permitted(actor.roles, spec.permission)) throw forbidden();
}

/** After the guard: who may not call the route learns nothing about the license. */
async function assertLicensed(ctx: AppContext, feature: Feature): Promise<void> {
  const license = ctx.state.license ?? (await currentLicense(ctx.state.deps));
  if (!license.terms.features.includes(feature)) throw featureNotLicensed(feature);
}

/**
 * The query string as Koa's `ctx.query` gives it — each name once, repeated names as arrays, `+` a space,
 * percent-escapes decoded as UTF-8 (malformed ones as Koa decodes them), no limit on names — through Node's
 * querystring parser. Koa's goes through URLSearchParams and defines each property: a user-list page
 * spent about 10 µs of CPU there under load (CPU profile), for a two-name query.
 */
export function parseQuery(querystring: string): Record<string, string | string[] | undefined> {
  return parseQueryString(querystring, '&', '=', { maxKeys: 0 });
}

function parseParams(schema: z.ZodType, value: unknown): unknown {
  const result = schema.safeParse(value);
  if (!result.success) throw notFound();
  return result.data;
}

function rateLimiter(spec: RateLimitSpec, deps: AppDeps, namespace: string): Middleware {
  const resolve = (v: number | ((d: AppDeps) => number)) => (typeof v === 'function' ? v(deps) : v);
  // Each route keeps its own counters (its own store in memory, its own namespace in
  // PostgreSQL mode's shared store), keyed by IP unless the spec says otherwise.
  return rateLimit({
    store: sharedRateLimitStore(deps),
    namespace,
    max: resolve(spec.max),
    windowMs: resolve(spec.windowMs),
    id: (ctx) => (spec.key ? spec.key(ctx) : ctx.ip),
  });
}
