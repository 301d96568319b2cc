import { z } from 'zod';
import { Email, PositiveId, PresentedPassword, ShortText } from '../../../schemas';

// Passwords here are checked against the client's password policy by the
// service (422 VALIDATION_ERROR naming the field and every reason), so the
// schema only bounds their size.
const NewPasswordInput = z.string().min(1).max(1024);

/** The emailed single-use token in the path. */
export const TokenParams = z.object({ token: z.string().min(16).max(512) });

/**
 * Either `{invitationToken, password, firstName?, lastName?}` (activate an
 * invitation) or `{clientId, email, firstName?, lastName?}` (join by an allowed
 * email domain: a link to set the password is emailed).
 */
export const SignUp = z.object({
  invitationToken: z.string().min(16).max(512).optional(),
  password: NewPasswordInput.optional(),
  clientId: PositiveId.optional(),
  email: Email.optional(),
  firstName: ShortText(100).optional(),
  lastName: ShortText(100).optional(),
});

/** A new client with the caller as owner (when self-service is enabled). */
export const CreateAccount = z.object({
  email: Email,
  password: NewPasswordInput,
  clientName: ShortText(200).min(1),
  firstName: ShortText(100).optional(),
  lastName: ShortText(100).optional(),
});

export const SetPassword = z.object({
  password: NewPasswordInput,
  firstName: ShortText(100).optional(),
  lastName: ShortText(100).optional(),
});

export const Forgot = z.object({
  email: Email,
  /** only reset the account in this client (the same email may exist in several) */
  clientId: PositiveId.optional(),
});

export const ResetPassword = z.object({ password: NewPasswordInput });

export const ChangePassword = z.object({ currentPassword: PresentedPassword, newPassword: NewPasswordInput });

export const SecuritySettingsQuery = z.object({ clientId: PositiveId.optional() });

// trimmed and lower-cased before the check: the OpenAPI document (input) says a string, as the server accepts
const Domain = z
  .string()
  .max(300)
  .transform((value) => value.trim().toLowerCase())
  .pipe(
    z.string().regex(/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain name such as example.com'),
  );

/** PUT: omitted fields keep their values. */
export const UpdateSecuritySettings = z
  .object({
    passwordMinLength: z.number().int().min(12).max(128),
    twoFactorRequired: z.enum(['off', 'all', 'admins']),
    /** seconds of inactivity after which a cookie session ends; null: the appliance default */
    sessionIdleTimeout: z
      .number()
      .int()
      .min(60)
      .max(90 * 86_400)
      .nullable(),
    allowedSignUpDomains: z.array(Domain).max(100),
    ssoEnforced: z.boolean(),
    /** separation of duties relaxed: approvers may approve versions they authored or last edited */
    allowSelfApproval: z.boolean(),
  })
  .partial()
  .strict();

/** What the page of an invitation or reset link shows before the first attempt. */
export const AccountLinkDetails = z.object({
  email: z.string(),
  passwordPolicy: z.object({
    minLength: z.number().int(),
    rules: z.array(z.string()).describe('the rules the password must meet, in words'),
  }),
});
