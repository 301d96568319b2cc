import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { tooManyAttempts } from '#errors';
import {
  countAuthFailuresSince,
  deleteAuthFailures,
  deleteLockout,
  findActiveLockouts,
  insertAuthFailures,
  pruneAuthFailures,
  pruneLockouts,
  upsertLockout,
} from '#repos/auth-failures';
import { findUserByEmail, getUserById, normalizeEmail } from '#repos/users';
import { notFound } from '#errors';
import type { RequestMeta } from './actor';
import { recordLogEntry, type LogActor } from './security-log';

/**
 * Brute-force defence: failed sign-ins (and failed second factors) are counted
 * per account and per IP. An account is a client user's email (known or not,
 * so a lock reveals nothing) or a system administrator's username.
 * `lockoutMaxFailures` (per account) or `lockoutIpMaxFailures` (per IP)
 * failures within `lockoutWindow` lock that key for `lockoutDuration`: 429
 * TOO_MANY_ATTEMPTS with Retry-After, even for the right password.
 */
export interface LockoutAccount {
  key: string;
  /** security events: a failed attempt, and the lock it caused */
  events: { failed: string; locked: string };
  /** how the failed attempt's event message starts */
  failure: string;
  /** what the events say about the account */
  data: Record<string, string>;
  /** the attempt is the signed-in account holder's own (a signature): its events name them as actor */
  byHolder?: boolean;
}

export function userAccount(email: string): LockoutAccount {
  const normalized = normalizeEmail(email);
  return {
    key: `email:${normalized}`,
    events: { failed: 'auth.sign_in_failed', locked: 'auth.lockout' },
    failure: 'Failed sign-in',
    data: { email: normalized },
  };
}

/**
 * An electronic signature re-authenticates its signer: a wrong password or
 * code counts toward the same lock as a failed sign-in of the account, but is
 * recorded as what it was, a failed signature (nobody was signing in).
 */
export function signatureAccount(email: string): LockoutAccount {
  return {
    ...userAccount(email),
    events: { failed: 'auth.signature_failed', locked: 'auth.lockout' },
    failure: 'Failed electronic signature',
    byHolder: true,
  };
}

export function adminAccount(username: string): LockoutAccount {
  return {
    key: `admin:${username}`,
    events: { failed: 'auth.admin_sign_in_failed', locked: 'auth.admin_lockout' },
    failure: 'Failed sign-in',
    data: { username },
  };
}

const ipKey = (ip: string) => `ip:${ip}`;

/** A refusal's reason may quote the caller (a SAML status message, a token's claim, body- or header-sized): the event log keeps this much of it. */
const MAX_REASON_LENGTH = 300;

function keysFor(account: LockoutAccount, ip: string | null): string[] {
  return ip ? [account.key, ipKey(ip)] : [account.key];
}

/** @throws AppError TOO_MANY_ATTEMPTS while the account or the IP is locked */
export async function assertAccountNotLocked(deps: Deps, account: LockoutAccount, meta: RequestMeta): Promise<void> {
  const now = deps.clock.now();
  const locks = await findActiveLockouts(deps.db.kysely, keysFor(account, meta.ip), now.toISOString());
  if (locks.length === 0) return;
  const until = Math.max(...locks.map((lock) => Date.parse(lock.locked_until)));
  throw tooManyAttempts(Math.ceil((until - now.getTime()) / 1000));
}

/** A client user's sign-in. @throws AppError TOO_MANY_ATTEMPTS while the email or the IP is locked */
export async function assertNotLocked(deps: Deps, email: string, meta: RequestMeta): Promise<void> {
  await assertAccountNotLocked(deps, userAccount(email), meta);
}

/**
 * Counts one failure for the account and the IP; locks whichever reached its
 * limit (recorded as a security event) and raises TOO_MANY_ATTEMPTS then.
 * @throws AppError TOO_MANY_ATTEMPTS when this failure locked a key
 */
