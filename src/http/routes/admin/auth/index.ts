import { SignedOut } from '../../client/auth/responses';
import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { adminSignIn, signOut } from '#services/auth';
import { changeAdminPassword, initialPasswordInUse } from '#services/admins';
import { clearSessionCookie, setSessionCookie } from '../../../cookies';
import { PresentedPassword } from '../../../schemas';
import type { Deps } from '#deps';

export const AdminSignIn = z.object({ username: z.string().trim().min(1).max(64), password: PresentedPassword });
const ChangeAdminPassword = z.object({ currentPassword: PresentedPassword, newPassword: z.string().max(1024) });

export const adminAuthRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/auth/sign-in',
    operationId: 'signInAdmin',
    response: z
      .object({ token: z.string(), expiresIn: z.number().int(), admin: z.object({ id: z.number().int(), username: z.string() }) })
      .meta({ id: 'AdminSignIn' }),
    errors: ['INVALID_CREDENTIALS', 'TOO_MANY_ATTEMPTS'],
    sends: ['X-CSRF-Token'],
    summary:
      'System administrator sign-in; returns an admin token (not valid on client routes) and sets the session and CSRF cookies (the console uses the cookie, API clients the token)',
    auth: 'public',
    createsSession: true,
    body: AdminSignIn,
    rateLimit: { max: (deps: Deps) => deps.config.signInRateLimitMax, windowMs: (deps: Deps) => deps.config.rateLimitWindow },
    async handler({ deps, body, meta, ctx }) {
      const { token, expiresIn, admin, cookieToken } = await adminSignIn(deps, body, meta);
      setSessionCookie(ctx, cookieToken);
      return { token, expiresIn, admin: { id: admin.id, username: admin.username } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/auth/sign-out',
    operationId: 'signOutAdmin',
    response: SignedOut,
    summary: 'End the system administrator session: its token and cookie stop working',
    auth: 'admin',
    async handler({ deps, actor, ctx }) {
      await signOut(deps, actor);
      clearSessionCookie(ctx);
      return { signedOut: true };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/auth/me',
    operationId: 'getAdminMe',
    response: z.object({ id: z.number().int(), username: z.string(), initialPasswordInUse: z.boolean() }).meta({ id: 'AdminMe' }),
    summary: 'The signed-in system administrator; initialPasswordInUse while the password generated at install still opens the account',
    auth: 'admin',
    async handler({ deps, actor }) {
      return { id: actor.adminId, username: actor.username, initialPasswordInUse: await initialPasswordInUse(deps, actor.adminId) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/auth/change-password',
    operationId: 'changeAdminPassword',
    response: z.object({ changed: z.boolean() }),
    summary:
      "Change the signed-in administrator's password ({currentPassword, newPassword}, at least 8 characters); their other sessions end",
    auth: 'admin',
    body: ChangeAdminPassword,
    rateLimit: principalBudget('admin-change-password', 10, 15 * 60_000),
    async handler({ deps, actor, body, meta }) {
      await changeAdminPassword(deps, actor, body, meta);
      return { changed: true };
    },
  }),
];
