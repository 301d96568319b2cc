import { createHandler, type Handler } from 'graphql-http';
import type { IncomingHttpHeaders } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import type { Deps } from '../deps';
import type { RequestMeta, UserActor } from '../services/actor';
import type { AppContext } from '../http/state';
import { createContext, type GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { complexityRules, validateWithinLimits } from './limits';
import { buildAppSchema } from './schema';

interface RequestContext {
  deps: Deps;
  actor: UserActor;
  meta: RequestMeta;
}

let schema: GraphQLSchema | undefined;
/** The schema is immutable and costly to build: built once, on first use. */
export function appSchema(): GraphQLSchema {
  return (schema ??= buildAppSchema());
}

const handlers = new WeakMap<Deps, Handler<unknown, RequestContext>>();

function handlerFor(deps: Deps): Handler<unknown, RequestContext> {
  let handler = handlers.get(deps);
  if (!handler) {
    handler = createHandler<unknown, RequestContext, GraphQLContext>({
      schema: appSchema(),
      context: (req) => createContext(req.context.deps, req.context.actor, req.context.meta),
      validate: validateWithinLimits,
      validationRules: (_req, args, specifiedRules) => [...specifiedRules, ...complexityRules(args.variableValues ?? undefined)],
      formatError: formatGraphQLError(deps.logger),
    });
    handlers.set(deps, handler);
  }
  return handler;
}

/**
 * Serves one GraphQL-over-HTTP request. Authentication already happened (the
 * route requires a user, so no, bad or expired tokens got the 401 envelope);
 * the answer is GraphQL-over-HTTP's `{data, errors}`, the one documented
 * exception to the envelope.
 */
export async function serveGraphQL(ctx: AppContext, deps: Deps, actor: UserActor, meta: RequestMeta): Promise<void> {
  const [body, init] = await handlerFor(deps)({
    method: ctx.method,
    url: ctx.url,
    headers: headerGetter(ctx.headers),
    // koa-body has already parsed a JSON body; graphql-http accepts the parsed object
    body: () => (ctx.request as { body?: unknown }).body as never,
    raw: undefined,
    context: { deps, actor, meta },
  });
  ctx.status = init.status;
  for (const [name, value] of Object.entries(init.headers ?? {})) if (typeof value === 'string') ctx.set(name, value);
  ctx.body = body ?? '';
}

function headerGetter(headers: IncomingHttpHeaders) {
  return {
    get(key: string): string | null {
      const value = headers[key.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    },
  };
}
