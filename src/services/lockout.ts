import type { Deps } from '../deps';
import type { TenantScope } from '../db/tenant';
import { withTransaction } from '../db/transaction';
import { tooManyAttempts } from '../errors';
import {
  countAuthFailuresSince,
  deleteAuthFailures,
  deleteLockout,
  findActiveLockouts,
  insertAuthFailures,
  pruneAuthFailures,
  upsertLockout,
} from '../repos/auth-failures';
import { findUserByEmail, getUserById, normalizeEmail } from '../repos/users';
import { notFound } from '../errors';
import type { RequestMeta } from './actor';
import { recordEvent } from './events';

/**
 * Brute-force defence: failed sign-ins (and failed second factors) are counted
 * per account (its email, known or not, so a lock reveals nothing) and per IP.
 * `lockoutMaxFailures` (per email) or `lockoutIpMaxFailures` (per IP) failures
 * within `lockoutWindow` lock that key for `lockoutDuration`: 429
 * TOO_MANY_ATTEMPTS with Retry-After, even for the right password.
 */
const emailKey = (email: string) => `email:${normalizeEmail(email)}`;
const ipKey = (ip: string) => `ip:${ip}`;

function keysFor(email: string, ip: string | null): string[] {
  return ip ? [emailKey(email), ipKey(ip)] : [emailKey(email)];
}

/** @throws AppError TOO_MANY_ATTEMPTS while the email or the IP is locked */
export async function assertNotLocked(deps: Deps, email: string, meta: RequestMeta): Promise<void> {
  const now = deps.clock.now();
  const locks = await findActiveLockouts(deps.db.kysely, keysFor(email, meta.ip), now.toISOString());
  if (locks.length === 0) return;
  const until = Math.max(...locks.map((lock) => Date.parse(lock.locked_until)));
  throw tooManyAttempts(Math.ceil((until - now.getTime()) / 1000));
}

/**
 * Counts one failure for the email and the IP; locks whichever reached its
 * limit (recorded as a security event) and raises TOO_MANY_ATTEMPTS then.
 */
export async function recordFailedAttempt(
  deps: Deps,
  attempt: { email: string; reason: string; clientId?: number | null; userId?: number | null },
  meta: RequestMeta,
): Promise<void> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - deps.config.lockoutWindow).toISOString();
  const keys = keysFor(attempt.email, meta.ip);
  const limits = new Map([
    [emailKey(attempt.email), deps.config.lockoutMaxFailures],
    ...(meta.ip ? [[ipKey(meta.ip), deps.config.lockoutIpMaxFailures] as [string, number]] : []),
  ]);
  const lockedUntil = new Date(now.getTime() + deps.config.lockoutDuration).toISOString();
  const locked = await withTransaction(deps.db, async (trx) => {
    await pruneAuthFailures(trx, since);
    await insertAuthFailures(trx, keys, nowIso);
    const reached: string[] = [];
    for (const key of keys) {
      if ((await countAuthFailuresSince(trx, key, since)) >= limits.get(key)!) {
        await upsertLockout(trx, key, lockedUntil, nowIso);
        // the lock is the consequence; the count starts again when it ends
        await deleteAuthFailures(trx, key);
        reached.push(key);
      }
    }
    return reached;
  });
  await recordEvent(deps, {
    level: 'warn',
    event: 'auth.sign_in_failed',
    message: `Failed sign-in: ${attempt.reason}`,
    clientId: attempt.clientId,
    userId: attempt.userId,
    meta,
    data: { email: normalizeEmail(attempt.email), reason: attempt.reason },
  });
  if (locked.length > 0) {
    await recordEvent(deps, {
      level: 'warn',
      event: 'auth.lockout',
      message: `Sign-in locked until ${lockedUntil} after repeated failures`,
      clientId: attempt.clientId,
      userId: attempt.userId,
      meta,
      data: { email: normalizeEmail(attempt.email), keys: locked.map((k) => k.split(':')[0]), lockedUntil },
    });
    throw tooManyAttempts(Math.ceil(deps.config.lockoutDuration / 1000));
  }
}

/** A successful sign-in clears the account's failure count (not the IP's). */
export async function clearFailedAttempts(deps: Deps, email: string): Promise<void> {
  await deleteAuthFailures(deps.db.kysely, emailKey(email));
}

/**
 * Lifts the lock of a user's account (a Security Administrator, a system
 * administrator or the CLI). Returns whether a lock existed.
 * @throws AppError NOT_FOUND
 */
export async function unlockUser(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  by: { userId?: number; adminId?: number; via: string; meta?: RequestMeta },
): Promise<{ userId: number; email: string; wasLocked: boolean }> {
  const user = await getUserById(deps.db.kysely, scope, userId);
  const key = emailKey(user.email);
  const wasLocked = await withTransaction(deps.db, async (trx) => {
    await deleteAuthFailures(trx, key);
    return deleteLockout(trx, key);
  });
  await recordEvent(deps, {
    event: 'auth.unlocked',
    message: `Account unlocked (${by.via})`,
    clientId: scope.clientId,
    userId: user.id,
    adminId: by.adminId,
    meta: by.meta,
    data: { by: by.userId ?? null, wasLocked },
  });
  return { userId: user.id, email: user.email, wasLocked };
}

/** The CLI's form: the user named by email within a client. @throws AppError NOT_FOUND */
export async function unlockUserByEmail(deps: Deps, scope: TenantScope, email: string, by: { via: string }) {
  const user = await findUserByEmail(deps.db.kysely, scope, email);
  if (!user) throw notFound('User');
  return unlockUser(deps, scope, user.id, by);
}
