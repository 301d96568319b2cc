import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '#http/routes/index';
import { ERROR_STATUS } from '#errors';
import { startTestServer, type TestServer } from '../helpers/server';
import { PERMISSIONS } from '#policies/permissions';

let server: TestServer;
let document: any;
const openapi = suite('GET /api/openapi.json and GET /api/docs');
openapi.before(async () => {
  server = await startTestServer();
  const res = await server.request('GET', '/api/openapi.json');
  assert.is(res.status, 200, res.text);
  document = res.body;
});
openapi.after(async () => server.stop());

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const documented = () =>
  Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops)
      .filter((m) => METHODS.includes(m))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
const declared = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`;

openapi('is a valid OpenAPI 3.1 document, public', async () => {
  assert.is(document.openapi, '3.1.0');
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(document);
  assert.ok(result.valid, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
});

openapi('names every mounted route, and only mounted routes', async () => {
  assert.equal(documented().sort(), allRoutes().map(declared).sort());
  // …and the server really answers each documented operation: OPTIONS lists the methods it mounted at that path
  for (const [path, ops] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
    const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) =>
      name === 'file' ? 'start.js' : /token/i.test(name) ? 'some-token' : '1',
    );
    const res = await server.request('OPTIONS', concrete);
    const allowed = (res.headers.get('allow') ?? '').split(/,\s*/);
    for (const method of Object.keys(ops))
      assert.ok(allowed.includes(method.toUpperCase()), `${method.toUpperCase()} ${path} is not mounted (Allow: ${allowed})`);
  }
});

openapi('carries auth, roles, parameters, bodies, the envelope and the error codes', () => {
  const subscribe = document.paths['/api/client/push/subscribe'].post;
  assert.is(subscribe['x-auth'], 'user');
  assert.equal(subscribe.security, [{ clientBearer: [] }, { sessionCookie: [], csrfToken: [] }]);
  const body = subscribe.requestBody.content['application/json'].schema;
  assert.equal(body.required.sort(), ['endpoint', 'keys']);
  assert.ok(body.properties.keys.properties.p256dh);
  // the common statuses from the declaration: the global rate limit 429, auth 401/403, a body 400/413/415/422 and 404 (ids in it), idempotent write 409, 500/503 always
  assert.equal(Object.keys(subscribe.responses).sort(), [
    '201',
    '400',
    '401',
    '403',
    '404',
    '409',
    '413',
    '415',
    '422',
    '429',
    '500',
    '503',
  ]);
  assert.equal(subscribe.responses['201'].content['application/json'].schema.properties.success, { type: 'boolean', const: true });
  assert.ok(subscribe.parameters.some((p: any) => p.$ref === '#/components/parameters/Idempotency-Key'));
  assert.ok(subscribe.responses['201'].headers['Idempotency-Replayed']);

  const signIn = document.paths['/api/client/auth/sign-in'].post;
  assert.equal(signIn.security, []);
  assert.is(signIn['x-auth'], 'public');
  assert.is(signIn['x-roles'], undefined);
  assert.is(signIn.operationId, 'signIn');
  assert.match(signIn.responses['401'].description, 'INVALID_CREDENTIALS');
  assert.match(signIn.responses['403'].description, 'CSRF_FAILED');
  assert.ok(signIn.responses['429'].headers['Retry-After']);
  assert.ok(signIn.responses['200'].headers['X-RateLimit-Remaining']);
  assert.ok(signIn.parameters.some((p: any) => p.$ref === '#/components/parameters/X-Client-ID'));
  // the success data is typed, with named components
  const data = signIn.responses['200'].content['application/json'].schema.properties.data;
  assert.ok(JSON.stringify(data).includes('#/components/schemas/SignInTokens'), JSON.stringify(data));
  assert.ok(document.components.schemas.User.properties.email);

  const guarded = allRoutes().find((r) => r.permission)!;
  const roles = PERMISSIONS[guarded.permission!];
  const op = document.paths[declared(guarded).split(' ')[1]][guarded.method];
  assert.equal(op['x-roles'], [...roles]);
  assert.match(op.description, roles.join(', '));

  const withParam = allRoutes().find((r) => r.path.includes(':id'))!;
  const params = document.paths[declared(withParam).split(' ')[1]][withParam.method].parameters;
  assert.equal(params.find((p: any) => p.name === 'id').in, 'path');

  const withQuery = allRoutes().find((r) => r.query && r.method === 'get')!;
  assert.ok(document.paths[declared(withQuery).split(' ')[1]].get.parameters.some((p: any) => p.in === 'query'));

  // every code of ERROR_STATUS is documented under its status, and all of them in ErrorCode
  const documentedCodes = statuses().flatMap((s) => document.components.schemas[`Error${s}`].properties.error.properties.code.enum);
  assert.equal(documentedCodes.sort(), Object.keys(ERROR_STATUS).sort());
  assert.equal(document.components.schemas.ErrorCode.enum.sort(), Object.keys(ERROR_STATUS).sort());
  assert.equal(document.components.schemas.Error429.properties.error.properties.code.enum.sort(), ['RATE_LIMITED', 'TOO_MANY_ATTEMPTS']);
  assert.equal(document.components.schemas.Error400.properties.success, { type: 'boolean', const: false });
  assert.is(
    document.components.schemas.ErrorDetails.properties.fields.items.properties.path.pattern,
    '^(body|query|path|header)(\\.[^.]+)*$',
  );
});

const statuses = () => [...new Set(Object.values(ERROR_STATUS))];
const operations = () =>
  Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  );

openapi('operationIds: human (a verb, then a noun, camelCase), unique, declared by every route', () => {
  const ids = operations().map(({ op }) => op.operationId as string);
  assert.is(new Set(ids).size, ids.length, 'operationIds are unique');
  for (const route of allRoutes()) assert.ok(route.operationId, `${route.method.toUpperCase()} ${route.path} declares no operationId`);
  const VERBS =
    /^(get|list|create|update|delete|set|sign|refresh|verify|start|complete|exchange|receive|change|request|reset|enable|invite|unlock|install|preview|accept|download|export|import|copy|upload|replace|subscribe|unsubscribe|turn|save|work|add|clear|send|proxy|ping|redeliver|retry|stream|check|translate|post|reveal)[A-Z0-9]?/;
  for (const id of ids) {
    assert.match(id, /^[a-z][A-Za-z0-9]*$/, id);
    assert.match(id, VERBS, `${id} does not start with a verb`);
    assert.not.match(id, /Api(Client|Admin)/, `${id} is mechanical`);
  }
  assert.is(document.paths['/api/admin/user'].get.operationId, 'listUsers');
  assert.is(document.paths['/api/client/get-as-pdf/getTemplateAsPdf/{id}'].get.operationId, 'getTemplatePdf');
});

openapi('tags are declared by area with descriptions; servers and the security schemes are there', () => {
  const declaredTags = new Set((document.tags as { name: string; description: string }[]).map((t) => t.name));
  for (const tag of document.tags) assert.ok(tag.description.length > 10, tag.name);
  for (const { path, method, op } of operations()) {
    assert.is(op.tags.length, 1);
    assert.ok(declaredTags.has(op.tags[0]), `${method} ${path}: tag ${op.tags[0]} is not declared`);
    assert.ok(op.summary && op.summary.length <= 120, `${method} ${path}: summary`);
  }
  assert.equal(document.servers, [{ url: '/', description: document.servers[0].description, 'x-internal': false }]);
  assert.equal(Object.keys(document.components.securitySchemes).sort(), [
    'adminBearer',
    'clientBearer',
    'containerSignature',
    'csrfToken',
    'metricsToken',
    'sessionCookie',
  ]);
  assert.equal(document.paths['/api/admin/container-notification-center'].post.security, [{ containerSignature: [] }, { adminBearer: [] }]);
  assert.equal(document.paths['/api/admin/client'].get.security, [{ adminBearer: [] }, { sessionCookie: [] }]);
});

openapi('binary, streaming and special answers are described by what they are', () => {
  const pdf = document.paths['/api/client/get-as-pdf/getTemplateAsPdf/{id}'].get.responses['200'];
  assert.equal(Object.keys(pdf.content), ['application/pdf']);
  assert.ok(pdf.headers['Content-Disposition']);
  const file = document.paths['/api/client/files/{id}'].get;
  assert.ok(file.responses['206'] && file.responses['304'] && file.responses['416']);
  assert.ok(file.parameters.some((p: any) => p.$ref === '#/components/parameters/Range'));
  assert.ok(file.parameters.some((p: any) => p.$ref === '#/components/parameters/If-None-Match'));
  assert.ok(file.responses['200'].headers.ETag);
  const bundle = document.paths['/api/client/internalization/{lang}'].get.responses;
  assert.ok(bundle['304'] && bundle['404']);
  assert.equal(Object.keys(document.paths['/api/admin/logs/export'].get.responses['200'].content).sort(), [
    'application/x-ndjson',
    'text/csv',
  ]);
  assert.equal(Object.keys(document.paths['/api/client/events'].get.responses['200'].content), ['text/event-stream']);
  assert.equal(Object.keys(document.paths['/metrics'].get.responses['200'].content), ['text/plain']);
  assert.ok(document.paths['/metrics'].get.responses['401'] && document.paths['/metrics'].get.responses['403']);
  assert.equal(Object.keys(document.paths['/api/docs'].get.responses['200'].content), ['text/html']);
  const health = document.paths['/healthz'].get.responses['200'].content['application/json'].schema;
  assert.equal(health.$ref, '#/components/schemas/Health');
  const reports = document.paths['/api/client/reports'].get.responses;
  assert.ok(reports['410']);
  const graphql = document.paths['/api/client/graphql'].post;
  assert.equal(graphql.requestBody.content['application/json'].schema.$ref, '#/components/schemas/GraphqlRequest');
  assert.equal(document.components.schemas.GraphqlRequest.required, ['query']);
  const upload = document.paths['/api/client/upload'].post;
  assert.ok(upload.requestBody.content['multipart/form-data'].schema.properties.file);
  assert.ok(upload.responses['422']);
  assert.match(document.paths['/api/client/import-zip'].post.responses['422'].description, 'ARCHIVE_INVALID');
});

openapi('GET /api/docs is a page served offline: its script and style come from this server', async () => {
  const page = await server.request('GET', '/api/docs');
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  assert.equal(sources.sort(), ['/api/docs/start.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
  for (const source of sources) {
    const res = await fetch(server.url + source);
    assert.is(res.status, 200, source);
    const text = await res.text();
    assert.ok(
      source.endsWith('.css') ? /text\/css/.test(res.headers.get('content-type')!) : /javascript/.test(res.headers.get('content-type')!),
      source,
    );
    if (source.includes('swagger-ui-bundle')) assert.ok(text.length > 100_000 && text.includes('SwaggerUIBundle'));
  }
  assert.is((await server.request('GET', '/api/docs/index.html')).status, 404);
  assert.is((await server.request('GET', '/api/docs/..%2Fpackage.json')).status, 404);
});

openapi.run();
