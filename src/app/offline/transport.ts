import { ApiError, requestLanguage } from '../api/client';
import { pendingSignOut } from '../api/sign-out-lock';
import { noteAnswer } from './server-clock';
/**
 * How the sync engine talks to the server: one request per queued item, with
 * its Idempotency-Key, and an answer sorted into what the engine does next.
 * It needs what a general fetch wrapper hides (no answer at all vs. an error
 * answer, the Idempotency-Replayed header, GraphQL error codes inside a 200),
 * so it speaks fetch itself — with the same session cookie and CSRF double
 * submit as every other request of the app.
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

const TIMEOUT_MS = 60_000;
const UPLOAD_TIMEOUT_MS = 300_000;
/** GraphQL codes worth another try: the mutation rolled back and may succeed later. */
const TRANSIENT_GRAPHQL = new Set(['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'RATE_LIMITED']);

export function csrfToken(): string {
  const match = /(?:^|;\s*)wip_csrf=([^;]+)/.exec(document.cookie);
  return match ? decodeURIComponent(match[1]) : '';
}

/** Counts every request the engine sends (the sync state shows it; the benchmark reads it). */
let sent = 0;
export const requestsSent = () => sent;

async function send(path: string, init: { body: BodyInit; key: string; json: boolean; timeoutMs: number }): Promise<Response | undefined> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf-token': csrfToken(), 'idempotency-key': init.key };
  if (init.json) headers['content-type'] = 'application/json';
  // signed out (src/app/api/sign-out-lock.ts): nothing more leaves in the user's name — as if offline
  if (pendingSignOut()) return undefined;
  sent++;
  const sentAt = Date.now();
  try {
    const response = await fetch(path, {
      method: 'POST',
      headers,
      body: init.body,
      credentials: 'same-origin',
      signal: AbortSignal.timeout(init.timeoutMs),
    });
    noteAnswer(response, sentAt, Date.now());
    return response;
  } catch {
    return undefined;
  }
}

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

/** A GraphQL mutation (its exact body text) → the field's data, or what went wrong. */
export async function sendMutation(body: string, key: string, field: string): Promise<Outcome> {
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
}

/** A photo upload (multipart; the key makes a resent upload answer with the first one's file). */
export async function sendUpload(blob: Blob, name: string, key: string): Promise<Outcome> {
  const form = new FormData();
  form.append('file', blob, name);
  return restOutcome(await send('/api/client/upload', { body: form, key, json: false, timeoutMs: UPLOAD_TIMEOUT_MS }));
}

/** A write lost with a restore and refused when sent again, reported (POST /api/client/sync/unapplied). */
export async function sendUnappliedReport(body: string, key: string): Promise<Outcome> {
  return restOutcome(await send('/api/client/sync/unapplied', { body, key, json: true, timeoutMs: TIMEOUT_MS }));
}

async function restOutcome(response: Response | undefined): Promise<Outcome> {
  if (!response) return { kind: 'network' };
  const parsed = await readJson(response);
  if (!response.ok || parsed?.success === false) return httpFailure(response, parsed);
  if (parsed === undefined) return { kind: 'network' };
  return { kind: 'ok', data: parsed.data, replayed: response.headers.get('idempotency-replayed') === 'true' };
}

/** Who the session cookie belongs to now (reconnecting: the session may have ended meanwhile), or why not known. */
export async function sessionUser(): Promise<{ id: number; clientId: number } | 'signed-out' | 'unreachable'> {
  if (pendingSignOut()) return 'signed-out';
  try {
    const sentAt = Date.now();
    const response = await fetch('/api/client/auth/me', {
      headers: { accept: 'application/json' },
      credentials: 'same-origin',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    noteAnswer(response, sentAt, Date.now());
    if (response.status === 401 || response.status === 403) return 'signed-out';
    if (!response.ok) return 'unreachable';
    const body = (await response.json()) as { data: { id: number; clientId: number } };
    return { id: body.data.id, clientId: body.data.clientId };
  } catch {
    return 'unreachable';
  }
}

/** A GraphQL query (read); throws when there is no usable answer (the caller falls back to what the device holds). */
export async function graphqlQuery<T, V extends Record<string, unknown> = Record<string, unknown>>(
  query: string,
  variables: V,
): Promise<T> {
  if (pendingSignOut()) throw new Error('Signed out');
  const sentAt = Date.now();
  const response = await fetch('/api/client/graphql', {
    method: 'POST',
    headers: {
      accept: 'application/json',
      'content-type': 'application/json',
      'x-csrf-token': csrfToken(),
      ...(requestLanguage() && { 'accept-language': requestLanguage()! }),
    },
    body: JSON.stringify({ query, variables }),
    credentials: 'same-origin',
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  noteAnswer(response, sentAt, Date.now());
  const body = (await response.json()) as Answer | null;
  if (!response.ok || !body?.data) {
    const error = body?.errors?.[0]?.extensions ?? body?.error;
    throw new ApiError(
      response.status,
      error?.code ?? 'ERROR',
      body?.errors?.[0]?.message ?? body?.error?.message ?? `The server answered ${response.status}`,
      [],
      error?.details ?? {},
    );
  }
  return body.data as T;
}
