import os from 'node:os';
import type { Insertable, Kysely } from 'kysely';
import type { Deps } from '#deps';
import type { DB, LogLevel, LogsTable } from '#db/schema';
import type { AfterCommit } from '#db/transaction';
import { tenantScope } from '#db/tenant';
import { insertLog } from '#repos/logs';
import { findAdminById } from '#repos/system-admins';
import { findUserById } from '#repos/users';
import { isCredentialKey, REDACTED } from '#lib/redact';
import type { Actor, RequestMeta } from './actor';

/**
 * Who did it, stored with the event under the name it had then (the log still
 * says who after a rename or a deletion): a system administrator, a client
 * user, the CLI (named by the OS user who ran it) or the system itself (the
 * first start creating the first administrator).
 */
export type LogActor = { kind: 'admin' | 'user'; id: number; name: string } | { kind: 'cli' | 'system'; id: null; name: string };

export interface LogEntryInput {
  level?: LogLevel;
  /** dotted name: auth.sign_in, auth.sign_in_failed, auth.refresh_token_reuse, license.installed… */
  event: string;
  message: string;
  clientId?: number | null;
  userId?: number | null;
  adminId?: number | null;
  /**
   * Who did it. Omitted: the administrator of `adminId`, else the user of
   * `userId` (looked up by id); null: nobody known (an anonymous caller).
   */
  actor?: LogActor | null;
  meta?: Partial<RequestMeta>;
  /** event detail; never passwords, tokens or secrets */
  data?: Record<string, unknown>;
}

/** A user's name for the log: "First Last <email>", or the email alone. */
export function userActorName(user: { email: string; first_name?: string; last_name?: string }): string {
  const full = `${user.first_name ?? ''} ${user.last_name ?? ''}`.trim();
  return full ? `${full} <${user.email}>` : user.email;
}

/** The caller of a request, as an event's actor. */
export function logActorOf(actor: Actor): LogActor {
  return actor.kind === 'admin'
    ? { kind: 'admin', id: actor.adminId, name: actor.username }
    : { kind: 'user', id: actor.userId, name: userActorName(actor.user) };
}

/** The CLI's actor: the OS account that ran the command (the CLI needs no sign-in). */
export function cliActor(): LogActor {
  let name: string;
  try {
    name = os.userInfo().username;
  } catch {
    // no passwd entry for the uid (some containers)
    name = process.env.USER ?? `uid ${process.getuid?.() ?? '?'}`;
  }
  return { kind: 'cli', id: null, name };
}

/** Who made an administrative change, and from where (no request meta for the CLI). */
export interface ChangedBy {
  actor: LogActor;
  meta?: Partial<RequestMeta>;
}

/** The request's caller and meta, as the `by` of an administrative change. */
export function changedBy(actor: Actor, meta: RequestMeta): ChangedBy {
  return { actor: logActorOf(actor), meta };
}

/** An administrative change run from the CLI. */
export function changedByCli(): ChangedBy {
  return { actor: cliActor() };
}

async function resolveActor(deps: Deps, event: LogEntryInput): Promise<Pick<LogsTable, 'actor_kind' | 'actor_id' | 'actor_name'>> {
  if (event.actor !== undefined) {
    return event.actor
      ? { actor_kind: event.actor.kind, actor_id: event.actor.id, actor_name: event.actor.name }
      : { actor_kind: null, actor_id: null, actor_name: null };
  }
  if (event.adminId != null) {
    const admin = await findAdminById(deps.db.kysely, event.adminId);
    return { actor_kind: 'admin', actor_id: event.adminId, actor_name: admin?.username ?? null };
  }
  if (event.userId != null && event.clientId != null) {
    const user = await findUserById(deps.db.kysely, tenantScope(event.clientId), event.userId);
    return { actor_kind: 'user', actor_id: event.userId, actor_name: user ? userActorName(user) : null };
  }
  return { actor_kind: null, actor_id: null, actor_name: null };
}

function logRow(
  deps: Deps,
  level: LogLevel,
  event: LogEntryInput,
  actor: Pick<LogsTable, 'actor_kind' | 'actor_id' | 'actor_name'>,
): Insertable<LogsTable> {
  return {
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
    ...actor,
  };
}

