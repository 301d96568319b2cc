import { allRoutes } from '#http/routes/index';

/**
 * The operations whose success answer the OpenAPI document does not describe (no `response` schema and no
 * `produces`): the exchange check of the test suite checks their statuses and error bodies only.
 * `node dist/scripts/openapi-coverage.js`
 */
const routes = allRoutes();
const untyped = routes.filter((route) => !route.response && !route.produces && !route.errors?.includes('GONE'));
for (const route of untyped) console.log(`${route.method.toUpperCase()} ${route.path}`);
console.log(`${routes.length - untyped.length} of ${routes.length} operations describe their success answer`);
