import { z } from 'zod';
import { Client, License, SecuritySettings, SecuritySettingsPublic, User } from '#presenters/schemas';
import { sendJson } from '../../../json-body';
import { defineRoute, type RateLimitSpec, type RouteSpec } from '../../../route';
import type { Deps } from '#deps';
import { fieldError } from '#errors';
import { hashToken } from '#lib/tokens';
import { logoUrl } from '#services/branding';
import { presentClient, presentLicense, presentSecuritySettings, presentUser } from '#presenters';
import {
  acceptInvitation,
  accountLinkDetails,
  changePassword,
  createAccount,
  getAdminContact,
  getClientInfo,
  requestPasswordReset,
  resetPassword,
  signUp,
} from '#services/accounts';
import { getSecuritySettings, getSecuritySettingsOfClient, updateSecuritySettings } from '#services/security-settings';
import { changedBy } from '#services/security-log';
import {
  AccountLinkDetails,
  ChangePassword,
  CreateAccount,
  Forgot,
  ResetPassword,
  SecuritySettingsQuery,
  SetPassword,
  SignUp,
  TokenParams,
  UpdateSecuritySettings,
} from './schema';

// Account lifecycle routes (docs/api/contract.md 4.1) under /api/client/auth.

const perIp: RateLimitSpec = {
  max: (deps: Deps) => deps.config.signInRateLimitMax,
  windowMs: (deps: Deps) => deps.config.rateLimitWindow,
};
/**
 * Reset mails per address, whoever asks: 5 per 15 minutes. The key is read
 * before validation, so it is the address's hash: a window keeps 64
 * characters, not a body-sized string the caller chose, for 15 minutes.
 */
const perEmail: RateLimitSpec = {
  max: 5,
  windowMs: 15 * 60_000,
  key: (ctx) => {
    const email = (ctx.request as { body?: { email?: unknown } }).body?.email;
    return `forgot:${hashToken(typeof email === 'string' ? email.trim().toLowerCase() : '')}`;
  },
};

const FORGOT_ANSWER = {
  message: 'If an account exists for this email, a link to reset the password has been sent.',
};

