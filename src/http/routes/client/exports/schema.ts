import { z } from 'zod';
import { PositiveId } from '../../../schemas';

export const TemplateIdParams = z.object({ templateId: PositiveId });
export const VersionQuery = z.object({ versionId: PositiveId.optional() }).strict();
export { CopyEntitiesInput } from '#services/copy-entities';
