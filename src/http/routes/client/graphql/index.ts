import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import type { ErrorCode } from '#errors';
import type * as GraphQLHandler from '#graphql/handler';

/**
 * GraphQL over HTTP at /api/client/graphql: POST for queries and mutations,
 * GET for queries only (GraphQL-over-HTTP lets caches and links use GET;
 * mutations over GET are refused with 405). Same bearer/cookie authentication
 * as REST; the schema is in schema.graphql at the repository root.
 */
const handler: RouteSpec['handler'] = async ({ ctx, deps, actor, meta }) => {
  // graphql, graphql-http and the schema's modules are loaded with the first GraphQL request, not at start-up
  const { serveGraphQL } = require('#graphql/handler') as typeof GraphQLHandler;
  await serveGraphQL(ctx, deps, actor as never, meta);
  return undefined;
};

/** A GraphQL-over-HTTP request (POST body; GET takes the same names as query parameters, variables as JSON text). */
const GraphqlRequest = z
  .object({
    query: z.string().describe('The GraphQL document'),
    variables: z.record(z.string(), z.unknown()).nullable().optional(),
    operationName: z.string().nullable().optional(),
    extensions: z.record(z.string(), z.unknown()).nullable().optional(),
  })
  .meta({ id: 'GraphqlRequest' });
const GraphqlQueryString = z.object({
  query: z.string().describe('The GraphQL document (queries only over GET)'),
  variables: z.string().optional().describe('JSON text'),
  operationName: z.string().optional(),
});
/** A GraphQL-over-HTTP answer: `data` and/or `errors` (error `extensions.code` carries the envelope's codes). */
const GraphqlResponse = z
  .object({
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    errors: z
      .array(
        z
          .object({
            message: z.string(),
            locations: z.array(z.object({ line: z.number().int(), column: z.number().int() })).optional(),
            path: z.array(z.union([z.string(), z.number().int()])).optional(),
            extensions: z.record(z.string(), z.unknown()).optional(),
          })
          .loose(),
      )
      .optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'GraphqlResponse' });
const GRAPHQL_ERRORS: ErrorCode[] = [
  'BAD_REQUEST',
  'QUERY_TOO_COMPLEX',
  'VALIDATION_ERROR',
  'METHOD_NOT_ALLOWED',
  'UNSUPPORTED_MEDIA_TYPE',
  'RATE_LIMITED',
];

export const clientGraphqlRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/graphql',
    operationId: 'postGraphql',
    requestBody: { 'application/json': GraphqlRequest },
    produces: { type: ['application/graphql-response+json', 'application/json'], schema: GraphqlResponse },
    errors: GRAPHQL_ERRORS,
    summary: 'GraphQL endpoint (queries and mutations)',
    auth: 'user',
    feature: 'graphql',
    envelope: false,
    handler,
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/graphql',
    operationId: 'getGraphql',
    documentedQuery: GraphqlQueryString,
    produces: { type: ['application/graphql-response+json', 'application/json'], schema: GraphqlResponse },
    errors: GRAPHQL_ERRORS,
    summary: 'GraphQL endpoint (queries only)',
    auth: 'user',
    feature: 'graphql',
    envelope: false,
    handler,
  }),
];
