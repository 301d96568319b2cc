import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { adminSignIn, signOut } from '../../../../services/auth';
import { PresentedPassword } from '../../../schemas';
import type { Deps } from '../../../../deps';

export const AdminSignIn = z.object({ username: z.string().trim().min(1).max(64), password: PresentedPassword });

export const adminAuthRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/auth/sign-in',
    summary: 'System administrator sign-in; returns an admin token (not valid on client routes)',
    auth: 'public',
    createsSession: true,
    body: AdminSignIn,
    rateLimit: { max: (deps: Deps) => deps.config.signInRateLimitMax, windowMs: (deps: Deps) => deps.config.rateLimitWindow },
    async handler({ deps, body, meta }) {
      const { token, expiresIn, admin } = await adminSignIn(deps, body, meta);
      return { token, expiresIn, admin: { id: admin.id, username: admin.username } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/auth/sign-out',
    summary: 'End the system administrator session',
    auth: 'admin',
    async handler({ deps, actor }) {
      await signOut(deps, actor);
      return { signedOut: true };
    },
  }),
];
