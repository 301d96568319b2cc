import { z } from 'zod';
import { defineRoute, type RateLimitSpec, type RouteSpec } from '../../../route';
import { enableTwoFactor, resetTwoFactor, setupTwoFactor } from '#services/two-factor';
import { ResetTwoFactor, TwoFactorEnable, TwoFactorSetup } from './schema';

// TOTP two-factor enrolment and reset (the sign-in step is verify-two-factor in the auth area).

/** Code and password guesses per signed-in user: 10 per 15 minutes. */
const perUser: RateLimitSpec = {
  max: 10,
  windowMs: 15 * 60_000,
  key: (ctx) => (ctx.state.actor?.kind === 'user' ? `2fa:user:${ctx.state.actor.userId}` : `2fa:ip:${ctx.ip}`),
};

export const clientTwoFactorRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/auth/two-factor/setup',
    operationId: 'setUpTwoFactor',
    response: z.object({
      secret: z.string(),
      otpauthUri: z.string(),
      qrCodeDataUrl: z.string(),
      period: z.number().int(),
      digits: z.number().int(),
    }),
    errors: ['INVALID_CREDENTIALS', 'CONFLICT'],
    summary: 'Start TOTP enrolment {password}: returns the secret, the otpauth:// URI and a QR code (data URL); not active until enabled',
    auth: 'user',
    body: TwoFactorSetup,
    rateLimit: perUser,
    async handler({ deps, actor, body }) {
      return setupTwoFactor(deps, actor, body.password);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/two-factor/enable',
    operationId: 'enableTwoFactor',
    response: z.object({ enabled: z.boolean(), recoveryCodes: z.array(z.string()) }),
    errors: ['TWO_FACTOR_INVALID'],
    summary: 'Confirm TOTP enrolment with a first code {code}; returns the one-time recovery codes (shown once)',
    auth: 'user',
    body: TwoFactorEnable,
    rateLimit: perUser,
    async handler({ deps, actor, body, meta }) {
      const { recoveryCodes } = await enableTwoFactor(deps, actor, body.code, meta);
      return { enabled: true, recoveryCodes };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/reset-two-factor',
    operationId: 'resetTwoFactor',
    response: z.object({ userId: z.number().int(), reset: z.boolean() }),
    errors: ['INVALID_CREDENTIALS', 'TWO_FACTOR_INVALID'],
    summary:
      'Reset (remove) a second factor: yourself with {code} or {password}; a Security Administrator for a user of the client with {userId}. The user is emailed.',
    auth: 'user',
    body: ResetTwoFactor,
    rateLimit: perUser,
    async handler({ deps, actor, body, meta }) {
      return resetTwoFactor(deps, actor, body, meta);
    },
  }),
];
