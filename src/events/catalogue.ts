/**
 * The one catalogue of event types. A client's events go to its webhooks and
 * its users' live streams; system events go to the system administrators'
 * webhooks only. docs/api/events-webhooks.md shows a payload of each.
 */
export const CLIENT_EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.disabled',
  'user.deleted',
  'license.changed',
  'template.version.submitted',
  'template.version.approved',
  'template.version.rejected',
  'template.version.published',
  'template.version.retired',
  'job.created',
  'job.assigned',
  'job.started',
  'job.completed',
  'job.cancelled',
  'job.step.recorded',
  'job.handoff.requested',
  'job.handoff.accepted',
  'job.handoff.declined',
  'fault.raised',
  'fault.closed',
  'skill.expiring',
] as const;

export const SYSTEM_EVENT_TYPES = ['client.created', 'client.deleted', 'license.installed', 'backup.failed'] as const;

/** Sent by POST …/webhooks/:id/ping to that endpoint only; never on the live stream. */
export const PING_EVENT = 'webhook.ping';

export type ClientEventType = (typeof CLIENT_EVENT_TYPES)[number];
export type SystemEventType = (typeof SYSTEM_EVENT_TYPES)[number];
export type EventType = ClientEventType | SystemEventType | typeof PING_EVENT;
