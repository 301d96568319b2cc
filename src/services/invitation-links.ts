import fs from 'node:fs';
import path from 'node:path';
import type { Deps } from '#deps';
import type { TenantScope } from '#db/tenant';
import { conflict } from '#errors';
import { outboxDir } from '#mail/outbox-files';
import { findLatestInvitationMail, replaceOutboxBody } from '#repos/outbox';
import { getUserById } from '#repos/users';
import type { RequestMeta } from './actor';
import { recordLogEntry } from './security-log';
import { findValidUserToken } from './user-tokens';

/**
 * Invitations on an appliance without a mail server. The invitation
 * mail is queued in the outbox as always; without SMTP it only reaches
 * <data-dir>/outbox/<id>.eml, and nobody in the plant reads that. So the
 * client's Security Administrator may take the link out of the outbox ONCE, to
 * hand it to the person: the link is then removed from the outbox (row and
 * .eml file), so the server keeps no readable copy and a second reveal finds
 * nothing. The token itself is never logged; the reveal is a security event.
 */

/** How an invitation travels: `queued` for the mail server (SMTP configured), `outbox` when it only reaches the data directory. */
export type InvitationDelivery = 'queued' | 'outbox';

export interface InvitationNotice {
  delivery: InvitationDelivery;
  /** the Security Administrator may take the link once (POST /api/admin/user/:userId/invitation-link) */
  linkRevealable: boolean;
}

export function invitationNotice(deps: Pick<Deps, 'config'>): InvitationNotice {
  const viaSmtp = deps.config.smtpUrl !== '';
  return { delivery: viaSmtp ? 'queued' : 'outbox', linkRevealable: !viaSmtp };
}

const LINK = /\S+\/auth\/set-password\/([A-Za-z0-9_-]+)/;
const HANDED_OVER = '[This invitation link was handed over in the console; it is shown only once.]';

/**
 * The user's newest invitation mail once the mailer has written it (status `stored`): the mailer writes the
 * .eml from the row it read, so a link taken before would live on in the file. Right after the invitation it
 * may still be on its way (a few milliseconds): delivered now, or waited for briefly.
 * @throws AppError CONFLICT (still not written)
 */
async function storedInvitationMail(deps: Deps, scope: TenantScope, userId: number) {
  let mail = await findLatestInvitationMail(deps.db.kysely, scope.clientId, userId);
  for (let attempt = 0; mail?.status === 'pending' && attempt < 20; attempt++) {
    if (attempt === 0) await deps.signals.deliverMail();
    else await new Promise((resolve) => setTimeout(resolve, 100));
    mail = await findLatestInvitationMail(deps.db.kysely, scope.clientId, userId);
  }
  if (mail?.status === 'pending')
    throw conflict('The invitation is still on its way to the outbox: try again in a moment', { reason: 'not_yet_stored' });
  return mail;
}

/**
 * Gives the Security Administrator the invitation link of a user of their
 * client, once.
 * @throws AppError NOT_FOUND (not a user of this client), CONFLICT (mail is configured,
 *   the user is not invited, or the link was handed over already), TOKEN_INVALID (the invitation expired)
 */
export async function revealInvitationLink(
  deps: Deps,
  scope: TenantScope,
  userId: number,
  by: { userId: number; meta: RequestMeta },
): Promise<{ link: string; userId: number; email: string }> {
  if (deps.config.smtpUrl !== '') {
    throw conflict('Mail is configured: the invitation was mailed. Send it again if it did not arrive.', { reason: 'mail_configured' });
  }
  const user = await getUserById(deps.db.kysely, scope, userId);
  if (user.status !== 'invited')
    throw conflict('Only a user who has not set a password yet has an invitation link', { reason: 'not_invited' });
  const mail = await storedInvitationMail(deps, scope, user.id);
  const match = mail ? LINK.exec(mail.text_body) : null;
  if (!mail || !match) {
    throw conflict('The invitation link was handed over already: send the invitation again for a new link', { reason: 'already_revealed' });
  }
  // the newest mail's link is the user's only live one (sending again replaces it); an expired one is TOKEN_INVALID
  await findValidUserToken(deps, match[1], 'invite');
  const redacted = mail.text_body.replace(LINK, HANDED_OVER);
  if (!(await replaceOutboxBody(deps.db.kysely, mail.id, mail.text_body, redacted, deps.clock.now().toISOString()))) {
    throw conflict('The invitation link was handed over already: send the invitation again for a new link', { reason: 'already_revealed' });
  }
  // the copy the mailer wrote for the operator holds the link too
  fs.rmSync(path.join(outboxDir(deps.config.dataDir), `${mail.id}.eml`), { force: true });
  await recordLogEntry(deps, {
    level: 'warn',
    event: 'auth.invitation_link_revealed',
    message: 'Invitation link handed over in the console (mail is not configured)',
    clientId: scope.clientId,
    userId: by.userId,
    meta: by.meta,
    data: { invitedUserId: user.id, invitedEmail: user.email, outboxId: mail.id },
  });
  return { link: match[0], userId: user.id, email: user.email };
}
