import type { JobData } from './job-types';
import type { OperatorJobQuery, OperatorJobQueryVariables } from '../api/operation-types';
import type { ServerClock } from './server-clock';
/**
 * How the sync engine talks to the server: one request per queued item, with
 * its Idempotency-Key, and an answer sorted into what the engine does next.
 * It needs what a general fetch wrapper hides (no answer at all vs. an error
 * answer, the Idempotency-Replayed header, GraphQL error codes inside a 200),
 * so it speaks fetch itself — with the same session cookie and CSRF double
 * submit as every other request of the app. The engine is given a
 * SyncTransport (offline/sync.ts createSyncEngine); createHttpTransport is the
 * real one, in the app (offline/device.ts) and in Node tests alike.
 */

export type Outcome =
  /** applied (or applied before: `replayed`) */
  | { kind: 'ok'; data: unknown; replayed: boolean }
  /** no answer (offline, connection lost, timeout): it may or may not have applied — resend the same bytes, same key */
  | { kind: 'network' }
  /** the session ended or is not the queue's user: wait for sign-in */
  | { kind: 'signin' }
  /** the server could not take it now; `newKey`: the key holds an error answer (GraphQL), so the retry needs a fresh one */
  | { kind: 'retry'; newKey: boolean; afterMs: number }
  /** CONFLICT: the job moved on (stale expectedRevision) — nothing applied */
  | { kind: 'conflict'; code: string; message: string }
  /** refused for good (validation, job closed, forbidden…) — nothing applied; `details` as the server gave them */
  | { kind: 'refused'; code: string; message: string; details?: Record<string, unknown> };

/** What the sync engine asks of the server. */
export interface SyncTransport {
  /** A GraphQL mutation (its exact body text) → the field's data, or what went wrong. */
  sendMutation: (body: string, key: string, field: string) => Promise<Outcome>;
  /** A photo upload (multipart; the key makes a resent upload answer with the first one's file). */
  sendUpload: (blob: Blob, name: string, key: string) => Promise<Outcome>;
  /** A write lost with a restore and refused when sent again, reported (POST /api/client/sync/unapplied). */
  sendUnappliedReport: (body: string, key: string) => Promise<Outcome>;
  /** Who the session belongs to now (reconnecting: the session may have ended meanwhile), or why not known. */
  sessionUser: () => Promise<{ id: number; clientId: number } | 'signed-out' | 'unreachable'>;
  /** The job as the server has it now (null: none such); throws when there is no usable answer. */
  readJob: (jobId: string) => Promise<JobData | null>;
  /** What identifies the session now (the CSRF cookie): it changes with the session (another sign-in, in any tab). */
  sessionMark: () => string;
  /** Counts every request the engine sent (the sync state shows it; the benchmark reads it). */
  requestsSent: () => number;
}

/** A GraphQL read that had no usable answer (the caller falls back to what the device holds). */
class TransportError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

export interface HttpTransportDeps {
  /** the server's origin ('' in the app: the page's own) */
  baseUrl: string;
  /** fetch carrying the session cookie (the app's: same-origin credentials) */
  fetch: typeof fetch;
  /** the CSRF cookie's value, sent back as x-csrf-token (double submit) */
  csrfToken: () => string;
  /** signed out (src/app/api/sign-out-lock.ts): nothing more leaves in the user's name — as if offline */
  signedOut: () => boolean;
  serverClock: ServerClock;
  /** the device's clock, in ms (the server clock's round trip) */
  now: () => number;
  /** the language reads ask for (null: the server's default) */
  language: () => string | null;
  /** the job query the app reads a job with (offline/job-data.ts jobQuery) */
  jobQuery: () => Promise<string>;
}

const TIMEOUT_MS = 60_000;
const UPLOAD_TIMEOUT_MS = 300_000;
/** GraphQL codes worth another try: the mutation rolled back and may succeed later. */
const TRANSIENT_GRAPHQL = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

/** The parts of an answer the engine reads: REST's envelope, GraphQL's data and errors; `data` is the caller's. */
interface Answer {
  success?: boolean;
  data?: Record<string, unknown> | null;
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
  errors?: { message?: string; extensions?: { code?: string; details?: Record<string, unknown> } }[];
}

async function readJson(response: Response): Promise<Answer | undefined> {
  try {
    return (await response.json()) as Answer;
  } catch {
    return undefined;
  }
}

/** An answer that is not a success, by HTTP status and envelope code. */
function httpFailure(response: Response, body: Answer | undefined): Outcome {
  const code = body?.error?.code ?? `HTTP_${response.status}`;
  const message = body?.error?.message ?? `The server answered ${response.status}`;
  if (response.status === 401 || code === 'CSRF_FAILED') return { kind: 'signin' };
  const retryAfter = Number(response.headers.get('retry-after'));
  const afterMs = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 2000;
  if (code === 'IDEMPOTENCY_IN_PROGRESS' || response.status === 429 || response.status >= 500)
    return { kind: 'retry', newKey: false, afterMs };
  if (response.status === 409 && code === 'CONFLICT') return { kind: 'conflict', code, message };
  return { kind: 'refused', code, message, details: body?.error?.details };
}

