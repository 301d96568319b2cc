import { GraphQLError } from 'graphql';
import { AppError } from '#errors';
import { databaseErrorAnswer } from '#db/transaction';
import type { Logger } from '#logger';

/**
 * The one GraphQL error formatter: an AppError leaves with its code in
 * `extensions.code` (the same codes as REST's envelope) and its details; a
 * GraphQL parse or validation error is BAD_REQUEST unless it carries its own
 * code (QUERY_TOO_COMPLEX); anything else is INTERNAL_ERROR with a generic
 * message, logged with the request id and cause.
 */
export function formatGraphQLError(logger: Logger) {
  return (raw: Readonly<GraphQLError | Error>): GraphQLError => {
    const error = raw instanceof GraphQLError ? raw : new GraphQLError(raw.message, { originalError: raw });
    const original = error.originalError;
    if (original instanceof AppError) {
      return withCode(error, original.message, original.code, original.details);
    }
    if (!original || original instanceof GraphQLError) {
      const code = typeof error.extensions?.code === 'string' ? error.extensions.code : 'BAD_REQUEST';
      return withCode(error, error.message, code);
    }
    const answer = databaseErrorAnswer(original);
    if (answer) return withCode(error, answer.message, answer.code);
    logger.error({ err: original, path: error.path }, 'GraphQL resolver failed');
    return withCode(error, 'Internal server error', 'INTERNAL_ERROR');
  };
}

function withCode(error: GraphQLError, message: string, code: string, details?: Record<string, unknown>): GraphQLError {
  const formatted = new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { code, ...(details && { details }) },
  });
  // a compiled query's (graphql-jit) errors carry their locations without AST nodes: kept as they are
  if (formatted.locations === undefined && error.locations !== undefined)
    (formatted as { locations?: unknown }).locations = error.locations;
  return formatted;
}
