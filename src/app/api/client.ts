import { pendingSignOut, unlockAfterSignOut } from './sign-out-lock';

/**
 * The floor app's one way to the API, as the console's (src/console/api.ts):
 * same-origin fetch with the session cookie, the CSRF double submit on writes
 * (the wip_csrf cookie echoed in X-CSRF-Token), the envelope unwrapped, every
 * failure one ApiError. No token is ever kept in storage.
 *
 * A 401 means the session has ended (signed out elsewhere, idle too long):
 * whoever listens through onSessionEnded (the shell) shows the sign-in page
 * and comes back to the page the user was on.
 */

export interface FieldProblem {
  path: string;
  message: string;
}

/**
 * Turns a refusal into the user's language (src/app/error-text.ts), set by
 * the shell with the texts: every ApiError's `message` is then the app's own
 * text for its code, the server's only where the app has none.
 */
export type ErrorLocalizer = (refusal: { code: string; message: string; details: Record<string, unknown> }) => string;
let localize: ErrorLocalizer | null = null;
export function setErrorLocalizer(localizer: ErrorLocalizer | null): void {
  localize = localizer;
}

export class ApiError extends Error {
  /** the server's own message (English, or its translation of the code), kept for logs and tests */
  readonly serverMessage: string;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: FieldProblem[] = [],
    readonly details: Record<string, unknown> = {},
  ) {
    super(localize ? localize({ code, message, details }) : message);
    this.serverMessage = message;
  }

  /** No answer at all: offline, or the server unreachable. */
  get offline(): boolean {
    return this.status === 0;
  }
}

function csrfToken(): string {
  const match = /(?:^|;\s*)wip_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

/**
 * Whether this browser holds a session's cookies at all: the CSRF cookie is set and cleared with the session's
 * (src/http/cookies.ts) and is the one a script can see. Without it nobody is signed in here, and asking the
 * server would only earn a 401 that the browser logs as an error in the console.
 */
export function hasSessionCookie(): boolean {
  return csrfToken() !== '';
}

/** Query string of the defined values. */
export function query(values: Record<string, string | number | boolean | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

type SessionListener = () => void;
const sessionEndedListeners = new Set<SessionListener>();

/** Called when a request answers 401 (the session ended); returns the unsubscribe. */
export function onSessionEnded(listener: SessionListener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

/**
 * The signed-in user's language (their setting, else the app's), sent as
 * Accept-Language with every request: error messages, and the PDFs' texts in
 * it (docs/translated-instructions.md). Set by the shell.
 */
let userLanguage: string | null = null;
export function setRequestLanguage(language: string | null): void {
  userLanguage = language;
}
export function requestLanguage(): string | null {
  return userLanguage;
}

export interface ApiOptions {
  /** extra request headers (Idempotency-Key, If-None-Match …) */
  headers?: Record<string, string>;
  /** a 401 is the caller's to handle (sign-in itself, the session probe): the shell is not told */
  quiet401?: boolean;
  signal?: AbortSignal;
}

const SIGN_OUT_PATH = '/api/client/auth/sign-out';

/**
 * Ends the session a sign-out left open (src/app/api/sign-out-lock.ts): the
 * sign-out request, and the lock lifted once the server has answered. A 401
 * (the session had ended anyway) or any other refusal also lifts it: nothing
 * more can be done for that session, and the next sign-in replaces its cookie.
 * No answer (offline, the server unreachable, a 5xx or 429): throws ApiError, the
 * lock stays and the next request tries again.
 */
export function completePendingSignOut(): Promise<void> {
  if (!pendingSignOut()) return Promise.resolve();
  // one at a time: a late answer to a second one could clear the cookie of a sign-in made meanwhile
  signingOut ??= sendSignOut().finally(() => (signingOut = undefined));
  return signingOut;
}

let signingOut: Promise<void> | undefined;

async function sendSignOut(): Promise<void> {
  let response: Response;
  try {
    response = await fetch(SIGN_OUT_PATH, {
      method: 'POST',
      headers: { accept: 'application/json', 'x-csrf-token': csrfToken() },
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'OFFLINE', 'No connection to the server');
  }
  await response.arrayBuffer().catch(() => undefined);
  if (response.status >= 500 || response.status === 429)
    throw new ApiError(response.status, 'ERROR', `Request failed (${response.status})`);
  unlockAfterSignOut();
}

export async function api<T = unknown>(method: string, path: string, body?: unknown, options: ApiOptions = {}): Promise<T> {
  // a sign-out still to reach the server goes first: nothing else leaves in the previous user's name
  await completePendingSignOut();
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(userLanguage && { 'accept-language': userLanguage }),
    ...options.headers,
  };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  let payload: BodyInit | undefined;
  if (body instanceof FormData || body instanceof Blob) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal: options.signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'OFFLINE', 'No connection to the server');
  }
  const text = await response.text();
  let parsed: Envelope;
  try {
    parsed = (text ? JSON.parse(text) : {}) as Envelope;
  } catch {
    throw new ApiError(response.status, 'BAD_RESPONSE', `Unexpected answer (${response.status})`);
  }
  if (!response.ok && Array.isArray(parsed.errors) && !parsed.error)
    throw graphqlError(parsed.errors[0] ?? { message: `Request failed (${response.status})` }, response.status);
  if (!response.ok || parsed.success === false) {
    const error = parsed.error ?? {};
    if (response.status === 401 && !options.quiet401) for (const listener of sessionEndedListeners) listener();
    throw new ApiError(
      response.status,
      error.code ?? 'ERROR',
      error.message ?? `Request failed (${response.status})`,
      error.details?.fields ?? [],
      error.details ?? {},
    );
  }
  return ('success' in parsed ? parsed.data : parsed) as T;
}

/** The parts of an answer read before its type is known: REST's envelope, or GraphQL's errors. */
interface Envelope {
  success?: boolean;
  data?: unknown;
  error?: { code?: string; message?: string; details?: { fields?: FieldProblem[] } & Record<string, unknown> };
  errors?: GraphQLErrorEntry[];
}

export interface GraphQLErrorEntry {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string; details?: { fields?: FieldProblem[] } & Record<string, unknown> };
}

