import type { z } from 'zod';
import { validationFailed } from '#errors';

/** A field's problem as `details.fields` carries it (the VALIDATION_ERROR envelope). */
export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * Zod's issues as field problems, each path under `path` (`body`, `query`,
 * `input`, `content`…): `body.name`, `query.limit`. No `path` (or ''): the
 * issue's own path, as a service that parses a GraphQL argument names it.
 */
export function issueProblems(issues: z.ZodError['issues'], path?: string): FieldProblem[] {
  const prefix = path ? [path] : [];
  return issues.map((issue) => ({ path: [...prefix, ...issue.path.map(String)].join('.'), message: issue.message }));
}

/**
 * The value as the schema parses it, or a VALIDATION_ERROR naming every
 * failing field under `path` (see issueProblems): the one mapping of zod's
 * issues to the error envelope, for routes and services alike.
 */
export function parseOrFail<S extends z.ZodType>(schema: S, value: unknown, path?: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw validationFailed({ fields: issueProblems(parsed.error.issues, path) });
}
