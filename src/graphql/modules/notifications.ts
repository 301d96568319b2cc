import type { SchemaModule } from '../module';
import type { GraphQLContext } from '../context';
import {
  changePreferences,
  getPreferences,
  NOTIFICATION_KINDS,
  type NotificationKind,
  type NotificationPreferences,
} from '#services/notifications';

/** The signed-in user's notification preferences (as GET/PUT /api/client/account/notification-preferences). */
export const notificationsModule: SchemaModule = {
  typeDefs: /* GraphQL */ `
    "A kind of notification, sent by mail and web push (README: Notifications)."
    enum NotificationKind {
      ${NOTIFICATION_KINDS.join('\n      ')}
    }

    type NotificationSetting {
      kind: NotificationKind!
      enabled: Boolean!
    }

    type NotificationPreferences {
      "BCP 47 tag the messages are written in; null: English"
      language: String
      "every kind, on by default"
      kinds: [NotificationSetting!]!
    }

    input NotificationSettingInput {
      kind: NotificationKind!
      enabled: Boolean!
    }

    input NotificationPreferencesInput {
      "BCP 47 tag; null: English; omitted: unchanged (a malformed tag is VALIDATION_ERROR)"
      language: String
      "the kinds to change; the others keep their values"
      kinds: [NotificationSettingInput!]
    }

    extend type Query {
      "The caller's notification preferences."
      notificationPreferences: NotificationPreferences!
    }

    type SetNotificationPreferencesPayload {
      "the preferences as now stored"
      preferences: NotificationPreferences!
    }

    extend type Mutation {
      "Changes the caller's notification preferences; omitted fields and kinds keep their values."
      setNotificationPreferences(input: NotificationPreferencesInput!): SetNotificationPreferencesPayload!
    }
  `,
  resolvers: {
    Query: {
      notificationPreferences: async (_root, _args, ctx: GraphQLContext) => present(await getPreferences(ctx.deps, ctx.actor)),
    },
    Mutation: {
      setNotificationPreferences: async (
        _root,
        args: { input: { language?: string | null; kinds?: { kind: NotificationKind; enabled: boolean }[] | null } },
        ctx: GraphQLContext,
      ) => {
        const { language, kinds } = args.input;
        const changes = kinds ? Object.fromEntries(kinds.map((k) => [k.kind, k.enabled])) : undefined;
        return {
          preferences: present(
            await changePreferences(ctx.deps, ctx.actor, {
              ...(language !== undefined && { language }),
              ...(changes && { kinds: changes }),
            }),
          ),
        };
      },
    },
  },
};

function present(prefs: NotificationPreferences) {
  return { language: prefs.language, kinds: NOTIFICATION_KINDS.map((kind) => ({ kind, enabled: prefs.kinds[kind] })) };
}
