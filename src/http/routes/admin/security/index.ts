import { Unlocked, User } from '../../../../presenters/schemas';
import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { PositiveId } from '../../../schemas';
import { SECURITY_ADMIN } from '../../../../policies/roles';
import { getUserAcrossClients } from '../../../../services/users';
import { unlockUser } from '../../../../services/lockout';
import { tenantScope } from '../../../../db/tenant';
import { resendInvitation } from '../../../../services/accounts';
import { presentUser } from '../../../../presenters';
import { eventActorOf } from '../../../../services/events';

/** the user named in the path */
const UnlockParams = z.object({ userId: PositiveId });

export const adminSecurityRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/invite',
    operationId: 'inviteUser',
    response: User,
    errors: ['CONFLICT'],
    summary: 'Email a new invitation to a user who has not set a password yet (the older link stops working; 409 otherwise)',
    auth: 'user',
    roles: [SECURITY_ADMIN],
    params: UnlockParams,
    rateLimit: { max: 20, windowMs: 15 * 60_000 },
    async handler({ deps, actor, params, meta }) {
      return presentUser(await resendInvitation(deps, actor.scope, params.userId, { userId: actor.userId, actor: eventActorOf(actor), meta }));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/unlock',
    operationId: 'unlockUser',
    response: Unlocked,
    summary: "Lift a sign-in lockout of a user's account (a Security Administrator of the client, or a system administrator)",
    auth: 'user-or-admin',
    roles: [SECURITY_ADMIN],
    params: UnlockParams,
    async handler({ deps, actor, params, meta }) {
      if (actor.kind === 'user') {
        return unlockUser(deps, actor.scope, params.userId, { userId: actor.userId, actor: eventActorOf(actor), via: 'security administrator', meta });
      }
      const user = await getUserAcrossClients(deps, params.userId);
      return unlockUser(deps, tenantScope(user.client_id), user.id, { adminId: actor.adminId, actor: eventActorOf(actor), via: 'system administrator', meta });
    },
  }),
];
