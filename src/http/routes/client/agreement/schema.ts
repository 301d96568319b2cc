import { z } from 'zod';

/** `version`: the version the user saw; refused (409) when another one has become current meanwhile. */
export const AcceptAgreement = z.object({ version: z.string().trim().min(1).max(50).optional() });
