/**
 * The console's one way to the API: same-origin fetch with the session cookie,
 * the CSRF double submit on writes (the wip_csrf cookie echoed in
 * X-CSRF-Token), the envelope unwrapped. No token is ever kept in storage.
 */

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
  return match ? decodeURIComponent(match[1]!) : '';
}

/** Query string of the defined values. */
export function query(values: Record<string, string | number | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text ? `?${text}` : '';
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken();
  let payload: BodyInit | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const response = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  const text = await response.text();
  let parsed: any;
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(response.status, 'BAD_RESPONSE', `Unexpected answer (${response.status})`);
  }
  if (!response.ok || parsed.success === false) {
    const error = parsed.error ?? {};
    throw new ApiError(response.status, error.code ?? 'ERROR', error.message ?? `Request failed (${response.status})`, error.details?.fields ?? []);
  }
  // /healthz and /readyz answer without the envelope
  return ('success' in parsed ? parsed.data : parsed) as T;
}
