import type { ParameterizedContext } from 'koa';
import type { Deps } from '../deps';
import type { Actor } from '../services/actor';
import type { AppError } from '../errors';
import type { CurrentLicense } from '../services/licensing';
import type { RouteSpec } from './route';

/** What middleware leaves on ctx.state for the rest of the chain. */
export interface AppState {
  requestId: string;
  /** the hot path's check count when the request arrived (HotPathLookups.deploymentState) */
  hotPathChecks: number;
  deps: Deps;
  actor?: Actor;
  /** why a presented credential was refused; raised only by routes that need authentication */
  authError?: AppError;
  /** the matched route pattern, for logs and metrics */
  routePath?: string;
  /** the declarations of the routes this app mounts (the OpenAPI document describes exactly these); loads every route group */
  routes: () => readonly RouteSpec[];
  /** the license in force for this request (set by the license gate) */
  license?: CurrentLicense;
}

export type AppContext = ParameterizedContext<AppState>;
