/**
 * The one error type of the application and the one list of error codes.
 * Handlers throw these; the error-handler middleware renders the envelope.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  TOKEN_INVALID: 400,
  UNAUTHORIZED: 401,
  INVALID_CREDENTIALS: 401,
  TOKEN_EXPIRED: 401,
  TWO_FACTOR_INVALID: 401,
  SSO_FAILED: 401,
  FORBIDDEN: 403,
  SEPARATION_OF_DUTIES: 403,
  NOT_QUALIFIED: 403,
  ACCOUNT_DISABLED: 403,
  CSRF_FAILED: 403,
  SELF_SERVICE_DISABLED: 403,
  SIGN_UP_NOT_ALLOWED: 403,
  SSO_REQUIRED: 403,
  TWO_FACTOR_SETUP_REQUIRED: 403,
  LICENSE_EXPIRED: 403,
  MSA_NOT_ACCEPTED: 403,
  EULA_NOT_ACCEPTED: 403,
  FEATURE_NOT_LICENSED: 403,
  SIGNATURE_INVALID: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  CLIENT_SELECTION_REQUIRED: 409,
  INVALID_TRANSITION: 409,
  VERSION_NOT_EDITABLE: 409,
  NO_PUBLISHED_VERSION: 409,
  JOB_CLOSED: 409,
  JOB_NOT_FINISHED: 409,
  FILE_IN_USE: 409,
  GONE: 410,
  PAYLOAD_TOO_LARGE: 413,
  STORAGE_QUOTA_EXCEEDED: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
  REQUEST_TIMEOUT: 408,
  HEADERS_TOO_LARGE: 431,
  VALIDATION_ERROR: 422,
  REQUIRED_FIELDS_MISSING: 422,
  STEP_NOT_APPLICABLE: 422,
  SIGNOFF_MISSING: 422,
  COMMENT_REQUIRED: 422,
  ARCHIVE_INVALID: 422,
  QUERY_TOO_COMPLEX: 400,
  /** GraphQL only, beside a field's incomplete answer: the request's recurrence expansions ran out of steps */
  EXPANSION_BUDGET_EXCEEDED: 400,
  IDEMPOTENCY_KEY_INVALID: 400,
  IDEMPOTENCY_KEY_REUSED: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
  WEBHOOK_TARGET_REFUSED: 422,
  LICENSE_SEATS_EXHAUSTED: 422,
  LICENSE_CLIENTS_EXHAUSTED: 422,
  LICENSE_INVALID: 422,
  RATE_LIMITED: 429,
  TOO_MANY_ATTEMPTS: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  SSO_UNAVAILABLE: 503,
  INTEGRATION_NOT_CONFIGURED: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    options?: { cause?: unknown; status?: number; headers?: Record<string, string | number> },
  ) {
    super(message, { cause: options?.cause });
    this.name = 'AppError';
    this.status = options?.status ?? ERROR_STATUS[code];
    this.headers = options?.headers;
  }
  /** response headers the error handler sets with a 4xx (e.g. Retry-After) */
  readonly headers?: Record<string, string | number>;
}

export const badRequest = (message = 'Bad request', details?: Record<string, unknown>) => new AppError('BAD_REQUEST', message, details);
export const unauthorized = (message = 'Authentication required') => new AppError('UNAUTHORIZED', message);
export const invalidCredentials = () => new AppError('INVALID_CREDENTIALS', 'Invalid email or password');
/** An electronic signature's re-authentication failed: the signer typed a password or a code, never an email. */
export const invalidSignature = () => new AppError('INVALID_CREDENTIALS', 'Invalid password or code');
export const tokenExpired = () => new AppError('TOKEN_EXPIRED', 'Token has expired');
export const forbidden = (message = 'Insufficient permissions') => new AppError('FORBIDDEN', message);
export const notFound = (what = 'Resource') => new AppError('NOT_FOUND', `${what} not found`);
export const conflict = (message: string, details?: Record<string, unknown>) => new AppError('CONFLICT', message, details);
export const validationFailed = (details: Record<string, unknown>, message = 'Validation failed') =>
  new AppError('VALIDATION_ERROR', message, details);
export const seatsExhausted = (licenseType: string) =>
  new AppError('LICENSE_SEATS_EXHAUSTED', `No free seat of license type "${licenseType}"`, { licenseType });
export const tokenInvalid = () => new AppError('TOKEN_INVALID', 'The link is invalid, expired or already used');
export const tooManyAttempts = (retryAfterSeconds: number) =>
  new AppError(
    'TOO_MANY_ATTEMPTS',
    'Too many failed attempts; try again later',
    { retryAfter: retryAfterSeconds },
    {
      headers: { 'Retry-After': Math.max(1, retryAfterSeconds) },
    },
  );
export const twoFactorInvalid = () => new AppError('TWO_FACTOR_INVALID', 'Invalid or already used two-factor code');
export const licenseSeatsExhausted = (licenseType: string, total: number, allocated: number) =>
  new AppError(
    'LICENSE_SEATS_EXHAUSTED',
    `The license allows ${total} "${licenseType}" seats in total; allocations would reach ${allocated}`,
    { licenseType, total, allocated },
  );
export const licenseClientsExhausted = (maxClients: number) =>
  new AppError('LICENSE_CLIENTS_EXHAUSTED', `The license allows at most ${maxClients} clients`, { maxClients });
export const licenseInvalid = (reason: string, message: string, hint?: string) =>
  new AppError('LICENSE_INVALID', `Invalid license key: ${message}${hint ? `. ${hint}` : ''}`, hint ? { reason, hint } : { reason });
export const licenseExpired = (details: Record<string, unknown>) =>
  new AppError('LICENSE_EXPIRED', 'The license has expired: the appliance is read-only until a new license key is installed', details);
export const msaNotAccepted = (version: string) =>
  new AppError('MSA_NOT_ACCEPTED', 'The master services agreement must be accepted for this client first', { version });
export const eulaNotAccepted = (version: string) =>
  new AppError('EULA_NOT_ACCEPTED', 'The end-user license agreement must be accepted first', { version });
/** The resource was removed for good; `details.replacements` names what to use instead. */
export const gone = (message: string, details: Record<string, unknown>) => new AppError('GONE', message, details);
export const serviceUnavailable = (message = 'Service temporarily unavailable') => new AppError('SERVICE_UNAVAILABLE', message);

export const featureNotLicensed = (feature: string) =>
  new AppError('FEATURE_NOT_LICENSED', `The license key does not include the "${feature}" feature`, { feature });
/** `integration` names the settings to set (docs/operating/integrations.md). */
export const integrationNotConfigured = (integration: string, settings: string[]) =>
  new AppError('INTEGRATION_NOT_CONFIGURED', `The ${integration} integration is not configured`, { integration, settings });
/** The upstream failed or answered outside its contract; `details.upstreamStatus` is its HTTP status (null: no answer). */
export const upstreamError = (integration: string, upstreamStatus: number | null, reason: string) =>
  new AppError('UPSTREAM_ERROR', `The ${integration} upstream failed: ${reason}`, { integration, upstreamStatus });

/** One field's failure, in the shape `details.fields` uses everywhere. */
export function fieldError(field: string, message: string): AppError {
  return validationFailed({ fields: [{ path: field, message }] });
}