export const clientAccountRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/auth/sign-up',
    operationId: 'signUp',
    response: z.union([
      z.object({ status: z.literal('active'), user: User }),
      z.object({ status: z.literal('verification_sent'), message: z.string() }),
    ]),
    otherStatuses: [202],
    errors: ['SIGN_UP_NOT_ALLOWED', 'SELF_SERVICE_DISABLED', 'TOKEN_INVALID', 'CONFLICT', 'LICENSE_SEATS_EXHAUSTED'],
    summary:
      'Join an existing client: {invitationToken, password} activates an invitation; {clientId, email} with an allowed email domain emails a link to set the password',
    auth: 'public',
    createsSession: true,
    body: SignUp,
    rateLimit: perIp,
    async handler({ deps, body, meta, ctx }) {
      const outcome = await signUp(deps, body, meta);
      if (outcome.status === 'active') return { status: 'active' as const, user: presentUser(outcome.user) };
      ctx.status = 202;
      sendJson(ctx, {
        success: true,
        data: { status: 'verification_sent', message: 'Check your email for a link to choose your password.' },
      });
      return undefined;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/create-account',
    operationId: 'createAccount',
    response: z.object({ client: Client, user: User, licenses: z.array(License) }),
    errors: ['SELF_SERVICE_DISABLED', 'CONFLICT', 'LICENSE_CLIENTS_EXHAUSTED'],
    summary:
      'Create a new client with the caller as its owner (when the appliance allows self-service; 403 SELF_SERVICE_DISABLED otherwise)',
    auth: 'public',
    createsSession: true,
    body: CreateAccount,
    status: 201,
    rateLimit: perIp,
    async handler({ deps, body, meta }) {
      const created = await createAccount(deps, body, meta);
      return { client: presentClient(created.client), user: presentUser(created.owner), licenses: created.licenses.map(presentLicense) };
    },
  }),
  ...(
    [
      ['/api/client/auth/set-password/:token', 'invite', 'invitation', 'getInvitationDetails'],
      ['/api/client/auth/reset-password/:token', 'reset', 'password-reset', 'getPasswordResetDetails'],
    ] as const
  ).map(([path, purpose, what, operationId]) =>
    defineRoute({
      method: 'get',
      path,
      operationId,
      errors: ['TOKEN_INVALID'],
      summary: `Before setting a password with the ${what} link: the account's email and its client's password policy {minLength, rules} (the token is checked, not used; 400 TOKEN_INVALID when expired or used)`,
      auth: 'public',
      params: TokenParams,
      rateLimit: perIp,
      response: AccountLinkDetails,
      async handler({ deps, params }) {
        return accountLinkDetails(deps, params.token, purpose);
      },
    }),
  ),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/set-password/:token',
    operationId: 'setPassword',
    response: z.object({ user: User }),
    errors: ['TOKEN_INVALID'],
    summary: 'Set the first password with the emailed invitation token and activate the account (400 TOKEN_INVALID when expired or used)',
    auth: 'public',
    createsSession: true,
    params: TokenParams,
    body: SetPassword,
    rateLimit: perIp,
    async handler({ deps, params, body, meta }) {
      return { user: presentUser(await acceptInvitation(deps, params.token, body, meta)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/forgot',
    operationId: 'requestPasswordReset',
    response: z.object({ message: z.string() }),
    summary: 'Request a password-reset email; always the same 200 answer, whether or not the email has an account',
    auth: 'public',
    body: Forgot,
    rateLimit: [perIp, perEmail],
    async handler({ deps, body, meta }) {
      // Answered before the lookup and the mail work are done: the response time
      // says nothing about whether the email has an account.
      void requestPasswordReset(deps, body, meta).catch((error) =>
        deps.logger.error({ err: error, requestId: meta.requestId }, 'password reset request failed'),
      );
      return FORGOT_ANSWER;
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/reset-password/:token',
    operationId: 'resetPassword',
    response: z.object({ reset: z.boolean() }),
    errors: ['TOKEN_INVALID'],
    summary: 'Set a new password with the emailed reset token; ends every session of the user (400 TOKEN_INVALID when expired or used)',
    auth: 'public',
    createsSession: true,
    params: TokenParams,
    body: ResetPassword,
    rateLimit: perIp,
    async handler({ deps, params, body, meta }) {
      await resetPassword(deps, params.token, body.password, meta);
      return { reset: true };
    },
  }),
  ...(
    [
      ['/api/client/auth/update-password', 'updatePassword'],
      ['/api/client/auth/change-password', 'changePassword'],
    ] as const
  ).map(([path, operationId]) =>
    defineRoute({
      method: 'post',
      path,
      operationId,
      response: z.object({ changed: z.boolean() }),
      errors: ['INVALID_CREDENTIALS'],
      summary: "Change the signed-in user's password {currentPassword, newPassword}; other sessions end, this one stays",
      auth: 'user',
      body: ChangePassword,
      rateLimit: perIp,
      async handler({ deps, actor, body, meta }) {
        await changePassword(deps, actor, body, meta);
        return { changed: true };
      },
    }),
  ),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/client-security-settings',
    operationId: 'getClientSecuritySettings',
    errors: ['NOT_FOUND'],
    response: z.union([SecuritySettings, SecuritySettingsPublic]),
    summary:
      "The client's security settings: signed in, your client's (all fields); before sign-in, ?clientId= gives only the password policy, 2FA requirement and SSO flag",
    auth: 'public',
    query: SecuritySettingsQuery,
    async handler({ deps, actor, query }) {
      if (actor?.kind === 'user' && (query.clientId === undefined || query.clientId === actor.clientId)) {
        return presentSecuritySettings(await getSecuritySettings(deps, actor.scope), 'member');
      }
      if (query.clientId === undefined) throw fieldError('query.clientId', 'required before sign-in');
      return presentSecuritySettings(await getSecuritySettingsOfClient(deps, query.clientId), 'public');
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/client/auth/client-security-settings',
    operationId: 'updateClientSecuritySettings',
    response: z.union([SecuritySettings, SecuritySettingsPublic]),
    summary: "Change the client's security settings (Security Administrator); omitted fields keep their values",
    auth: 'user',
    permission: 'administerSecurity',
    body: UpdateSecuritySettings,
    async handler({ deps, actor, body, meta }) {
      return presentSecuritySettings(await updateSecuritySettings(deps, actor.scope, body, changedBy(actor, meta)), 'member');
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/get-admin-email',
    operationId: 'getAdminEmail',
    response: z.object({}).loose(),
    summary: "Contact of the client's owner (its first Security Administrator), for 'ask your administrator' screens",
    auth: 'user',
    async handler({ deps, actor }) {
      return getAdminContact(deps, actor.scope);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/client',
    operationId: 'getMyClient',
    response: z.object({
      id: z.number().int(),
      name: z.string(),
      branding: z.object({ displayName: z.string(), logoUrl: z.string().nullable() }),
      security: SecuritySettingsPublic,
      sessionIdleTimeout: z.number(),
      twoFactorEnabled: z.boolean(),
    }),
    summary: "The current user's client: id, name, branding summary and the settings the UI adapts to",
    auth: 'user',
    async handler({ deps, actor }) {
      const info = await getClientInfo(deps, actor);
      return {
        id: info.id,
        name: info.name,
        branding: { displayName: info.name, logoUrl: logoUrl(info.logoFileId) },
        security: presentSecuritySettings(info.settings, 'public'),
        sessionIdleTimeout: info.settings.sessionIdleTimeout ?? Math.floor(deps.config.sessionIdleTtl / 1000),
        twoFactorEnabled: info.twoFactorEnabled,
      };
    },
  }),
];
