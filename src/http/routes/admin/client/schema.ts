import { z } from 'zod';
import { Email, NewPassword, ShortText } from '../../../schemas';
import { PageQuery } from '#db/pagination';
import { isTimeZone } from '#lib/time-zones';

const Seats = z.number().int().min(0).max(1_000_000);

export const CreateClient = z.object({
  name: ShortText(200).min(1),
  owner: z.object({
    email: Email,
    firstName: ShortText(100).optional(),
    lastName: ShortText(100).optional(),
    /** when omitted the owner is invited to set a password */
    password: NewPassword.optional(),
  }),
  /** seats per license type; default one full seat (the owner's) */
  seats: z.object({ full: Seats.optional(), connect: Seats.optional() }).optional(),
});

const FileId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const UpdateClient = z
  .object({
    name: ShortText(200).min(1).optional(),
    /** the client's logo: a system file (POST /api/admin/upload, PNG/JPEG/GIF/WebP); null removes it */
    logoFileId: FileId.nullable().optional(),
    /** organization logos (null: the organization shows the client's logo) */
    organizationLogos: z
      .array(z.object({ organizationId: FileId, logoFileId: FileId.nullable() }).strict())
      .max(200)
      .optional(),
    /** the IANA time zone the client's schedules recur in (docs/recurring-and-follow-up-jobs.md) */
    timeZone: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').optional(),
  })
  .strict();

/** any case; LIKE wildcards in it are matched literally */
export const ClientListQuery = PageQuery.extend({ search: z.string().trim().max(200).optional() });
