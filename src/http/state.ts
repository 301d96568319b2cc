// AppState and AppContext are declared with the routes (route-spec.ts): a route's chain and the request state refer to each other.
export type { AppContext, AppState } from './route-spec';
