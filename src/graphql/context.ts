import type { GraphQLError } from 'graphql';
import type { Deps } from '#deps';
import { REQUEST_EXPANSION_STEPS, type ExpansionBudget } from '#domain/recurrence';
import type { TenantScope } from '#db/tenant';
import type { RequestMeta, UserActor } from '#services/actor';
import { createLoaders, type Loaders } from './loaders';

/**
 * What every resolver gets: the same actor and tenant scope REST handlers get
 * (set by the authenticate middleware before GraphQL runs), and this request's
 * DataLoaders, so related rows cost a fixed number of statements per page.
 */
// a type alias (not an interface) so graphql-http's OperationContext accepts it
export type GraphQLContext = {
  deps: Deps;
  actor: UserActor;
  scope: TenantScope;
  meta: RequestMeta;
  loaders: Loaders;
  /** whether the caller closed the connection: a query still waiting for its turn is then not run */
  clientGone: () => boolean;
  /** the recurrence steps this request's schedules may still walk (`Schedule.nextOccurrences`) */
  expansion: ExpansionBudget;
  /**
   * Errors of fields that still answered a value (an incomplete one): the handler adds them to the result's
   * `errors` (a resolver can answer a value or throw, not both).
   */
  partialErrors: GraphQLError[];
};

export function createContext(deps: Deps, actor: UserActor, meta: RequestMeta, clientGone: () => boolean = () => false): GraphQLContext {
  let loaders: Loaders | undefined;
  return {
    deps,
    actor,
    scope: actor.scope,
    meta,
    // made on first use, when the query runs: a query waiting for its turn holds no loaders
    get loaders() {
      return (loaders ??= createLoaders(deps, actor.scope));
    },
    clientGone,
    expansion: { steps: REQUEST_EXPANSION_STEPS },
    partialErrors: [],
  };
}
