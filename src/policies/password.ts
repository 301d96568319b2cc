import { configFileText } from '#lib/executable';

/**
 * The common-password blocklist, config/common-passwords.txt (one a line, `#`
 * comments), read once when this module loads: at start, so a build without
 * the file stops there rather than at someone's first password change.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = commonPasswords(configFileText('common-passwords.txt'));

/** The lines of the list that are passwords, lower-cased (the check compares case-insensitively). */
export function commonPasswords(text: string): Set<string> {
  const entries = text.split(/\r?\n/).filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return new Set(entries.map((line) => line.toLowerCase()));
}

/** The appliance-wide floor; a client may only raise it. */
export const MIN_PASSWORD_LENGTH_FLOOR = 12;
export const MAX_PASSWORD_LENGTH = 1024;

export interface PasswordPolicy {
  minLength: number;
}

/**
 * Why a new password is refused (empty when it is allowed): too short, too
 * long, on the common-password blocklist, or the account's own email.
 */
export function passwordProblems(password: string, policy: PasswordPolicy, context: { email?: string } = {}): string[] {
  const problems: string[] = [];
  const minLength = Math.max(MIN_PASSWORD_LENGTH_FLOOR, policy.minLength);
  if ([...password].length < minLength) problems.push(`must be at least ${minLength} characters`);
  if (password.length > MAX_PASSWORD_LENGTH) problems.push(`must be at most ${MAX_PASSWORD_LENGTH} characters`);
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) problems.push('is too common: it appears in lists of breached passwords');
  if (context.email) {
    const email = context.email.trim().toLowerCase();
    const local = email.split('@')[0] ?? '';
    if (lower === email || (local.length >= 4 && lower.includes(local))) problems.push('must not contain your email address');
  }
  if (/^(.)\1+$/.test(password)) problems.push('must not be a single repeated character');
  return problems;
}

/**
 * The rules of passwordProblems in words, for a page to list before the first
 * attempt (the set-password page). Kept beside it: one source.
 */
export function passwordRules(policy: PasswordPolicy): string[] {
  return [
    `At least ${Math.max(MIN_PASSWORD_LENGTH_FLOOR, policy.minLength)} characters (at most ${MAX_PASSWORD_LENGTH})`,
    'Not a common password found in lists of breached passwords',
    'Not your email address, nor the part of it before the @',
    'Not a single repeated character',
  ];
}
