import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type QRCode from 'qrcode';
import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import { withTransaction } from '#db/transaction';
import { conflict, fieldError, forbidden, invalidCredentials, twoFactorInvalid } from '#errors';
import { SecretBox } from '#lib/secret-box';
import { hashToken } from '#lib/tokens';
import { twoFactorResetMail } from '#mail/templates';
import { SECURITY_ADMIN } from '#policies/roles';
import {
  advanceTwoFactorStep,
  deleteTwoFactor,
  enableTwoFactorRow,
  findTwoFactor,
  replacePendingTwoFactor,
  replaceRecoveryCodes,
} from '#repos/two-factor';
import { getUserById } from '#repos/users';
import type { RequestMeta, UserActor } from './actor';
import { logActorOf, recordLogEntry } from './security-log';
import { queueMail } from './mail';

// TOTP (RFC 6238): SHA-1, 6 digits, 30 s steps, ±1 step of clock drift.
const ISSUER = 'wip';
const PERIOD = 30;
const DRIFT_WINDOW = 1;
const RECOVERY_CODE_COUNT = 10;

const box = (deps: Deps) => new SecretBox(deps.secrets.jwtSecret, 'totp-secret');

function totpFor(secretBase32: string, label: string): TOTP {
  return new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(secretBase32) });
}

/** 10 random base32 characters in two groups (50 bits): e.g. `k3f9q-x7m2p`. */
function newRecoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}
const normalizeRecoveryCode = (code: string) => code.trim().toLowerCase().replace(/[\s-]/g, '');

export async function isTwoFactorEnabled(deps: Deps, scope: TenantScope, userId: number): Promise<boolean> {
  const row = await findTwoFactor(deps.db.kysely, scope, userId);
  return Boolean(row?.enabled_at);
}

export interface TwoFactorSetup {
  secret: string;
  otpauthUri: string;
  qrCodeDataUrl: string;
  period: number;
  digits: number;
}

/**
 * Starts enrolment after re-checking the password: a new secret, returned as
 * an otpauth:// URI and a QR code. Not active until enabled with a code.
 * @throws AppError INVALID_CREDENTIALS, CONFLICT (already enabled: reset first)
 */
export async function setupTwoFactor(deps: Deps, actor: UserActor, password: string): Promise<TwoFactorSetup> {
  const user = await getUserById(deps.db.kysely, actor.scope, actor.userId);
  if (!user.password_hash || !(await deps.passwords.verify(password, user.password_hash))) throw invalidCredentials();
  const existing = await findTwoFactor(deps.db.kysely, actor.scope, actor.userId);
  const alreadyEnabled = () => conflict('Two-factor authentication is already enabled; reset it first');
  if (existing?.enabled_at) throw alreadyEnabled();
  const secret = new Secret({ size: 20 }).base32;
  const uri = totpFor(secret, user.email).toString();
  // enabled meanwhile (a concurrent setup and enable): refused like above
  if (!(await replacePendingTwoFactor(deps.db.kysely, actor.scope, actor.userId, box(deps).seal(secret), deps.clock.now().toISOString()))) {
    throw alreadyEnabled();
  }
  return { secret, otpauthUri: uri, qrCodeDataUrl: await (require('qrcode') as typeof QRCode).toDataURL(uri), period: PERIOD, digits: 6 };
}

/**
 * Confirms enrolment with a first code and returns the one-time recovery codes
 * (shown once; only their hashes are kept).
 * @throws AppError CONFLICT (nothing to enable), TWO_FACTOR_INVALID
 */
export async function enableTwoFactor(deps: Deps, actor: UserActor, code: string, meta: RequestMeta): Promise<{ recoveryCodes: string[] }> {
  const row = await findTwoFactor(deps.db.kysely, actor.scope, actor.userId);
  if (!row || row.enabled_at) throw conflict('No two-factor enrolment in progress; start with two-factor/setup');
  const step = matchingStep(deps, box(deps).open(row.secret), code);
  if (step === undefined) throw twoFactorInvalid();
  const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  const nowIso = deps.clock.now().toISOString();
  const ok = await enableTwoFactorRow(
    deps.db.kysely,
    actor.scope,
    actor.userId,
    { recovery_codes: JSON.stringify(recoveryCodes.map((c) => hashToken(normalizeRecoveryCode(c)))), last_used_step: step },
    nowIso,
  );
  if (!ok) throw conflict('Two-factor authentication is already enabled');
  await recordLogEntry(deps, {
    event: 'auth.two_factor_enabled',
    message: 'Two-factor authentication enabled',
    clientId: actor.clientId,
    userId: actor.userId,
    meta,
  });
  return { recoveryCodes };
}

