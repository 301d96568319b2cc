import { z } from 'zod';
import { defineRoute, type RouteSpec } from '../../../route';
import { PositiveId } from '../../../schemas';
import { SECURITY_ADMIN } from '../../../../policies/roles';
import { getUserAcrossClients } from '../../../../services/users';
import { unlockUser } from '../../../../services/lockout';
import { tenantScope } from '../../../../db/tenant';

const UnlockParams = z.object({ userId: PositiveId });

export const adminSecurityRoutes: RouteSpec[] = [
  defineRoute({
    method: 'post',
    path: '/api/admin/user/:userId/unlock',
    summary: "Lift a sign-in lockout of a user's account (a Security Administrator of the client, or a system administrator)",
    auth: 'user-or-admin',
    roles: [SECURITY_ADMIN],
    params: UnlockParams,
    async handler({ deps, actor, params, meta }) {
      if (actor.kind === 'user') {
        return unlockUser(deps, actor.scope, params.userId, { userId: actor.userId, via: 'security administrator', meta });
      }
      const user = await getUserAcrossClients(deps, params.userId);
      return unlockUser(deps, tenantScope(user.client_id), user.id, { adminId: actor.adminId, via: 'system administrator', meta });
    },
  }),
];
