import { z } from 'zod';
import { LICENSE_TYPES } from '#policies/roles';
import { PositiveId } from '../../../schemas';

const Change = z.object({ userId: PositiveId, licenseType: z.enum(LICENSE_TYPES) }).strict();

/** One change `{userId, licenseType}` or a batch `{changes: [...]}` applied all or nothing. */
export const ChangeLicenseTypes = z.union([
  Change.transform((change) => [change]),
  z
    .object({ changes: z.array(Change).min(1).max(500) })
    .strict()
    .transform((body) => body.changes),
]);
