import { z } from 'zod';

/** base64url (no padding) that decodes to exactly `bytes` bytes */
const base64url = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, `${what} is base64url`)
    .refine((value) => Buffer.from(value, 'base64url').length === bytes, `${what} is ${bytes} bytes`);

/** A browser's PushSubscription as `JSON.stringify(subscription)` gives it. */
export const PushSubscriptionBody = z.object({
  endpoint: z.string().max(2048),
  expirationTime: z.number().nullable().optional(),
  keys: z.object({
    /** the browser's ECDH P-256 public key, uncompressed (65 bytes, 0x04…) */
    p256dh: base64url(65, 'keys.p256dh').refine(
      (value) => Buffer.from(value, 'base64url')[0] === 0x04,
      'keys.p256dh is an uncompressed P-256 point',
    ),
    /** the 16-byte authentication secret */
    auth: base64url(16, 'keys.auth'),
  }),
});

export const UnsubscribeBody = z.object({ endpoint: z.string().min(1).max(2048) });

export const TurnPushBody = z.object({ enabled: z.boolean() });
