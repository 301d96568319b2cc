import { defineRoute, type RouteSpec } from '../../../route';
import { clearSessionCookie, readSessionCookie, setSessionCookie } from '../../../cookies';
import { refreshForActor, refreshWithToken, signIn, signOut, verifyTwoFactorSignIn, type SignInFlavour } from '#services/auth';
import { AnySignIn, RefreshData, SignedOut, SignInData, SignInV2OrChallenge, signInResponse } from './responses';
import { User } from '#presenters/schemas';
import { presentUser } from '#presenters';
import { PositiveId } from '../../../schemas';
import { Refresh, SignIn, VerifyTwoFactor } from './schema';
import type { AppContext } from '../../../state';
import type { Deps } from '#deps';
import type { SignInInput } from './schema';
import type { RequestMeta } from '#services/actor';
import { validationFailed } from '#errors';

/** The budget of every route that signs someone in (password, two-factor, SSO). */
export const signInLimit = {
  max: (deps: Deps) => deps.config.signInRateLimitMax,
  windowMs: (deps: Deps) => deps.config.rateLimitWindow,
};

/** `clientId` in the body wins; otherwise X-Client-ID (docs/api/contract.md 5, rule 7: it only selects, never overrides a token). */
function selectedClientId(ctx: AppContext, body: SignInInput): number | undefined {
  if (body.clientId !== undefined) return body.clientId;
  const header = ctx.get('x-client-id');
  if (!header) return undefined;
  const parsed = PositiveId.safeParse(header);
  if (!parsed.success) throw validationFailed({ fields: [{ path: 'header.x-client-id', message: 'must be a client id' }] });
  return parsed.data;
}

function signInFromRequest(deps: Deps, ctx: AppContext, body: SignInInput, meta: RequestMeta, flavour: SignInFlavour) {
  return signIn(deps, { email: body.email, password: body.password, clientId: selectedClientId(ctx, body), flavour }, meta);
}

const refreshResponse = (tokens: { accessToken: string; refreshToken: string; expiresIn: number }) => ({
  token: tokens.accessToken,
  accessToken: tokens.accessToken,
  refreshToken: tokens.refreshToken,
  expiresIn: tokens.expiresIn,
});

export const clientAuthRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/client/auth/sign-in',
    operationId: 'signIn',
    response: SignInData,
    errors: ['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'CLIENT_SELECTION_REQUIRED', 'SSO_REQUIRED', 'TOO_MANY_ATTEMPTS'],
    honours: ['X-Client-ID'],
    sends: ['X-CSRF-Token'],
    summary:
      'Sign in with email and password; returns tokens and sets the session and CSRF cookies, or {twoFactorRequired, challengeToken} when 2FA is on',
    auth: 'public',
    createsSession: true,
    body: SignIn,
    rateLimit: signInLimit,
    async handler({ deps, ctx, body, meta }) {
      return signInResponse(ctx, await signInFromRequest(deps, ctx, body, meta, 'v1'), 'v1');
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/sign-in-v2',
    operationId: 'signInV2',
    response: SignInV2OrChallenge,
    errors: ['INVALID_CREDENTIALS', 'ACCOUNT_DISABLED', 'CLIENT_SELECTION_REQUIRED', 'SSO_REQUIRED', 'TOO_MANY_ATTEMPTS'],
    honours: ['X-Client-ID'],
    summary:
      'Sign in with email and password; returns access and refresh tokens with their lifetimes (no cookie), or {twoFactorRequired, challengeToken} when 2FA is on',
    auth: 'public',
    createsSession: true,
    body: SignIn,
    rateLimit: signInLimit,
    async handler({ deps, ctx, body, meta }) {
      return signInResponse(ctx, await signInFromRequest(deps, ctx, body, meta, 'v2'), 'v2');
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/verify-two-factor',
    operationId: 'verifyTwoFactor',
    response: AnySignIn,
    errors: ['TWO_FACTOR_INVALID', 'TOKEN_INVALID', 'TOO_MANY_ATTEMPTS', 'ACCOUNT_DISABLED'],
    summary:
      'Complete a two-factor sign-in: {challengeToken, code} (TOTP code or a recovery code); answers like the sign-in route that started it',
    auth: 'public',
    createsSession: true,
    body: VerifyTwoFactor,
    rateLimit: signInLimit,
    async handler({ deps, ctx, body, meta }) {
      const result = await verifyTwoFactorSignIn(deps, body, meta);
      return signInResponse(ctx, result, result.flavour);
    },
  }),
  ...(
    [
      ['/api/client/auth/refresh', 'refreshSession'],
      ['/api/client/auth/refresh-token', 'refreshToken'],
    ] as const
  ).map(([path, operationId]) =>
    defineRoute({
      method: 'post',
      path,
      operationId,
      response: RefreshData,
      errors: ['INVALID_CREDENTIALS', 'TOKEN_EXPIRED', 'ACCOUNT_DISABLED'],
      summary: 'Exchange a refresh token for a new access token; the refresh token rotates',
      auth: 'public',
      body: Refresh,
      rateLimit: signInLimit,
      async handler({ deps, body, meta }) {
        return refreshResponse(await refreshWithToken(deps, body.refreshToken, meta));
      },
    }),
  ),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/refresh',
    operationId: 'refreshSessionByCookie',
    response: RefreshData,
    sends: ['X-CSRF-Token'],
    summary:
      'New access token (and rotated refresh token) for the session of the cookie or bearer token; with the cookie, the session and CSRF cookies are set again for the idle TTL from now (a web app in daily use is not signed out when the cookies set at sign-in would have lapsed)',
    auth: 'user',
    async handler({ deps, actor, ctx }) {
      const tokens = await refreshForActor(deps, actor);
      // the cookies' lifetime was set at sign-in; the session itself slides with use (last_seen_at): keep them in step
      const cookie = actor.via === 'cookie' ? readSessionCookie(ctx) : undefined;
      if (cookie) setSessionCookie(ctx, cookie);
      return refreshResponse(tokens);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/auth/sign-out',
    operationId: 'signOut',
    response: SignedOut,
    summary: 'End the session: its access token, refresh token and cookie stop working',
    auth: 'user',
    async handler({ deps, actor, ctx }) {
      await signOut(deps, actor);
      clearSessionCookie(ctx);
      return { signedOut: true };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/auth/me',
    operationId: 'getMe',
    response: User,
    summary: 'The signed-in user',
    auth: 'user',
    async handler({ actor }) {
      return presentUser(actor.user);
    },
  }),
];
