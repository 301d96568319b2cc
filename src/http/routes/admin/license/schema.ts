import { z } from 'zod';
import { LICENSE_TYPES } from '#policies/roles';
import { IsoDateTime, PositiveId } from '../../../schemas';
import { PageQuery } from '#db/pagination';

const Seats = z.number().int().min(0).max(1_000_000);

export const ListLicenses = PageQuery.extend({ clientId: PositiveId.optional() });

export const CreateLicense = z.object({
  clientId: PositiveId,
  licenseType: z.enum(LICENSE_TYPES),
  seats: Seats,
  /** no expiry when omitted or null */
  expiresAt: IsoDateTime.nullable().optional(),
});

export const UpdateLicense = z.object({
  licenseType: z.enum(LICENSE_TYPES).optional(),
  seats: Seats.optional(),
  expiresAt: IsoDateTime.nullable().optional(),
});
