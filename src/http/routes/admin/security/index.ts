import { Unlocked, UserWithInvitation } from '#presenters/schemas';
import { z } from 'zod';
import { defineRoute, principalBudget, type RouteSpec } from '../../../route';
import { PositiveId } from '../../../schemas';
import { getUserAcrossClients } from '#services/users';
import { unlockUser } from '#services/lockout';
import { tenantScope } from '#db/tenant';
import { resendInvitation } from '#services/accounts';
import { presentUser } from '#presenters';
import { invitationNotice, revealInvitationLink } from '#services/invitation-links';
import { logActorOf } from '#services/security-log';

/** the user named in the path */
const UnlockParams = z.object({ userId: PositiveId });

/** The invitation link handed over once (docs/api/accounts.md: "Without a mail server"). */
const InvitationLink = z.object({
  link: z.string().describe('<publicUrl>/auth/set-password/<token>: give it to the invited person only; never shown again'),
  userId: PositiveId,
  email: z.string(),
});

export const adminSecurityRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/invite',
    operationId: 'inviteUser',
    response: UserWithInvitation,
    errors: ['CONFLICT'],
    summary: 'Email a new invitation to a user who has not set a password yet (the older link stops working; 409 otherwise)',
    auth: 'user',
    permission: 'administerSecurity',
    params: UnlockParams,
    rateLimit: { max: 20, windowMs: 15 * 60_000 },
    async handler({ deps, actor, params, meta }) {
      const user = await resendInvitation(deps, actor.scope, params.userId, { userId: actor.userId, actor: logActorOf(actor), meta });
      return { ...presentUser(user), invitation: invitationNotice(deps) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/invitation-link',
    operationId: 'revealInvitationLink',
    errors: ['CONFLICT'],
    summary:
      "Without a mail server: hand the invitation link of an invited user of the caller's client to the Security Administrator, once (then removed from the outbox; a security event). 409 CONFLICT when mail is configured, the user is not invited or the link was handed over already",
    auth: 'user',
    permission: 'administerSecurity',
    params: UnlockParams,
    // a link per invitation, rarely more than a few an hour: a tight budget against a stolen session harvesting links
    rateLimit: principalBudget('invitation-link', 10, 15 * 60_000),
    response: InvitationLink,
    async handler({ deps, actor, params, meta }) {
      return revealInvitationLink(deps, actor.scope, params.userId, { userId: actor.userId, meta });
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/unlock',
    operationId: 'unlockUser',
    response: Unlocked,
    summary: "Lift a sign-in lockout of a user's account (a Security Administrator of the client, or a system administrator)",
    auth: 'user-or-admin',
    permission: 'administerSecurity',
    params: UnlockParams,
    async handler({ deps, actor, params, meta }) {
      if (actor.kind === 'user') {
        return unlockUser(deps, actor.scope, params.userId, {
          userId: actor.userId,
          actor: logActorOf(actor),
          via: 'security administrator',
          meta,
        });
      }
      const user = await getUserAcrossClients(deps, params.userId);
      return unlockUser(deps, tenantScope(user.client_id), user.id, {
        adminId: actor.adminId,
        actor: logActorOf(actor),
        via: 'system administrator',
        meta,
      });
    },
  }),
];
