import type { Deps } from '../deps';
import type { LogLevel } from '../db/schema';
import { insertLog } from '../repos/logs';
import type { RequestMeta } from './actor';

export interface AppEvent {
  level?: LogLevel;
  /** dotted name: auth.sign_in, auth.sign_in_failed, auth.refresh_token_reuse, license.installed… */
  event: string;
  message: string;
  clientId?: number | null;
  userId?: number | null;
  adminId?: number | null;
  meta?: Partial<RequestMeta>;
  /** event detail; never passwords, tokens or secrets */
  data?: Record<string, unknown>;
}

/**
 * Records an application or security event in the `logs` table (queried by
 * GET /api/admin/logs and `wip logs export`) and on the structured log.
 * A failure to record is logged, never thrown: auditing must not break sign-in.
 */
export async function recordEvent(deps: Deps, event: AppEvent): Promise<void> {
  const level = event.level ?? 'info';
  deps.logger[level](
    { event: event.event, clientId: event.clientId, userId: event.userId, adminId: event.adminId, requestId: event.meta?.requestId, ...event.data },
    event.message,
  );
  try {
    await insertLog(deps.db.kysely, {
      created_at: deps.clock.now().toISOString(),
      level,
      event: event.event,
      message: event.message,
      client_id: event.clientId ?? null,
      user_id: event.userId ?? null,
      admin_id: event.adminId ?? null,
      ip: event.meta?.ip ?? null,
      user_agent: event.meta?.userAgent ?? null,
      request_id: event.meta?.requestId ?? null,
      data: JSON.stringify(event.data ?? {}),
    });
    deps.logTail.notify();
  } catch (error) {
    deps.logger.error({ err: error, event: event.event }, 'could not record event');
  }
}
