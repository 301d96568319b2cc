import { canonicalLanguage } from '#services/i18n';
import { z } from 'zod';
import { PositiveId } from '../../../schemas';

export const TemplateIdParams = z.object({ templateId: PositiveId });
export const VersionQuery = z.object({ versionId: PositiveId.optional() }).strict();
/** the reader's language for a PDF's texts (a BCP 47 tag; else Accept-Language) */
const Lang = z
  .string()
  .max(64)
  .refine((tag) => canonicalLanguage(tag) !== null, 'not a well-formed BCP 47 language tag (e.g. de, pt-BR)')
  .optional();
export const LanguageQuery = z.object({ lang: Lang }).strict();
export const VersionLanguageQuery = VersionQuery.extend({ lang: Lang }).strict();
export { CopyEntitiesInput } from '#services/copy-entities';
