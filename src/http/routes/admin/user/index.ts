import { defineRoute, type RouteSpec } from '../../../route';
import { mapPage } from '../../../../db/pagination';
import { tenantScope } from '../../../../db/tenant';
import { fieldError } from '../../../../errors';
import { SECURITY_ADMIN } from '../../../../policies/roles';
import { getClient } from '../../../../services/clients';
import { createUser, deleteUser, getUser, getUserAcrossClients, listUsers, updateUser } from '../../../../services/users';
import { presentUser } from '../../../../presenters';
import { CreateUser, ListUsers, UpdateUser, UserIdParams } from './schema';

// User management (SPEC.md 4.7, 4.8): a Security Administrator's client token
// acts in its own client; a system administrator's token may only read.
const securityAdmin = [SECURITY_ADMIN] as const;

export const adminUserRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/admin/user',
    summary: "List users of the caller's client (system administrators: of ?clientId=)",
    auth: 'user-or-admin',
    roles: securityAdmin,
    query: ListUsers,
    async handler({ deps, actor, query }) {
      let scope;
      if (actor.kind === 'user') scope = actor.scope;
      else {
        if (query.clientId === undefined) throw fieldError('query.clientId', 'required for system administrators');
        scope = tenantScope((await getClient(deps, query.clientId)).id);
      }
      return mapPage(await listUsers(deps, scope, query), presentUser);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/admin/user/:userId',
    summary: 'Get a user by id',
    auth: 'user-or-admin',
    roles: securityAdmin,
    params: UserIdParams,
    async handler({ deps, actor, params }) {
      const user =
        actor.kind === 'user' ? await getUser(deps, actor.scope, params.userId) : await getUserAcrossClients(deps, params.userId);
      return presentUser(user);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/admin/user',
    summary: "Create a user in the caller's client",
    auth: 'user',
    roles: securityAdmin,
    body: CreateUser,
    status: 201,
    async handler({ deps, actor, body }) {
      return presentUser(await createUser(deps, actor.scope, body));
    },
  }),
  defineRoute({
    method: 'put',
    path: '/api/admin/user',
    summary: 'Update a user (body includes id); omitted fields keep their values',
    auth: 'user',
    roles: securityAdmin,
    body: UpdateUser,
    async handler({ deps, actor, body }) {
      return presentUser(await updateUser(deps, actor.scope, body));
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/api/admin/user/:userId',
    summary: 'Delete a user: frees the seat and ends the sessions',
    auth: 'user',
    roles: securityAdmin,
    params: UserIdParams,
    async handler({ deps, actor, params }) {
      await deleteUser(deps, actor.scope, params.userId);
      return { id: params.userId, deleted: true };
    },
  }),
];
