import { defineRoute, type RouteSpec } from '../../../route';
import { changePreferences, getPreferences } from '#services/notifications';
import { NotificationPreferencesAnswer, UpdateNotificationPreferences } from './schema';

/** The signed-in user's notification choices (services/notifications.ts sends the notifications). */
export const clientNotificationRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/account/notification-preferences',
    operationId: 'getNotificationPreferences',
    summary:
      "The caller's notification preferences: {language (BCP 47, null: English), kinds: {version_submitted, version_approved, version_rejected, job_assigned, hand_off, fault_raised, skill_expiring: boolean}} (all on by default; mail and web push alike)",
    auth: 'user',
    response: NotificationPreferencesAnswer,
    async handler({ deps, actor }) {
      return getPreferences(deps, actor);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/client/account/notification-preferences',
    operationId: 'updateNotificationPreferences',
    summary:
      "Change the caller's notification preferences {language?, kinds?: {kind: boolean}}; omitted fields and kinds keep their values; an unknown kind or a malformed language tag is 422",
    auth: 'user',
    body: UpdateNotificationPreferences,
    response: NotificationPreferencesAnswer,
    async handler({ deps, actor, body }) {
      return changePreferences(deps, actor, body);
    },
  }),
];
