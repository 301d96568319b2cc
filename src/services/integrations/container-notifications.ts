import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Deps } from '#deps';
import type { Actor } from '../actor';
import type { ContainerNotificationRow } from '#db/schema';
import type { Page, PageInput } from '#db/pagination';
import { AppError, conflict, integrationNotConfigured } from '#errors';
import { canonicalJson } from '#lib/canonical-json';
import { findContainerNotification, insertContainerNotification, listContainerNotifications } from '#repos/container-notifications';

/** The signature header: `sha256=<hex HMAC-SHA256 of the raw body>` (the convention GitHub and Gitea webhooks use). */
export const SIGNATURE_HEADER = 'x-signature-256';

/** A notification of the container platform: its id is the idempotency key. */
export const ContainerNotification = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/, 'letters, digits, . _ : - (at most 128)'),
    /** e.g. image.updated, restart.scheduled */
    type: z.string().regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'lower-case, dotted, e.g. image.updated'),
    occurredAt: z.iso.datetime({ offset: true }).optional(),
    data: z.record(z.string().max(100), z.unknown()).optional(),
  })
  .strict()
  .refine((n) => JSON.stringify(n).length <= 64 * 1024, 'at most 64 KiB');
export type ContainerNotificationInput = z.infer<typeof ContainerNotification>;

const signatureInvalid = (message: string) => new AppError('SIGNATURE_INVALID', message);

/**
 * Who may post a notification: a system administrator (their token), or the
 * platform (the signature). It is checked before anything else about the
 * request, and an unauthenticated caller learns nothing of the configuration:
 * without a secret no signature can be right, so every one is refused like a
 * wrong one (401). Only an authenticated administrator is told that the
 * integration is not configured (503), and then nothing is stored.
 * @throws AppError SIGNATURE_INVALID (missing or wrong), INTEGRATION_NOT_CONFIGURED (no secret; an administrator only)
 */
export function authenticateContainerNotification(deps: Deps, actor: Actor | undefined, rawBody: string | undefined, header: string): void {
  const secret = deps.config.containerNotificationSecret;
  if (actor?.kind === 'admin') {
    if (!secret) throw integrationNotConfigured('container notifications', ['containerNotificationSecret']);
    return;
  }
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) throw signatureInvalid(`Send ${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the body>`);
  // with no secret configured a random key: the comparison fails as for a wrong signature, in the same time
  const expected = createHmac('sha256', secret || randomBytes(32))
    .update(rawBody ?? '', 'utf8')
    .digest();
  if (!secret || !timingSafeEqual(expected, Buffer.from(match[1], 'hex'))) throw signatureInvalid('The signature does not match the body');
}

/**
 * Stores a notification once per id. A repeat with the same content answers
 * the stored one (`duplicate: true`); the same id with other content is 409.
 * @throws AppError CONFLICT
 */
export async function receiveContainerNotification(
  deps: Deps,
  notification: ContainerNotificationInput,
  authenticatedBy: string,
): Promise<{ notification: ContainerNotificationRow; duplicate: boolean }> {
  const payload = canonicalJson(notification);
  const inserted = await insertContainerNotification(deps.db.kysely, {
    notification_id: notification.id,
    kind: notification.type,
    payload,
    authenticated_by: authenticatedBy,
    received_at: deps.clock.now().toISOString(),
  });
  const stored = (await findContainerNotification(deps.db.kysely, notification.id))!;
  if (!inserted && stored.payload !== payload)
    throw conflict('A different notification with this id was already received', { id: notification.id });
  if (inserted) deps.logger.info({ notificationId: notification.id, type: notification.type }, 'container notification received');
  return { notification: stored, duplicate: !inserted };
}

export function listNotifications(deps: Deps, filter: { type?: string }, page: PageInput): Promise<Page<ContainerNotificationRow>> {
  return listContainerNotifications(deps.db.kysely, { kind: filter.type }, page);
}
