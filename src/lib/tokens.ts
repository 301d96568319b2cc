import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random opaque token (base64url), 256 bits by default. Store only its hash. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 hex of a high-entropy token: enough for lookup, no salt needed (tokens are random). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A human-friendly random password (for the generated first admin password). */
export function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}