export async function recordFailedSignIn(
  deps: Deps,
  account: LockoutAccount,
  attempt: { reason: string; clientId?: number | null; userId?: number | null; adminId?: number | null },
  meta: RequestMeta,
): Promise<void> {
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  const since = new Date(now.getTime() - deps.config.lockoutWindow).toISOString();
  const keys = keysFor(account, meta.ip);
  const limits = new Map([
    [account.key, deps.config.lockoutMaxFailures],
    ...(meta.ip ? [[ipKey(meta.ip), deps.config.lockoutIpMaxFailures] as [string, number]] : []),
  ]);
  const lockedUntil = new Date(now.getTime() + deps.config.lockoutDuration).toISOString();
  const locked = await withTransaction(deps.db, async (trx) => {
    await pruneAuthFailures(trx, since);
    await pruneLockouts(trx, nowIso);
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
  // a failed sign-in has no actor (nobody signed in: the account tried is the row's userId/adminId and
  // in data); a failed signature is the signed-in signer's own (actor: the user of userId)
  const who = {
    clientId: attempt.clientId,
    userId: attempt.userId,
    adminId: attempt.adminId,
    ...(!account.byHolder && { actor: null }),
    meta,
  };
  const reason = attempt.reason.length > MAX_REASON_LENGTH ? `${attempt.reason.slice(0, MAX_REASON_LENGTH)}…` : attempt.reason;
  await recordLogEntry(deps, {
    level: 'warn',
    event: account.events.failed,
    message: `${account.failure}: ${reason}`,
    ...who,
    data: { ...account.data, reason },
  });
  if (locked.length > 0) {
    await recordLogEntry(deps, {
      level: 'warn',
      event: account.events.locked,
      message: `Sign-in locked until ${lockedUntil} after repeated failures`,
      ...who,
      data: { ...account.data, keys: locked.map((k) => k.split(':')[0]), lockedUntil },
    });
    throw tooManyAttempts(Math.ceil(deps.config.lockoutDuration / 1000));
  }
}

/** A client user's failure (wrong password, unknown email, wrong second factor). @throws AppError TOO_MANY_ATTEMPTS */
export async function recordFailedAttempt(
  deps: Deps,
  attempt: { email: string; reason: string; clientId?: number | null; userId?: number | null },
  meta: RequestMeta,
): Promise<void> {
  await recordFailedSignIn(deps, userAccount(attempt.email), attempt, meta);
}

/** A successful sign-in clears the account's failure count (not the IP's). */
export async function clearFailedSignIns(deps: Deps, account: LockoutAccount): Promise<void> {
  await deleteAuthFailures(deps.db.kysely, account.key);
}

export async function clearFailedAttempts(deps: Deps, email: string): Promise<void> {
  await clearFailedSignIns(deps, userAccount(email));
}

/** Lifts an account's lock and forgets its failures; returns whether a lock existed. */
export async function unlockAccount(deps: Deps, account: LockoutAccount): Promise<boolean> {
  return withTransaction(deps.db, async (trx) => {
    await deleteAuthFailures(trx, account.key);
    return deleteLockout(trx, account.key);
  });
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
  by: { userId?: number; adminId?: number; actor: LogActor; via: string; meta?: RequestMeta },
): Promise<{ userId: number; email: string; wasLocked: boolean }> {
  const user = await getUserById(deps.db.kysely, scope, userId);
  const wasLocked = await unlockAccount(deps, userAccount(user.email));
  await recordLogEntry(deps, {
    event: 'auth.unlocked',
    message: `Account unlocked (${by.via})`,
    clientId: scope.clientId,
    userId: user.id,
    adminId: by.adminId,
    actor: by.actor,
    meta: by.meta,
    data: { by: by.userId ?? null, wasLocked },
  });
  return { userId: user.id, email: user.email, wasLocked };
}

/** The CLI's form: the user named by email within a client. @throws AppError NOT_FOUND */
export async function unlockUserByEmail(deps: Deps, scope: TenantScope, email: string, by: { via: string; actor: LogActor }) {
  const user = await findUserByEmail(deps.db.kysely, scope, email);
  if (!user) throw notFound('User');
  return unlockUser(deps, scope, user.id, by);
}
