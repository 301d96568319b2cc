import type { TestServer } from './server';

export interface GraphQLResult<T = any> {
  status: number;
  data: T | null | undefined;
  errors: { message: string; path?: (string | number)[]; extensions?: { code?: string; details?: any } }[] | undefined;
  /** the error codes in order, for short assertions */
  codes: string[];
  body: any;
}

/** One GraphQL-over-HTTP request through real HTTP, as a client app sends it. */
export async function gql<T = any>(
  server: TestServer,
  token: string | undefined,
  query: string,
  variables?: Record<string, unknown>,
): Promise<GraphQLResult<T>> {
  const res = await server.request('POST', '/api/client/graphql', {
    token,
    body: { query, variables },
    headers: { accept: 'application/graphql-response+json, application/json' },
  });
  const errors = res.body?.errors;
  return {
    status: res.status,
    data: res.body?.data,
    errors,
    codes: (errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code ?? ''),
    body: res.body,
  };
}

/**
 * The global id of an object REST names by its integer id (`gid('Job', 5)` → `Job:5`): what GraphQL arguments take.
 * Tests build them from REST's ids; a client reads them from `id` fields.
 */
export function gid(type: string, databaseId: number | string): string {
  return `${type}:${databaseId}`;
}

/** `input` with the numbers at `types`' keys (or in their lists) turned into global ids of those types; other values as they are. */
export function withGlobalIds<T extends Record<string, unknown>>(input: T, types: Record<string, string>): T {
  const out: Record<string, unknown> = { ...input };
  for (const [key, type] of Object.entries(types)) {
    const value = out[key];
    if (typeof value === 'number') out[key] = gid(type, value);
    else if (Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'number' ? gid(type, v) : v));
  }
  return out as T;
}
