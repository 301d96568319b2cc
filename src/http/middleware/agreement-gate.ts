import type { Middleware } from 'koa';
import type { Deps } from '#deps';
import { assertAgreementsAccepted } from '#services/agreements';
import type { RouteSpec } from '../route-spec';
import type { AppState } from '../state';

/** Client routes open before the agreements are accepted: auth, agreements, licensing, deployment info. */
const OPEN = [
  /^\/api\/client\/auth(\/|$)/,
  /^\/api\/client\/(eula|eula\/accept|agreement|accept-msa|have-client-accepted-msa|download-agreement)$/,
  /^\/api\/client\/(license|on-premise)$/,
];

/**
 * The agreement gate of one client route, switchable per deployment (config
 * agreementGate / WIP_AGREEMENT_GATE): a signed-in client user gets 403
 * MSA_NOT_ACCEPTED until the client has accepted the current MSA, then 403
 * EULA_NOT_ACCEPTED until they have accepted the current EULA — each only
 * once one is published. None for the open routes.
 */
export function agreementGate(spec: Pick<RouteSpec, 'path'>, deps: Deps): Middleware<AppState> | undefined {
  if (!deps.config.agreementGate || !spec.path.startsWith('/api/client/') || OPEN.some((open) => open.test(spec.path))) return undefined;
  return async (ctx, next) => {
    const actor = ctx.state.actor;
    if (actor?.kind === 'user') await assertAgreementsAccepted(ctx.state.deps, actor, ctx.state.hotPathChecks);
    await next();
  };
}
