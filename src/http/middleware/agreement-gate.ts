import type { Middleware } from 'koa';
import { assertAgreementsAccepted } from '../../services/agreements';
import type { AppState } from '../state';

/** Client routes open before the agreements are accepted: auth, agreements, licensing, deployment info. */
const OPEN = [
  /^\/api\/client\/auth(\/|$)/,
  /^\/api\/client\/(eula|eula\/accept|agreement|accept-msa|have-client-accepted-msa|download-agreement)$/,
  /^\/api\/client\/(license|on-premise)$/,
];

/**
 * The agreement gate, one middleware after authentication and switchable per
 * deployment (config agreementGate / WIP_AGREEMENT_GATE): a signed-in client
 * user gets 403 MSA_NOT_ACCEPTED until the client has accepted the current
 * MSA, then 403 EULA_NOT_ACCEPTED until they have accepted the current EULA —
 * each only once one is published.
 */
export function agreementGate(): Middleware<AppState> {
  return async (ctx, next) => {
    const { deps, actor } = ctx.state;
    if (deps.config.agreementGate && actor?.kind === 'user') {
      const path = ctx.path.toLowerCase().replace(/\/+$/, '');
      if (path.startsWith('/api/client/') && !OPEN.some((open) => open.test(path))) await assertAgreementsAccepted(deps, actor);
    }
    await next();
  };
}
