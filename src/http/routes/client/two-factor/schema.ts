import { z } from 'zod';
import { PositiveId, PresentedPassword } from '../../../schemas';

const Code = z.string().trim().min(6).max(64);

/** Re-authenticate with the password before a new secret is issued. */
export const TwoFactorSetup = z.object({ password: PresentedPassword });

/** The first code from the authenticator app confirms the enrolment. */
export const TwoFactorEnable = z.object({ code: Code });

/**
 * Reset (remove) a second factor. Yourself: `{code}` (a current TOTP or recovery
 * code) or `{password}`. A Security Administrator: `{userId}` of a user of the client.
 */
export const ResetTwoFactor = z.object({
  userId: PositiveId.optional(),
  code: Code.optional(),
  password: PresentedPassword.optional(),
});