/** The time step a code belongs to (within the drift window), if it is right. */
function matchingStep(deps: Deps, secretBase32: string, code: string): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const timestamp = deps.clock.now().getTime();
  const delta = totpFor(secretBase32, ISSUER).validate({ token, timestamp, window: DRIFT_WINDOW });
  if (delta === null) return undefined;
  return Math.floor(timestamp / 1000 / PERIOD) + delta;
}

/**
 * Checks a second factor of a user with 2FA on: a TOTP code not used before
 * (a replay within its window is refused), or an unused recovery code (then
 * spent). Returns which kind matched.
 * @throws AppError TWO_FACTOR_INVALID
 */
export async function verifySecondFactor(deps: Deps, scope: TenantScope, userId: number, code: string): Promise<'totp' | 'recovery_code'> {
  const row = await findTwoFactor(deps.db.kysely, scope, userId);
  if (!row?.enabled_at) throw twoFactorInvalid();
  const nowIso = deps.clock.now().toISOString();
  const step = matchingStep(deps, box(deps).open(row.secret), code);
  if (step !== undefined) {
    if (!(await advanceTwoFactorStep(deps.db.kysely, scope, userId, step, nowIso))) throw twoFactorInvalid();
    return 'totp';
  }
  const hashes = JSON.parse(row.recovery_codes) as string[];
  const presented = hashToken(normalizeRecoveryCode(code));
  if (hashes.includes(presented)) {
    const rest = JSON.stringify(hashes.filter((h) => h !== presented));
    if (await replaceRecoveryCodes(deps.db.kysely, scope, userId, row.recovery_codes, rest, nowIso)) return 'recovery_code';
  }
  throw twoFactorInvalid();
}

/**
 * Resets (removes) a user's second factor. The user themself proves it with a
 * current code or the password; a Security Administrator may reset another
 * user of the client. The user is emailed either way.
 * @throws AppError FORBIDDEN, NOT_FOUND, INVALID_CREDENTIALS, TWO_FACTOR_INVALID
 */
export async function resetTwoFactor(
  deps: Deps,
  actor: UserActor,
  input: { userId?: number; code?: string; password?: string },
  meta: RequestMeta,
): Promise<{ userId: number; reset: boolean }> {
  const forOther = input.userId !== undefined && input.userId !== actor.userId;
  if (forOther && !actor.roles.includes(SECURITY_ADMIN)) throw forbidden('Only a Security Administrator may reset another user');
  const user = await getUserById(deps.db.kysely, actor.scope, input.userId ?? actor.userId);
  if (!forOther) {
    if (input.code !== undefined) await verifySecondFactor(deps, actor.scope, user.id, input.code);
    else if (input.password !== undefined) {
      if (!user.password_hash || !(await deps.passwords.verify(input.password, user.password_hash))) throw invalidCredentials();
    } else throw fieldError('body.code', 'give a current code or your password');
  }
  const nowIso = deps.clock.now().toISOString();
  const reset = await withTransaction(deps.db, { lockClient: actor.scope.clientId }, async (trx, afterCommit) => {
    const removed = await deleteTwoFactor(trx, actor.scope, user.id);
    if (removed) {
      await queueMail(deps, trx, afterCommit, {
        ...twoFactorResetMail({ when: nowIso, byAdministrator: forOther }),
        to: user.email,
        clientId: actor.clientId,
        userId: user.id,
      });
    }
    return removed;
  });
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'auth.two_factor_reset',
    message: forOther ? 'Two-factor authentication reset by a Security Administrator' : 'Two-factor authentication reset by the user',
    clientId: actor.clientId,
    userId: user.id,
    actor: logActorOf(actor),
    meta,
    data: { by: actor.userId, hadTwoFactor: reset },
  });
  return { userId: user.id, reset };
}