/** The status REST answers for the same code (GraphQL answers 200 with errors): what a screen branches on. */
const STATUS_OF_CODE: Record<string, number> = {
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  VALIDATION_ERROR: 422,
  BAD_REQUEST: 400,
  TOO_MANY_REQUESTS: 429,
};

function graphqlError(entry: GraphQLErrorEntry, status?: number): ApiError {
  const ext = entry.extensions ?? {};
  const code = ext.code ?? 'GRAPHQL_ERROR';
  return new ApiError(STATUS_OF_CODE[code] ?? status ?? 400, code, entry.message, ext.details?.fields ?? [], ext.details ?? {});
}

/**
 * One GraphQL operation (POST /api/client/graphql, GraphQL-over-HTTP's
 * {data, errors}). The first error becomes an ApiError with the API's code
 * (`extensions.code`, the same codes as REST's envelope), so a screen handles
 * GraphQL and REST failures alike.
 */
export async function graphql<T = unknown, V extends Record<string, unknown> = Record<string, unknown>>(
  document: string,
  variables: V = {} as V,
  options: ApiOptions = {},
): Promise<T> {
  const answer = await api<{ data?: T; errors?: GraphQLErrorEntry[] }>(
    'POST',
    '/api/client/graphql',
    { query: document, variables },
    options,
  );
  const first = answer.errors?.[0];
  if (first) throw graphqlError(first);
  return answer.data as T;
}

/** A GraphQL global id (`Job:12`, as src/graphql/ids.ts makes them) from a type and a REST id. */
export function globalId(type: string, databaseId: number | string): string {
  return `${type}:${databaseId}`;
}
