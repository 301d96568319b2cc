import type { Middleware } from 'koa';
import { AppError, type ErrorCode } from '#errors';
import type { AppState } from '../state';
import { translatedErrorMessage } from '#services/i18n';
import { databaseErrorAnswer } from '#db/transaction';
import { sendJson } from '../json-body';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

const MESSAGE_BY_CODE: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'Malformed request body',
  PAYLOAD_TOO_LARGE: 'Request body too large',
  RATE_LIMITED: 'Too many requests; retry later',
  METHOD_NOT_ALLOWED: 'Method not allowed on this route',
};

/**
 * The one place errors become responses (called by the request frame): the
 * contract's envelope (docs/api/contract.md 2) with a code, never a stack trace. Unknown errors are logged
 * with the request id and answered 500 INTERNAL_ERROR.
 */
export async function errorResponse(ctx: Parameters<Middleware<AppState>>[0], caught: unknown): Promise<void> {
  const error = toAppError(caught);
  if (error.status >= 500) {
    ctx.state.deps.logger.error({ requestId: ctx.state.requestId, err: caught }, 'request failed');
  }
  const headers = (caught as { headers?: Record<string, string | number> }).headers;
  // a 4xx's headers (Retry-After with 429), and a 503's: Retry-After is what tells a client when to come back
  if (headers && (error.status < 500 || error.status === 503))
    for (const [name, value] of Object.entries(headers)) ctx.set(name, String(value));
  ctx.status = error.status;
  const message = (await localizedMessage(ctx, error)) ?? error.message;
  sendJson(ctx, {
    success: false,
    error: { message, code: error.code, ...(error.details !== undefined && { details: error.details }) },
  });
}

/**
 * The message in the caller's Accept-Language when a translation of the code
 * exists (namespace `errors`, the client's overrides included); the code never
 * changes. A failure to translate keeps the original message.
 */
async function localizedMessage(ctx: Parameters<Middleware<AppState>>[0], error: AppError): Promise<string | null> {
  const header = ctx.get('accept-language');
  if (!header || !ctx.state.deps) return null;
  const actor = ctx.state.actor;
  try {
    return await translatedErrorMessage(ctx.state.deps, header, actor?.kind === 'user' ? actor.clientId : null, error.code);
  } catch {
    return null;
  }
}

function toAppError(caught: unknown): AppError {
  if (caught instanceof AppError) return caught;
  const status = (caught as { status?: number; statusCode?: number }).status ?? (caught as { statusCode?: number }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const code = CODE_BY_STATUS[status] ?? 'BAD_REQUEST';
    const message = MESSAGE_BY_CODE[code] ?? ((caught as { expose?: boolean }).expose ? (caught as Error).message : 'Bad request');
    return new AppError(code, message, undefined, { status });
  }
  if (status === 503) return new AppError('SERVICE_UNAVAILABLE', 'Service temporarily unavailable');
  const answer = databaseErrorAnswer(caught);
  if (answer) return answer;
  return new AppError('INTERNAL_ERROR', 'Internal server error', undefined, { cause: caught });
}
