import type { ParameterizedContext } from 'koa';
import type { z } from 'zod';
import type { ErrorCode, AppError } from '#errors';
import type { Feature } from '#licensing/terms';
import type { CurrentLicense } from '#licensing/state';
import type { Permission } from '#policies/permissions';
import type { AppDeps } from '#workers';
import type { Actor, RequestMeta, SystemAdminActor, UserActor } from '#services/actor';
import type { RequestHeaderName, ResponseHeaderName } from './headers';
import type { BodyType } from './middleware/body-type';

/**
 * What a route is — its declaration (RouteSpec), as the route files write it
 * and the middleware and the OpenAPI document read it — and what a request
 * carries through the chain (AppState). Types and pure helpers only: the
 * helper that mounts declarations is route.ts.
 */

export type AuthMode = 'public' | 'user' | 'admin' | 'user-or-admin';

type ActorFor<A extends AuthMode> = A extends 'user'
  ? UserActor
  : A extends 'admin'
    ? SystemAdminActor
    : A extends 'user-or-admin'
      ? Actor
      : Actor | undefined;

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RateLimitSpec {
  /** requests allowed per window */
  max: number | ((deps: AppDeps) => number);
  windowMs: number | ((deps: AppDeps) => number);
  /** what one budget belongs to; default the client IP */
  key?: (ctx: AppContext) => string;
}

/** One budget per signed-in principal (user or system admin) for one route; the IP when nobody is signed in. */
export function principalBudget(name: string, max: number, windowMs: number): RateLimitSpec {
  return {
    max,
    windowMs,
    key: (ctx) => {
      const actor = ctx.state.actor;
      return `${name}:${actor?.kind === 'user' ? `user:${actor.userId}` : actor?.kind === 'admin' ? `admin:${actor.adminId}` : `ip:${ctx.ip}`}`;
    },
  };
}

export interface HandlerArgs<A extends AuthMode, B, Q, P> {
  actor: ActorFor<A>;
  body: B;
  query: Q;
  params: P;
  deps: AppDeps;
  meta: RequestMeta;
  ctx: AppContext;
}

export interface RouteSpec<
  A extends AuthMode = AuthMode,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  P extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  summary: string;
  auth: A;
  /** a user principal must hold one of the roles of this permission (src/policies/permissions.ts) */
  permission?: Permission;
  /** the license key must carry this feature (403 FEATURE_NOT_LICENSED otherwise); see the feature table in docs/operating/integrations.md */
  feature?: Feature;
  body?: B;
  query?: Q;
  params?: P;
  /**
   * The envelope's `data` on success (zod, like the input; presenters' schemas in src/presenters/schemas.ts).
   * The OpenAPI document describes it and the test suite checks every answer against it (test/helpers/openapi-exchange.ts).
   */
  response?: R;
  /**
   * The request body for the document where `body` cannot say it: a multipart upload's parts, GraphQL's
   * POST body (read by its handler). By media type; documentation only (the handler validates).
   */
  requestBody?: Readonly<Record<string, z.ZodType>>;
  /** the query parameters for the document where the handler reads them itself (GraphQL over GET) */
  documentedQuery?: z.ZodType;
  /** A success answered in another format than the envelope: a file, a CSV/NDJSON export, an event stream, a page, a redirect. */
  produces?: Produces;
  /** The OpenAPI operationId: a verb then a noun, camelCase (`signIn`, `listUsers`, `getTemplatePdf`); unique. */
  operationId?: string;
  /**
   * The error codes the handler (its service) may answer, beyond those the helper adds from the declaration
   * (auth → 401/403, path parameters → 404, a body → 400/413/415/422, a query → 422, a rate limit → 429, 500/503 always).
   */
  errors?: readonly ErrorCode[];
  /** response headers a success sends beyond the common ones (X-Request-Id; X-RateLimit-* with a rate limit) */
  sends?: readonly ResponseHeaderName[];
  /** request headers the route reads beyond the common ones (Accept-Language, X-Request-Id; Idempotency-Key on writes) */
  honours?: readonly RequestHeaderName[];
  /** success status; 200 unless set (201 for creations) */
  status?: number;
  /** other success statuses the handler answers with the same envelope (sign-up: 202 when a mail was sent) */
  otherStatuses?: readonly number[];
  /**
   * false: the handler answers in another documented format instead of the
   * envelope (GraphQL-over-HTTP's `{data, errors}`); errors raised before the
   * handler (401, 403, 429) still use the envelope.
   */
  envelope?: false;
  /** one budget, or several that all apply (e.g. per IP and per email) */
  rateLimit?: RateLimitSpec | RateLimitSpec[];
  /**
   * The route signs someone in (sets a session cookie or returns tokens):
   * refused from pages on untrusted origins, so a foreign page cannot sign the
   * victim's browser in as the attacker (login CSRF).
   */
  createsSession?: boolean;
  /**
   * A `public` route whose caller proves who it is another way (a signature over the body): checked after the guard
   * and before the body is validated, so a caller who cannot authenticate learns nothing — neither the body's rules
   * nor the server's configuration — beyond its 401.
   */
  authenticate?(args: { deps: AppDeps; actor: ActorFor<A>; ctx: AppContext }): void;
  /** the request body media type; default 'json' (any other body → 415 UNSUPPORTED_MEDIA_TYPE) */
  accepts?: BodyType;
  /** Cache-Control of successful answers; default `no-store` (set globally, see middleware/no-store) */
  cacheControl?: string;
  /** Returns the `data` of the envelope. A handler that streams sets ctx.body itself and returns undefined. */
  /** with a `response` schema, tsc checks the returned data against it (undefined: the handler answered itself) */
  handler(args: HandlerArgs<A, Infer<B>, Infer<Q>, Infer<P>>): Promise<R extends z.ZodType ? z.input<R> | undefined : unknown>;
}

