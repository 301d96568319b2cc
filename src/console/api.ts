/**
 * The console's one way to the API: same-origin fetch with the session cookie,
 * the CSRF double submit on writes (the wip_csrf cookie echoed in
 * X-CSRF-Token), the envelope unwrapped. No token is ever kept in storage.
 * Routes are named by their path template in the OpenAPI document, and what
 * they answer is typed from it (`npm run build` writes the document's types to
 * dist/client/schema.d.ts before it checks the console):
 * `api('PUT', '/api/admin/client/{id}', { path: { id }, body: { name } })`.
 */
import type { paths } from '../../dist/client/schema';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type OperationOf<M extends Method, P extends keyof paths> = paths[P][Lowercase<M>];
/** the path templates that have an operation for the method */
type Routes<M extends Method> = { [P in keyof paths]: OperationOf<M, P> extends undefined ? never : P }[keyof paths];
type JsonOf<Response> = Response extends { content: { 'application/json': infer Json } } ? Json : never;
/** the envelope's `data`; an answer without the envelope (/healthz) as it is; no content (204): undefined */
type Unwrapped<Json> = [Json] extends [never] ? undefined : Json extends { success: true; data: infer Data } ? Data : Json;
type SuccessOf<Operation> = Operation extends { responses: infer Responses }
  ? Unwrapped<JsonOf<Responses[Extract<keyof Responses, 200 | 201 | 202 | 204>]>>
  : never;

/** What api() resolves to for a route of the OpenAPI document. */
export type Answer<M extends Method, P extends Routes<M>> = SuccessOf<OperationOf<M, P>>;

/** An element of a paginated route's `items`. */
export type Item<M extends Method, P extends Routes<M>> = Answer<M, P> extends Page<infer T> ? T : never;

export interface ApiRequest {
  /** the values of the path template's {names} */
  path?: Record<string, string | number>;
  /** the query string's values; undefined, null and '' are left out */
  query?: Record<string, string | number | null | undefined>;
  /** JSON, or FormData sent as multipart */
  body?: unknown;
}

export interface FieldProblem {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
  ) {
    super(message);
  }
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

function csrfToken(): string {
  const match = /(?:^|;\s*)wip_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

/** Query string of the defined values. */
export function query(values: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function api<M extends Method, P extends Routes<M>>(method: M, route: P, request: ApiRequest = {}): Promise<Answer<M, P>> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  let payload: BodyInit | undefined;
  const { body } = request;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(url(route, request), { method, headers, body: payload, credentials: 'same-origin' });
  const text = await response.text();
  let parsed: Envelope;
  try {
    parsed = (text ? JSON.parse(text) : {}) as Envelope;
  } catch {
    throw new ApiError(response.status, 'BAD_RESPONSE', `Unexpected answer (${response.status})`);
  }
  if (!response.ok || parsed.success === false) {
    const error = parsed.error ?? {};
    throw new ApiError(
      response.status,
      error.code ?? 'ERROR',
      error.message ?? `Request failed (${response.status})`,
      error.details?.fields ?? [],
    );
  }
  // /healthz and /readyz answer without the envelope; the document describes each answer as it is sent
  return ('success' in parsed ? parsed.data : parsed) as Answer<M, P>;
}

/** The route's template with its path values filled in, and the query string. */
function url(route: string, request: ApiRequest): string {
  const path = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.path?.[name];
    if (value === undefined) throw new Error(`${route}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
  return path + (request.query ? query(request.query) : '');
}

/** An error answer read outside api() (a download streamed by fetch): the envelope's error. */
export type ErrorBody = Pick<Envelope, 'error'>;

/** The parts of an answer read before its type is known: the envelope's success flag, data and error. */
interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string; details?: { fields?: FieldProblem[] } };
}
