import type { IncomingMessage } from 'node:http';
import type { RequestMeta } from '#services/actor';

/**
 * The user agent is stored with security events, sessions and agreement
 * acceptances, and a header may carry ~16 KiB of the caller's text: this much
 * tells clients apart.
 */
export const MAX_USER_AGENT_LENGTH = 512;

/** Who sent the request, as services record it. */
export function requestMeta(ctx: { ip: string; req: IncomingMessage; state: { requestId: string } }): RequestMeta {
  const userAgent = ctx.req.headers['user-agent'];
  return { ip: ctx.ip || null, userAgent: userAgent ? userAgent.slice(0, MAX_USER_AGENT_LENGTH) : null, requestId: ctx.state.requestId };
}
