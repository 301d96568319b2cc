import { defineRoute, type RouteSpec } from '../../../route';
import { getClient } from '../../../../services/clients';
import { currentLicense } from '../../../../services/licensing';
import { presentClient } from '../../../../presenters';

export const clientInfoRoutes: RouteSpec[] = [
  defineRoute({
    method: 'get',
    path: '/api/client/client-info',
    summary: "The signed-in user's client and its configuration (licensed features, read-only flag)",
    auth: 'user',
    async handler({ deps, actor, ctx }) {
      const [client, license] = await Promise.all([getClient(deps, actor.clientId), ctx.state.license ?? currentLicense(deps)]);
      return {
        ...presentClient(client),
        onPremise: true,
        evaluation: license.evaluation,
        readOnly: license.readOnly,
        features: license.terms.features,
      };
    },
  }),
];
