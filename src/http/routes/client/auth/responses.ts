import { setSessionCookie } from '../../../cookies';
import { presentUser } from '../../../../presenters';
import type { SignInFlavour, SignInResult, TwoFactorChallenge } from '../../../../services/auth';
import type { AppContext } from '../../../state';

/**
 * The `data` of a sign-in, in the shape of the route that started it: v1
 * (sign-in: token, refreshToken, user + session and CSRF cookies) or v2
 * (sign-in-v2: accessToken, refreshToken, lifetimes, no cookie). A user with
 * two-factor on gets `{twoFactorRequired: true, challengeToken, expiresIn}`.
 */
export function signInResponse(ctx: AppContext, result: SignInResult | TwoFactorChallenge, flavour: SignInFlavour) {
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
