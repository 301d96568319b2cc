import { createHandler, parseRequestParams, type Handler } from 'graphql-http';
import type { IncomingHttpHeaders } from 'node:http';
import {
  execute as interpret,
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Deps } from '#deps';
import type { RequestMeta, UserActor } from '#services/actor';
import type { AppContext } from '#http/state';
import { createContext, type GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { complexityRules, costLimit, validateWithinLimits } from './limits';
import { buildAppSchema } from './schema';
import { LruCache } from '#lib/lru';
import { TurnQueue } from '#lib/turn-queue';
import { AppError, badRequest } from '#errors';

interface RequestContext {
  deps: Deps;
  actor: UserActor;
  meta: RequestMeta;
  clientGone: () => boolean;
}

let schema: GraphQLSchema | undefined;
/** The schema is immutable and costly to build: built once, on first use. */
export function appSchema(): GraphQLSchema {
  return (schema ??= buildAppSchema());
}

/**
 * Parsed documents that passed validation, by their exact query text: a client
 * repeating a query (apps send the same few) skips parsing and the static
 * rules. Bounded in entries and in the length of a text worth keeping.
 */
const DOCUMENT_CACHE_SIZE = 500;
const MAX_CACHED_QUERY_LENGTH = 10_000;
interface ValidDocument {
  document: DocumentNode;
  /** a `first: $n` makes the cost depend on the variables: checked again on every request */
  costDependsOnVariables: boolean;
}
const documents = new LruCache<string, ValidDocument>(DOCUMENT_CACHE_SIZE);

/**
 * Operations of repeated documents compiled to JavaScript (graphql-jit), then
 * run without graphql-js walking the document on every request: about half of
 * a 50-job page's CPU. Compiling costs far more than one interpretation (3 ms
 * for that page's 150 characters, ~30 ms at 1,300, ~300 ms at 10,000), so only
 * a document run again (its second run and later) whose text is short enough
 * is compiled: a one-off query never pays it, and a compile stays within tens
 * of milliseconds (≤ ~70 ms measured at 2,500 characters). Keyed by the cached
 * document, so a compiled operation lives as long as its document stays in
 * the LRU; everything else is interpreted by graphql-js as before.
 */
const COMPILE_FROM_RUN = 2;
const MAX_COMPILED_QUERY_LENGTH = 2_500;
interface Compilable {
  runs: number;
  /** null: graphql-jit could not compile the operation */
  operations: Map<string, CompiledQuery | null>;
}
const compiled = new WeakMap<DocumentNode, Compilable>();

/** The document of a query, or the errors that refuse it (syntax, validation, depth, cost). */
function validDocument(query: string, variables: Record<string, unknown> | undefined): DocumentNode | readonly GraphQLError[] {
  const cached = documents.get(query);
  if (cached) {
    if (!cached.costDependsOnVariables) return cached.document;
    const errors = validateWithinLimits(appSchema(), cached.document, [costLimit(variables)]);
    return errors.length > 0 ? errors : cached.document;
  }
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) return [error];
    throw error;
  }
  const errors = validateWithinLimits(appSchema(), document, [...specifiedRules, ...complexityRules(variables)]);
  if (errors.length > 0) return errors;
  const costDependsOnVariables = document.definitions.some(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (d.variableDefinitions?.length ?? 0) > 0,
  );
  if (query.length <= MAX_CACHED_QUERY_LENGTH) {
    documents.set(query, { document, costDependsOnVariables });
    if (query.length <= MAX_COMPILED_QUERY_LENGTH) compiled.set(document, { runs: 0, operations: new Map() });
  }
  return document;
}

function compiledOperation(args: ExecutionArgs): CompiledQuery | undefined {
  const compilable = compiled.get(args.document);
  if (!compilable) return undefined;
  const name = args.operationName ?? '';
  const known = compilable.operations.get(name);
  if (known !== undefined) return known ?? undefined;
  if (++compilable.runs < COMPILE_FROM_RUN) return undefined;
  let operation: CompiledQuery | null = null;
  try {
    const compiledOrErrors = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    if (isCompiledQuery(compiledOrErrors)) operation = compiledOrErrors;
  } catch {
    // what graphql-jit refuses or cannot compile is interpreted (and not tried again)
  }
  compilable.operations.set(name, operation);
  return operation ?? undefined;
}

function executeDocument(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
  const operation = compiledOperation(args);
  if (!operation) return interpret(args);
  return operation.query(args.rootValue, args.contextValue, args.variableValues ?? {});
}

