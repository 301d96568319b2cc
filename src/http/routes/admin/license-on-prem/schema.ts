import { z } from 'zod';

/** docs/api/contract.md section 2: the on-premise license upload request. Line breaks (from e-mail or a .lic file) are allowed. */
export const InstallLicenseKey = z.object({
  licenseKey: z.string().trim().min(1, 'is required').max(16_384),
});