async function restOutcome(response: Response | undefined): Promise<Outcome> {
  if (!response) return { kind: 'network' };
  const parsed = await readJson(response);
  if (!response.ok || parsed?.success === false) return httpFailure(response, parsed);
  if (parsed === undefined) return { kind: 'network' };
  return { kind: 'ok', data: parsed.data, replayed: response.headers.get('idempotency-replayed') === 'true' };
}

/** The transport over HTTP: the server's GraphQL and REST endpoints, with the session cookie the given fetch carries. */
export function createHttpTransport(deps: HttpTransportDeps): SyncTransport & {
  graphqlQuery<T, V extends Record<string, unknown> = Record<string, unknown>>(query: string, variables: V): Promise<T>;
} {
  let sent = 0;

  /** One request, its answer noted by the server clock; undefined when no answer came (or signed out). */
  async function call(path: string, init: RequestInit & { timeoutMs: number }): Promise<Response | undefined> {
    const { timeoutMs, ...rest } = init;
    const sentAt = deps.now();
    try {
      const response = await deps.fetch(`${deps.baseUrl}${path}`, { ...rest, signal: AbortSignal.timeout(timeoutMs) });
      deps.serverClock.noteAnswer(response.headers, sentAt, deps.now());
      return response;
    } catch {
      return undefined;
    }
  }

  async function send(
    path: string,
    init: { body: string | FormData; key: string; json: boolean; timeoutMs: number },
  ): Promise<Response | undefined> {
    const headers: Record<string, string> = { accept: 'application/json', 'x-csrf-token': deps.csrfToken(), 'idempotency-key': init.key };
    if (init.json) headers['content-type'] = 'application/json';
    if (deps.signedOut()) return undefined;
    sent++;
    return call(path, { method: 'POST', headers, body: init.body, timeoutMs: init.timeoutMs });
  }

  async function graphqlQuery<T, V extends Record<string, unknown> = Record<string, unknown>>(query: string, variables: V): Promise<T> {
    if (deps.signedOut()) throw new Error('Signed out');
    const language = deps.language();
    const headers: Record<string, string> = {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-csrf-token': deps.csrfToken(),
      ...(language && { 'accept-language': language }),
    };
    const sentAt = deps.now();
    const response = await deps.fetch(`${deps.baseUrl}/api/client/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    deps.serverClock.noteAnswer(response.headers, sentAt, deps.now());
    const body = (await response.json()) as Answer | null;
    if (!response.ok || !body?.data) {
      const error = body?.errors?.[0]?.extensions ?? body?.error;
      throw new TransportError(
        response.status,
        error?.code ?? 'ERROR',
        body?.errors?.[0]?.message ?? body?.error?.message ?? `The server answered ${response.status}`,
        error?.details ?? {},
      );
    }
    return body.data as T;
  }

  return {
    graphqlQuery,
    requestsSent: () => sent,
    sessionMark: () => deps.csrfToken(),

    async sendMutation(body, key, field) {
      const response = await send('/api/client/graphql', { body, key, json: true, timeoutMs: TIMEOUT_MS });
      if (!response) return { kind: 'network' };
      const parsed = await readJson(response);
      if (!response.ok) return httpFailure(response, parsed);
      if (parsed === undefined) return { kind: 'network' };
      const replayed = response.headers.get('idempotency-replayed') === 'true';
      const data = parsed.data?.[field];
      if (data) return { kind: 'ok', data, replayed };
      const error = parsed.errors?.[0] ?? {};
      const code = error.extensions?.code ?? 'ERROR';
      const message = error.message ?? 'The server refused the change';
      if (code === 'CONFLICT') return { kind: 'conflict', code, message };
      if (TRANSIENT_GRAPHQL.has(code)) return { kind: 'retry', newKey: true, afterMs: 2000 };
      return { kind: 'refused', code, message, details: error.extensions?.details };
    },

    async sendUpload(blob, name, key) {
      const form = new FormData();
      form.append('file', blob, name);
      return restOutcome(await send('/api/client/upload', { body: form, key, json: false, timeoutMs: UPLOAD_TIMEOUT_MS }));
    },

    async sendUnappliedReport(body, key) {
      return restOutcome(await send('/api/client/sync/unapplied', { body, key, json: true, timeoutMs: TIMEOUT_MS }));
    },

    async sessionUser() {
      if (deps.signedOut()) return 'signed-out';
      const response = await call('/api/client/auth/me', { headers: { accept: 'application/json' }, timeoutMs: TIMEOUT_MS });
      if (!response) return 'unreachable';
      if (response.status === 401 || response.status === 403) return 'signed-out';
      if (!response.ok) return 'unreachable';
      try {
        const body = (await response.json()) as { data: { id: number; clientId: number } };
        return { id: body.data.id, clientId: body.data.clientId };
      } catch {
        return 'unreachable';
      }
    },

    async readJob(jobId) {
      const { job } = await graphqlQuery<OperatorJobQuery, OperatorJobQueryVariables>(await deps.jobQuery(), {
        id: jobId,
        language: deps.language(),
      });
      return job;
    },
  };
}
