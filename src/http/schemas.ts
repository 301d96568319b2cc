import { z } from 'zod';

// Field schemas shared by several routes: one definition of what an email,
// a password or a timestamp looks like on the wire.

export const Email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: 'must be an email address' }));

/** The password policy's floor; per-client policies tighten it. */
export const MIN_PASSWORD_LENGTH = 12;
export const NewPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'must be at most 1024 characters');

/** A password being checked, not set: any length the policy may once have allowed. */
export const PresentedPassword = z.string().min(1).max(1024);

/**
 * A row id: a JSON number, or the digits of one (query strings and path
 * parameters are text). Nothing else is coerced: `true`, `[]` or `"1e3"` are
 * refused rather than read as 1 or 1000.
 */
const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const PositiveId = z
  .union([
    Id,
    z
      .string()
      .regex(/^\d{1,16}$/, 'must be a positive integer')
      .transform(Number),
  ])
  .pipe(Id);

export const IsoDateTime = z.iso
  .datetime({ offset: true, message: 'must be an ISO-8601 date-time' })
  .transform((v) => new Date(v).toISOString());

export const ShortText = (max: number) => z.string().trim().max(max);

/** A file part of a multipart body, for the OpenAPI document (the upload routes parse the parts themselves). */
export const FilePart = z
  .string()
  .meta({ contentMediaType: 'application/octet-stream', description: 'The file (a part named `file`; repeat it for several)' });

/** An upload's parts: one or more `file`, and the optional `metadata` JSON text. */
export const UploadParts = z.object({
  file: z.union([FilePart, z.array(FilePart)]),
  metadata: z.string().optional().meta({ description: 'JSON: per-file descriptions and options' }),
});
