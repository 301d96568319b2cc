import { z } from 'zod';
import { Email, NewPassword, ShortText } from '../../../schemas';
import { PageQuery } from '../../../../db/pagination';

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

export const UpdateClient = z.object({ name: ShortText(200).min(1).optional() });

/** any case; LIKE wildcards in it are matched literally */
export const ClientListQuery = PageQuery.extend({ search: z.string().trim().max(200).optional() });
