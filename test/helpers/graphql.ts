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
export async function gql<T = any>(server: TestServer, token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<GraphQLResult<T>> {
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
