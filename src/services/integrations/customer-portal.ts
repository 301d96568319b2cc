import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Deps } from '#deps';
import { integrationNotConfigured } from '#errors';
import type { UserActor } from '../actor';
import { getClient } from '../clients';
import { currentLicense } from '../licensing';

/** How long a portal link works: long enough to follow it, too short to pass around. */
export const PORTAL_LINK_TTL_SECONDS = 300;

/**
 * A link into the vendor's customer portal that carries the client's identity:
 * `<customerPortalUrl>?token=<JWT>`, the JWT signed HS256 (HMAC-SHA256) with
 * customerPortalSecret, valid 5 minutes, with a unique `jti` the portal can
 * use to refuse a second use. Claims: iss (this installation), sub (client id),
 * clientName, licenseId, userId, email, iat, exp, jti.
 * @throws AppError INTEGRATION_NOT_CONFIGURED
 */
export async function customerPortalLink(deps: Deps, actor: UserActor): Promise<{ url: string; expiresAt: string }> {
  const { customerPortalUrl, customerPortalSecret } = deps.config;
  if (!customerPortalUrl || !customerPortalSecret)
    throw integrationNotConfigured('customer portal', ['customerPortalUrl', 'customerPortalSecret']);
  const [client, license] = await Promise.all([getClient(deps, actor.clientId), currentLicense(deps)]);
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  const claims = {
    iss: `wip:${license.installationId}`,
    sub: String(client.id),
    clientName: client.name,
    licenseId: license.terms.licenseId,
    userId: actor.userId,
    email: actor.email,
    iat: now,
    exp: now + PORTAL_LINK_TTL_SECONDS,
    jti: randomUUID(),
  };
  const token = jwt.sign(claims, customerPortalSecret, { algorithm: 'HS256' });
  const url = new URL(customerPortalUrl);
  url.searchParams.set('token', token);
  return { url: url.toString(), expiresAt: new Date(claims.exp * 1000).toISOString() };
}
