import { defineRoute, type RouteSpec } from '../../../route';
import type * as GraphQLHandler from '../../../../graphql/handler';

/**
 * GraphQL over HTTP at /api/client/graphql: POST for queries and mutations,
 * GET for queries only (GraphQL-over-HTTP lets caches and links use GET;
 * mutations over GET are refused with 405). Same bearer/cookie authentication
 * as REST; the schema is in schema.graphql at the repository root.
 */
const handler: RouteSpec['handler'] = async ({ ctx, deps, actor, meta }) => {
  // graphql, graphql-http and the schema's modules are loaded with the first GraphQL request, not at start-up
  const { serveGraphQL } = require('../../../../graphql/handler') as typeof GraphQLHandler;
  await serveGraphQL(ctx, deps, actor as never, meta);
  return undefined;
};

export const clientGraphqlRoutes: RouteSpec[] = [
  defineRoute({ method: 'post', path: '/api/client/graphql', summary: 'GraphQL endpoint (queries and mutations)', auth: 'user', feature: 'graphql', envelope: false, handler }),
  defineRoute({ method: 'get', path: '/api/client/graphql', summary: 'GraphQL endpoint (queries only)', auth: 'user', feature: 'graphql', envelope: false, handler }),
];
