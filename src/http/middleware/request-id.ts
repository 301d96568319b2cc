import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from '../state';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id; a sane incoming one is kept so traces join up across proxies. */
export function requestId(): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = SAFE_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  };
}
