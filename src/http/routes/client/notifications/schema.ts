import { z } from 'zod';
import { LanguageTag } from '#services/i18n';
import { NOTIFICATION_KINDS } from '#services/notifications';

const Kinds = z.object(
  Object.fromEntries(NOTIFICATION_KINDS.map((kind) => [kind, z.boolean()])) as Record<(typeof NOTIFICATION_KINDS)[number], z.ZodBoolean>,
);

/** PUT: omitted fields (and kinds) keep their values; an unknown kind is 422. */
export const UpdateNotificationPreferences = z
  .object({
    /** BCP 47; null: the appliance's default language */
    language: LanguageTag.nullable(),
    kinds: Kinds.partial().strict(),
  })
  .partial()
  .strict();

export const NotificationPreferencesAnswer = z.object({ language: z.string().nullable(), kinds: Kinds });
