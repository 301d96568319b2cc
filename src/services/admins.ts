import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '#deps';
import type { SystemAdminActor } from './actor';
import type { SystemAdminRow } from '#db/schema';
import { withTransaction, isUniqueViolation } from '#db/transaction';
import { conflict, fieldError, notFound } from '#errors';
import { randomPassword } from '#lib/tokens';
import {
  findAdminById,
  revokeOtherAdminSessions,
  countAdmins,
  deleteAdmin as deleteAdminRow,
  findAdminByUsername,
  insertAdmin,
  listAdmins as listAdminRows,
  revokeAdminSessionsOf,
  updateAdminPassword,
} from '#repos/system-admins';
import { adminAccount, unlockAccount } from './lockout';
import { changedBy, recordChange, type ChangedBy } from './security-log';
import type { RequestMeta } from './actor';

/** The first start creating the first administrator. */
const FIRST_START: ChangedBy = { actor: { kind: 'system', id: null, name: 'first start' } };

export const FIRST_ADMIN_USERNAME = 'admin';
export const MIN_ADMIN_PASSWORD_LENGTH = 8;

function assertPassword(password: string): void {
  if (password.length < MIN_ADMIN_PASSWORD_LENGTH) {
    throw fieldError('password', `must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
  }
}

/** @throws AppError CONFLICT (username taken), VALIDATION_ERROR */
export async function createAdmin(deps: Deps, username: string, password: string, by: ChangedBy): Promise<SystemAdminRow> {
  if (!/^[A-Za-z0-9._@-]{1,64}$/.test(username)) throw fieldError('username', 'use 1-64 letters, digits, . _ @ -');
  assertPassword(password);
  const hash = await deps.passwords.hash(password);
  try {
    return await withTransaction(deps.db, async (trx, afterCommit) => {
      const admin = await insertAdmin(trx, username, hash, deps.clock.now().toISOString());
      await recordChange({ deps, trx, afterCommit }, by, {
        event: 'admin.created',
        message: `System administrator "${username}" created`,
        target: { type: 'admin', id: admin.id },
        after: { username },
      });
      return admin;
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(`An administrator named "${username}" already exists`);
    throw error;
  }
}

export async function listAdmins(deps: Deps): Promise<SystemAdminRow[]> {
  return listAdminRows(deps.db.kysely);
}

/** Sets a new password, ends the admin's sessions and lifts a sign-in lock. @throws AppError NOT_FOUND, VALIDATION_ERROR */
export async function resetAdminPassword(deps: Deps, username: string, password: string, by: ChangedBy): Promise<void> {
  assertPassword(password);
  const hash = await deps.passwords.hash(password);
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, async (trx, afterCommit) => {
    const admin = await findAdminByUsername(trx, username);
    if (!admin) throw notFound(`Administrator "${username}"`);
    await updateAdminPassword(trx, admin.id, hash, nowIso);
    await revokeAdminSessionsOf(trx, admin.id, nowIso);
    await recordChange({ deps, trx, afterCommit }, by, {
      level: 'warn',
      event: 'admin.password_reset',
      message: `Password of system administrator "${username}" reset; their sessions ended`,
      target: { type: 'admin', id: admin.id },
      data: { username },
    });
  });
  if (username === FIRST_ADMIN_USERNAME) forgetInitialPassword(deps);
  // the way out for a locked-out operator (the CLI needs no sign-in)
  await unlockAccount(deps, adminAccount(username));
}

/** @throws AppError NOT_FOUND, CONFLICT (the last administrator) */
export async function deleteAdmin(deps: Deps, username: string, by: ChangedBy): Promise<void> {
  await withTransaction(deps.db, async (trx, afterCommit) => {
    const admin = await findAdminByUsername(trx, username);
    if (!admin) throw notFound(`Administrator "${username}"`);
    if ((await countAdmins(trx)) <= 1) throw conflict('The last system administrator cannot be deleted');
    await deleteAdminRow(trx, admin.id);
    await recordChange({ deps, trx, afterCommit }, by, {
      level: 'warn',
      event: 'admin.deleted',
      message: `System administrator "${username}" deleted`,
      target: { type: 'admin', id: admin.id },
      before: { username },
    });
  });
}

/**
 * Creates the first system administrator when there is none. Its password is
 * the configured one (WIP_ADMIN_PASSWORD) or a generated one, returned so the
 * caller can show it once.
 */
export async function ensureFirstAdmin(deps: Deps): Promise<{ created: boolean; generatedPassword?: string }> {
  if ((await countAdmins(deps.db.kysely)) > 0) return { created: false };
  const configured = deps.config.adminPassword;
  const password = configured ?? randomPassword();
  try {
    await createAdmin(deps, FIRST_ADMIN_USERNAME, password, FIRST_START);
  } catch (error) {
    // Another process (a concurrent `wip install`) created it first.
    if ((error as { code?: string }).code === 'CONFLICT') return { created: false };
    throw error;
  }
  return configured ? { created: true } : { created: true, generatedPassword: password };
}

/** <data-dir>/initial-admin-password: the generated first password, written by bootstrap (ops/bootstrap.ts). */
export const INITIAL_PASSWORD_FILE = 'initial-admin-password';
const initialPasswordFile = (deps: Deps) => path.join(deps.config.dataDir, INITIAL_PASSWORD_FILE);

/** Once the first administrator's password changed, the file holds a stale secret: removed. */
function forgetInitialPassword(deps: Deps): void {
  fs.rmSync(initialPasswordFile(deps), { force: true });
}

/** password hash → whether the generated password still opens it (one bcrypt per hash, not per page load) */
const initialPasswordChecks = new Map<string, boolean>();

/**
 * True while the administrator still signs in with the password generated at
 * install (the console shows a banner asking to change it). Decided by the
 * password itself, not by a flag: a reset through the CLI counts as a change.
 */
export async function initialPasswordInUse(deps: Deps, adminId: number): Promise<boolean> {
  const admin = await findAdminById(deps.db.kysely, adminId);
  if (!admin || admin.username !== FIRST_ADMIN_USERNAME) return false;
  let generated: string;
  try {
    generated = fs.readFileSync(initialPasswordFile(deps), 'utf8').trim();
  } catch {
    return false;
  }
  let inUse = initialPasswordChecks.get(admin.password_hash);
  if (inUse === undefined) {
    inUse = generated.length > 0 && (await deps.passwords.verify(generated, admin.password_hash));
    initialPasswordChecks.set(admin.password_hash, inUse);
  }
  return inUse;
}

/**
 * The signed-in administrator changes their own password: the current one is
 * required; every other session of theirs ends, this one stays.
 * @throws AppError VALIDATION_ERROR (wrong current password, too short a new one)
 */
export async function changeAdminPassword(
  deps: Deps,
  actor: SystemAdminActor,
  input: { currentPassword: string; newPassword: string },
  meta: RequestMeta,
): Promise<void> {
  assertNewPassword(input.newPassword);
  const admin = await findAdminById(deps.db.kysely, actor.adminId);
  if (!admin) throw notFound('Administrator');
  if (!(await deps.passwords.verify(input.currentPassword, admin.password_hash)))
    throw fieldError('body.currentPassword', 'is not your current password');
  if (input.currentPassword === input.newPassword) throw fieldError('body.newPassword', 'must differ from the current password');
  const hash = await deps.passwords.hash(input.newPassword);
  const nowIso = deps.clock.now().toISOString();
  await withTransaction(deps.db, async (trx, afterCommit) => {
    await updateAdminPassword(trx, admin.id, hash, nowIso);
    await revokeOtherAdminSessions(trx, admin.id, actor.sessionId, nowIso);
    await recordChange({ deps, trx, afterCommit }, changedBy(actor, meta), {
      event: 'admin.password_changed',
      message: `System administrator "${admin.username}" changed their password; their other sessions ended`,
      target: { type: 'admin', id: admin.id },
    });
  });
  if (admin.username === FIRST_ADMIN_USERNAME) forgetInitialPassword(deps);
}

function assertNewPassword(password: string): void {
  if (password.length < MIN_ADMIN_PASSWORD_LENGTH)
    throw fieldError('body.newPassword', `must be at least ${MIN_ADMIN_PASSWORD_LENGTH} characters`);
}