function logLine(deps: Deps, level: LogLevel, event: LogEntryInput, actorName: string | null): void {
  deps.logger[level](
    {
      event: event.event,
      clientId: event.clientId,
      userId: event.userId,
      adminId: event.adminId,
      actor: actorName ?? undefined,
      requestId: event.meta?.requestId,
      ...event.data,
    },
    event.message,
  );
}

/**
 * Records an application or security event in the `logs` table (queried by
 * GET /api/admin/logs and `wip logs export`) and on the structured log.
 * A failure to record is logged, never thrown: auditing must not break sign-in.
 */
export async function recordLogEntry(deps: Deps, event: LogEntryInput): Promise<void> {
  const level = event.level ?? 'info';
  try {
    const actor = await resolveActor(deps, event);
    logLine(deps, level, event, actor.actor_name);
    await insertLog(deps.db.kysely, logRow(deps, level, event, actor));
    deps.signals.logWritten();
  } catch (error) {
    deps.logger.error({ err: error, event: event.event }, 'could not record event');
  }
}

/** One administrative change, as its security event. */
export interface AdminChange {
  /** dotted name, e.g. client.created, license.seats_changed */
  event: string;
  message: string;
  level?: LogLevel;
  clientId?: number | null;
  /** the user the change is about (a user the actor changed), for the log's userId filter */
  userId?: number | null;
  /** what was changed */
  target: { type: string; id: number | string | null };
  /**
   * The changed entity's fields before and after (presented shapes: what the
   * API answers, never hashes). Only fields that differ are recorded; a
   * credential-named field (password, secret, token, licenseKey…) records
   * only that it changed. null/omitted before: a creation; after: a deletion.
   */
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** further detail; never secrets */
  data?: Record<string, unknown>;
}

const TIMESTAMP_KEYS = new Set(['createdAt', 'updatedAt']);

/** The fields that differ (timestamps aside), as {field: {before, after}}; credentials as [redacted]. */
export function changedFields(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): Record<string, { before: unknown; after: unknown }> {
  const b = before ?? {};
  const a = after ?? {};
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    // the event carries its own time
    if (TIMESTAMP_KEYS.has(key)) continue;
    const was = b[key] ?? null;
    const is = a[key] ?? null;
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    changes[key] = isCredentialKey(key)
      ? { before: was === null ? null : REDACTED, after: is === null ? null : REDACTED }
      : { before: was, after: is };
  }
  return changes;
}

/** Where a change is recorded: in its transaction (with what to wake after commit), or on its own. */
export interface ChangeTx {
  deps: Deps;
  trx?: Kysely<DB>;
  afterCommit?: AfterCommit;
}

/**
 * The one way an administrative change leaves its security event: who
 * (actor id and name), what (event, target, the changed fields before and
 * after), from where (IP, user agent, request id). Given the change's
 * transaction the row is written in it — no change without its event, no
 * event for a change that rolled back — and the live tail is woken after
 * commit; without one (a change made by a single statement) it is written
 * right after, like recordLogEntry.
 */
export async function recordChange(tx: ChangeTx, by: ChangedBy, change: AdminChange): Promise<void> {
  const { deps } = tx;
  const level = change.level ?? 'info';
  const actor = by.actor;
  const event: LogEntryInput = {
    level,
    event: change.event,
    message: change.message,
    clientId: change.clientId ?? null,
    userId: change.userId ?? (actor.kind === 'user' ? actor.id : null),
    adminId: actor.kind === 'admin' ? actor.id : null,
    actor,
    meta: by.meta,
    data: {
      target: change.target,
      ...((change.before != null || change.after != null) && { changes: changedFields(change.before, change.after) }),
      ...change.data,
    },
  };
  if (!tx.trx) return recordLogEntry(deps, event);
  await insertLog(tx.trx, logRow(deps, level, event, { actor_kind: actor.kind, actor_id: actor.id, actor_name: actor.name }));
  const wake = () => {
    logLine(deps, level, event, actor.name);
    deps.signals.logWritten();
  };
  if (tx.afterCommit) tx.afterCommit(wake);
  else wake();
}
