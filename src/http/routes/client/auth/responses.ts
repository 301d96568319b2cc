import { z } from 'zod';
import { User } from '#presenters/schemas';
import { setSessionCookie } from '../../../cookies';
import { presentUser } from '#presenters';
import type { SignInFlavour, SignInResult, TwoFactorChallenge } from '#services/auth';
import type { AppContext } from '../../../state';

/**
 * The `data` of a sign-in, in the shape of the route that started it: v1
 * (sign-in: token, refreshToken, user + session and CSRF cookies) or v2
 * (sign-in-v2: accessToken, refreshToken, lifetimes, no cookie). A user with
 * two-factor on gets `{twoFactorRequired: true, challengeToken, expiresIn}`.
 */
export function signInResponse(ctx: AppContext, result: SignInResult | TwoFactorChallenge, flavour: 'v1'): z.input<typeof SignInData>;
export function signInResponse(
  ctx: AppContext,
  result: SignInResult | TwoFactorChallenge,
  flavour: 'v2',
): z.input<typeof SignInV2OrChallenge>;
export function signInResponse(
  ctx: AppContext,
  result: SignInResult | TwoFactorChallenge,
  flavour: SignInFlavour,
): z.input<typeof AnySignIn>;
export function signInResponse(
  ctx: AppContext,
  result: SignInResult | TwoFactorChallenge,
  flavour: SignInFlavour,
): z.input<typeof AnySignIn> {
  if ('challengeToken' in result) return result;
  const user = presentUser(result.user);
  const twoFactorSetupRequired = result.twoFactorSetupRequired;
  if (flavour === 'v1') {
    setSessionCookie(ctx, result.cookieToken);
    return { token: result.accessToken, refreshToken: result.refreshToken, user, twoFactorSetupRequired };
  }
  return {
    accessToken: result.accessToken,
    refreshToken: result.refreshToken,
    tokenType: 'Bearer',
    expiresIn: result.expiresIn,
    refreshExpiresIn: result.refreshExpiresIn,
    user,
    twoFactorSetupRequired,
  };
}

/** The schemas of these answers, for the route declarations (the OpenAPI document; the suite checks every answer). */
export const TwoFactorChallengeData = z
  .object({ twoFactorRequired: z.boolean(), challengeToken: z.string(), expiresIn: z.number().int() })
  .meta({ id: 'TwoFactorChallenge' });
export const SignInV1Data = z
  .object({ token: z.string(), refreshToken: z.string(), user: User, twoFactorSetupRequired: z.boolean() })
  .meta({ id: 'SignInTokens' });
export const SignInV2Data = z
  .object({
    accessToken: z.string(),
    refreshToken: z.string(),
    tokenType: z.string(),
    expiresIn: z.number().int(),
    refreshExpiresIn: z.number().int(),
    user: User,
    twoFactorSetupRequired: z.boolean(),
  })
  .meta({ id: 'SignInTokensV2' });
export const SignInData = z.union([SignInV1Data, TwoFactorChallengeData]);
export const SignInV2OrChallenge = z.union([SignInV2Data, TwoFactorChallengeData]);
/** verify-two-factor answers in the shape of the sign-in that started it */
export const AnySignIn = z.union([SignInV1Data, SignInV2Data, TwoFactorChallengeData]);
export const RefreshData = z
  .object({ token: z.string(), accessToken: z.string(), refreshToken: z.string(), expiresIn: z.number().int() })
  .meta({ id: 'RefreshedTokens' });
export const SignedOut = z.object({ signedOut: z.boolean() }).meta({ id: 'SignedOut' });
