import { hasAnyRole } from '../../policies/roles';
import { appLanguageOf } from '../i18n';
import type { AppLanguage } from '../../lib/app-texts';
import { api, ApiError, completePendingSignOut } from './client';
import { lockForSignOut } from './sign-out-lock';
import { PERMISSIONS } from '../../policies/permissions';
import type { TwoFactorRequirement } from '../../domain/vocabulary';

/**
 * Who is signed in, and what the shell adapts to: the user (GET
 * /api/client/auth/me), the client's branding (GET /api/client/auth/client)
 * and the user's language (the notification preferences' language, the one
 * language setting a user has: mails, pushes and the app speak it alike).
 */
export interface CurrentUser {
  id: number;
  email: string;
  name: string;
  clientId: number;
  roles: string[];
  /** null: the user never chose one (the device's choice stands) */
  language: AppLanguage | null;
}

export interface Branding {
  /** the client's name */
  displayName: string;
  /** same-origin URL of the client's logo, or null */
  logoUrl: string | null;
}

export interface Session {
  user: CurrentUser;
  branding: Branding;
  /** the client requires a second factor of this user, who has none yet: only enrolment is open to them */
  twoFactorSetupRequired: boolean;
}

interface MeAnswer {
  id: number;
  email: string;
  firstName: string;
  lastName: string;
  clientId: number;
  roles: string[];
}

/** The session of the browser's cookie, or null when nobody (no client user) is signed in. */
export async function currentSession(): Promise<Session | null> {
  let me: MeAnswer;
  try {
    me = await api<MeAnswer>('GET', '/api/client/auth/me', undefined, { quiet401: true });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) return null;
    throw error;
  }
  const [client, preferences] = await Promise.all([
    api<{ branding: Branding; twoFactorEnabled: boolean; security: { twoFactorRequired: TwoFactorRequirement } }>(
      'GET',
      '/api/client/auth/client',
    ).catch(() => null),
    api<{ language: string | null }>('GET', '/api/client/account/notification-preferences').catch(() => null),
  ]);
  return {
    user: {
      id: me.id,
      email: me.email,
      name: [me.firstName, me.lastName].filter(Boolean).join(' ') || me.email,
      clientId: me.clientId,
      roles: me.roles,
      language: appLanguageOf(preferences?.language),
    },
    branding: client?.branding ?? { displayName: '', logoUrl: null },
    twoFactorSetupRequired:
      !!client &&
      !client.twoFactorEnabled &&
      (client.security.twoFactorRequired === 'all' ||
        (client.security.twoFactorRequired === 'admins' && (me.roles.includes('admin') || me.roles.includes('user_admin')))),
  };
}

/** The user's language, kept with the account (PUT notification-preferences). */
export async function saveLanguage(language: AppLanguage): Promise<void> {
  await api('PUT', '/api/client/account/notification-preferences', { language });
}

const RENEWED_KEY = 'wip.app.sessionRenewedAt';
const RENEW_EVERY_MS = 60 * 60 * 1000;

/**
 * The session cookie's lifetime was set at sign-in (the session's idle TTL),
 * while the session itself slides with use on the server: at most once an
 * hour GET /api/client/auth/refresh sets the cookies again from now, so a
 * tablet in daily use is never signed out under an operator.
 */
export async function renewSessionCookie(): Promise<void> {
  const last = Number(localStorage.getItem(RENEWED_KEY) ?? 0);
  if (Date.now() - last < RENEW_EVERY_MS) return;
  await api('GET', '/api/client/auth/refresh', undefined, { quiet401: true });
  localStorage.setItem(RENEWED_KEY, String(Date.now()));
}

/**
 * Signs the user out of this device (src/app/api/sign-out-lock.ts): locked at
 * once, then the server told — now, or first thing when the network returns.
 */
export async function signOut(user: CurrentUser): Promise<void> {
  lockForSignOut(`${user.clientId}:${user.id}`);
  localStorage.removeItem(RENEWED_KEY);
  await completePendingSignOut().catch(() => undefined);
}

/**
 * What the user's roles allow, from the server's own policy tables
 * (src/policies/transitions.ts, bundled): the shell shows an area's pages to
 * those who may use them. Convenience only: the server decides every request.
 */
export const can = {
  author: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.author),
  review: (user: CurrentUser) => hasAnyRole(user.roles, [...PERMISSIONS.approveVersion, ...PERMISSIONS.publishVersion]),
  approve: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.approveVersion),
  publish: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.publishVersion),
  runJobs: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.runJob),
  createJobs: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.createJob),
  /** acknowledge deviations and sign a completed job REVIEWED (docs/execution-rules.md) */
  reviewJobs: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.reviewJob),
  /** the skill matrix, expiring skills and the overrides (docs/qualifications.md) */
  readQualifications: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.readQualifications),
  /** create the client's skills */
  manageSkills: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.manageSkills),
  /** grant and revoke others' skills, signing as trainer */
  grantSkills: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.grantSkills),
  /** let someone lacking a required skill work on a job anyway, with a reason */
  overrideQualification: (user: CurrentUser) => hasAnyRole(user.roles, PERMISSIONS.overrideQualification),
};
