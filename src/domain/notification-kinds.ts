/** What a user can be notified of (by mail and web push); each can be turned off in the user's preferences. */
export const NOTIFICATION_KINDS = [
  'version_submitted',
  'version_approved',
  'version_rejected',
  'job_assigned',
  'hand_off',
  'fault_raised',
  'skill_expiring',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