const handlers = new WeakMap<Deps, Handler<unknown, RequestContext>>();

function handlerFor(deps: Deps): Handler<unknown, RequestContext> {
  let handler = handlers.get(deps);
  if (!handler) {
    const queries = new TurnQueue(deps.config.graphqlConcurrency, deps.config.graphqlQueueMax);
    handler = createHandler<unknown, RequestContext, GraphQLContext>({
      schema: appSchema(),
      // A request without a usable query (a browser opening the URL, a body of `{}`) is refused by graphql-http with a
      // plain Error, which the formatter would take for a crash (INTERNAL_ERROR, logged with a stack): it is the
      // caller's mistake, answered 400 BAD_REQUEST with graphql-http's own words ("Missing query").
      parseRequestParams: async (req) => {
        try {
          return await parseRequestParams(req);
        } catch (error) {
          throw badRequest(error instanceof Error ? error.message : 'Bad request');
        }
      },
      // queries wait for their turn, first come first served (src/lib/turn-queue.ts); a mutation is not held behind reads
      execute: (args) => {
        if (getOperationAST(args.document, args.operationName)?.operation !== 'query') return executeDocument(args);
        const turn = queries.run(async () => {
          // the caller left while the query waited (a timeout, a closed tab): nothing to answer, no work done
          if ((args.contextValue as GraphQLContext).clientGone()) throw clientGone();
          return executeDocument(args);
        });
        if (!turn) throw queueFull();
        return turn;
      },
      // parsing and validation happen here (through the document cache), not in graphql-http
      onSubscribe: (req, params) => {
        const document = validDocument(params.query, params.variables ?? undefined);
        if (Array.isArray(document)) return document as GraphQLError[];
        return {
          schema: appSchema(),
          document: document as DocumentNode,
          operationName: params.operationName,
          variableValues: params.variables,
          contextValue: createContext(req.context.deps, req.context.actor, req.context.meta, req.context.clientGone),
        };
      },
      // a result without errors is written here: graphql-http serializes with a replacer (for Error objects), a
      // function call for every value written, about a third of serializing a page of 50 jobs; results with errors
      // (formatError's codes and logging) and every refusal still go through graphql-http
      // errors of fields that answered an incomplete value (context.ts partialErrors) join the result's
      onOperation: (req, args, result) => {
        const partial = (args.contextValue as GraphQLContext).partialErrors;
        if (partial.length > 0) return { ...result, errors: [...(result.errors ?? []), ...partial] };
        return result.errors
          ? undefined
          : ([
              JSON.stringify(result),
              {
                status: 200,
                statusText: 'OK',
                headers: { 'content-type': contentTypeFor((req.headers as ReturnType<typeof headerGetter>).get('accept')) },
              },
            ] as const);
      },
      formatError: formatGraphQLError(deps.logger),
    });
    handlers.set(deps, handler);
  }
  return handler;
}

/** More queries waiting than WIP_GRAPHQL_QUEUE_MAX: refused before any work, as the 503 envelope (like this route's 401 and 429). */
const queueFull = () =>
  new AppError('SERVICE_UNAVAILABLE', 'Too many GraphQL queries are waiting to run; retry shortly', undefined, {
    headers: { 'Retry-After': 1 },
  });

/** Logged as 503 (no answer reaches a closed connection). */
const clientGone = () => new AppError('SERVICE_UNAVAILABLE', 'The client closed the connection before its query ran');

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
    context: { deps, actor, meta, clientGone: () => ctx.req.socket.destroyed },
  });
  ctx.status = init.status;
  for (const [name, value] of Object.entries(init.headers ?? {})) if (typeof value === 'string') ctx.set(name, value);
  // as bytes: a string body is measured (its UTF-8 length) by Koa, then joined to the headers and encoded by
  // Node's write; a Buffer is measured by its length and written as it is — ≈ 20 µs less for a page of 50 jobs
  ctx.body = body ? Buffer.from(body) : '';
}

/**
 * The content type graphql-http answers a successful request with: the first Accept entry it serves, as it
 * picks it (graphql-http/lib/handler.js; a request accepting neither got its 406 before running).
 */
function contentTypeFor(accept: string | null): string {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8')
      return 'application/graphql-response+json; charset=utf-8';
    if (
      (mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    ) {
      return 'application/json; charset=utf-8';
    }
  }
  return 'application/json; charset=utf-8';
}

function headerGetter(headers: IncomingHttpHeaders) {
  return {
    get(key: string): string | null {
      const value = headers[key.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : (value ?? null);
    },
  };
}