/** The success answer of a route that does not answer the envelope. */
export interface Produces {
  /** its media type(s); `text/html`, `application/pdf`, `text/event-stream`, … */
  type?: string | readonly string[];
  /** the structure of a JSON or text body (e.g. /healthz); a file is described as binary */
  schema?: z.ZodType;
  /** answered with an ETag: 304 Not Modified to a matching If-None-Match */
  etag?: boolean;
  /** byte ranges: 206 Partial Content with Content-Range to a Range, 416 to one it cannot satisfy */
  ranges?: boolean;
  /** a download: Content-Disposition: attachment */
  attachment?: boolean;
  /** a redirect with Location (the route's `status`, 302 unless set) */
  redirect?: boolean;
}

export function defineRoute<
  A extends AuthMode,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<A, B, Q, P, R>): RouteSpec {
  return spec;
}

/**
 * A route known by its method and path before its declaration is loaded: the
 * router registers it at start, and its group's module (handler, schemas, the
 * services behind them) is loaded when it is first requested (see ROUTE_GROUPS).
 */
export interface LazyRoute {
  method: RouteSpec['method'];
  path: string;
  load(): RouteSpec;
}

export type MountableRoute = RouteSpec | LazyRoute;

/** The full declaration of a route (loads a lazy route's group). */
export function routeSpec(route: MountableRoute): RouteSpec {
  return 'load' in route ? route.load() : route;
}

/** What middleware leaves on ctx.state for the rest of the chain. */
export interface AppState {
  requestId: string;
  /** the hot path's check count when the request arrived (HotPathLookups.deploymentState) */
  hotPathChecks: number;
  deps: AppDeps;
  actor?: Actor;
  /** why a presented credential was refused; raised only by routes that need authentication */
  authError?: AppError;
  /** the matched route pattern, for logs and metrics */
  routePath?: string;
  /** the declarations of the routes this app mounts (the OpenAPI document describes exactly these); loads every route group */
  routes: () => readonly RouteSpec[];
  /** the license in force for this request (set by the license gate) */
  license?: CurrentLicense;
  /** a multipart body's content as read (readMultipart): its text fields and each file's SHA-256, hashed (Idempotency-Key) */
  bodyDigest?: string;
}

export type AppContext = ParameterizedContext<AppState>;
