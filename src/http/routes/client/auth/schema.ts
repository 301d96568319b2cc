import { z } from 'zod';
import { Email, PositiveId, PresentedPassword } from '../../../schemas';

export const SignIn = z.object({
  email: Email,
  password: PresentedPassword,
  /** picks the client when the email exists in several; the X-Client-ID header does the same */
  clientId: PositiveId.optional(),
});
export type SignInInput = z.infer<typeof SignIn>;

export const Refresh = z.object({ refreshToken: z.string().min(1).max(512) });

/** Completes a sign-in answered with `{twoFactorRequired: true, challengeToken}`. */
export const VerifyTwoFactor = z.object({
  challengeToken: z.string().min(1).max(512),
  /** the 6-digit TOTP code, or one of the recovery codes (each works once) */
  code: z.string().trim().min(6).max(64),
});
