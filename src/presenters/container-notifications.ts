import type { ContainerNotificationRow } from '#db/schema';

/** The part of a stored notification's payload the API shows (the payload was validated on receipt). */
interface StoredNotificationPayload {
  occurredAt?: string;
  data?: Record<string, unknown>;
}

export function presentContainerNotification(row: ContainerNotificationRow) {
  const payload = JSON.parse(row.payload) as StoredNotificationPayload;
  return {
    id: row.notification_id,
    type: row.kind,
    occurredAt: payload.occurredAt ?? null,
    data: payload.data ?? {},
    authenticatedBy: row.authenticated_by,
    receivedAt: row.received_at,
  };
}
