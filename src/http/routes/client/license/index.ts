import { z } from 'zod';
import { ClientLicense, OnPremise, User } from '#presenters/schemas';
import { defineRoute, type RouteSpec } from '../../../route';
import { changeUserLicenseTypes, clientLicense } from '#services/licensing/client-license';
import { currentLicense } from '#services/licensing/index';
import { presentUser } from '#presenters';
import { presentClientLicense, presentOnPremise } from '#presenters/licensing';
import { version } from '../../../../../package.json';
import { changedBy } from '#services/security-log';
import { ChangeLicenseTypes } from './schema';

export const clientLicenseRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/license',
    operationId: 'getClientLicense',
    response: ClientLicense,
    summary: "The client's seats per license type (allocated/used/free), the license's expiry, features, and evaluation/grace flags",
    auth: 'user',
    async handler({ deps, actor }) {
      return presentClientLicense(await clientLicense(deps, actor.scope));
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/client/license',
    operationId: 'changeClientLicense',
    response: z.object({ users: z.array(User), seats: z.unknown() }),
    errors: ['LICENSE_SEATS_EXHAUSTED'],
    summary:
      "Security Administrator: change users' license types ({userId, licenseType} or {changes: [...]}), within the client's seats and role rules",
    auth: 'user',
    permission: 'administerSecurity',
    body: ChangeLicenseTypes,
    async handler({ deps, actor, body, meta }) {
      const result = await changeUserLicenseTypes(deps, actor.scope, body, changedBy(actor, meta));
      return { users: result.users.map(presentUser), seats: result.seats };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/client/on-premise',
    operationId: 'getOnPremise',
    response: OnPremise,
    summary: 'Whether this is an on-premise deployment, its version and evaluation flag (license details when signed in)',
    auth: 'public',
    async handler({ deps, actor, ctx }) {
      return presentOnPremise(ctx.state.license ?? (await currentLicense(deps)), version, actor?.kind === 'user');
    },
  }),
];
