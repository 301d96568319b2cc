import { z } from 'zod';
import { MODEL_TYPES, type ModelType } from '#storage/content-type';
import { fieldError } from '#errors';

/** The `metadata` part of an upload (docs/api/contract.md section 2): JSON text. */
export const UploadMetadata = z.object({ description: z.string().max(2000).default('') });

/** The metadata part parsed; malformed JSON or a wrong shape → 422 naming `metadata`. */
export function parseMetadata(text: string | undefined): z.output<typeof UploadMetadata> {
  if (text === undefined) return { description: '' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fieldError('metadata', 'must be JSON text such as {"description": "…"}');
  }
  const parsed = UploadMetadata.safeParse(value);
  if (!parsed.success)
    throw fieldError(
      `metadata.${parsed.error.issues[0]?.path.join('.') ?? ''}`.replace(/\.$/, ''),
      parsed.error.issues[0]?.message ?? 'invalid',
    );
  return parsed.data;
}

export const ModelParams = z.object({
  type: z.enum(Object.keys(MODEL_TYPES) as [ModelType, ...ModelType[]]),
  id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

const Id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const StepId = z.string().trim().min(1).max(100);

/** ?templateId=&stepId= or ?assetId= (also the text fields of the upload; which one is checked by the service) */
export const AlignmentQuery = z.object({ templateId: Id.optional(), stepId: StepId.optional(), assetId: Id.optional() });
