import { z } from 'zod';
import { LICENSE_TYPES, ROLES } from '#policies/roles';
import { USER_STATUSES } from '#db/schema';
import { Email, NewPassword, PositiveId, ShortText } from '../../../schemas';
import { PageQuery } from '#db/pagination';

const Roles = z
  .array(z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` }))
  .min(1, 'at least one role')
  .max(ROLES.length)
  .transform((roles) => [...new Set(roles)]);

const OrgIds = z.array(z.union([z.string().trim().min(1).max(100), z.number().int()])).max(1000);

/** docs/api/contract.md section 2, "User (create and update, admin)". */
export const CreateUser = z.object({
  email: Email,
  roles: Roles,
  licenseType: z.enum(LICENSE_TYPES, { message: `must be one of ${LICENSE_TYPES.join(', ')}` }),
  firstName: ShortText(100).optional(),
  lastName: ShortText(100).optional(),
  title: ShortText(200).optional(),
  availableToOrg: OrgIds.optional(),
  /** when omitted the user is created `invited` and receives an invitation to set a password */
  password: NewPassword.optional(),
});

/** Omitted fields keep their values. */
export const UpdateUser = CreateUser.partial().extend({
  id: PositiveId,
  /** true disables the account (its sessions end at once; it keeps its seat); false enables it again */
  disabled: z.boolean().optional(),
});

/** A Security Administrator lists their own client; a system administrator must name one. */
export const ListUsers = PageQuery.extend({
  clientId: PositiveId.optional(),
  /** keeps users whose email, first or last name contains it (any case) */
  search: z.string().trim().max(200).optional(),
});

export const UserIdParams = z.object({ userId: PositiveId });

/** Filters of the vendor users report (a system administrator may name a client; a Security Administrator only their own). */
export const UserReportFilters = z.object({
  clientId: PositiveId.optional(),
  licenseType: z.enum(LICENSE_TYPES).optional(),
  status: z.enum(USER_STATUSES).optional(),
  role: z.enum(ROLES).optional(),
});
export const UserReportQuery = PageQuery.extend(UserReportFilters.shape);
