import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '../../src/http/routes';
import { ERROR_STATUS } from '../../src/errors';
import { startTestServer, type TestServer } from '../helpers/server';

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
    Object.keys(ops).filter((m) => METHODS.includes(m)).map((method) => `${method.toUpperCase()} ${path}`),
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
    const concrete = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'file' ? 'start.js' : /token/i.test(name) ? 'some-token' : '1'));
    const res = await server.request('OPTIONS', concrete);
    const allowed = (res.headers.get('allow') ?? '').split(/,\s*/);
    for (const method of Object.keys(ops)) assert.ok(allowed.includes(method.toUpperCase()), `${method.toUpperCase()} ${path} is not mounted (Allow: ${allowed})`);
  }
});

openapi('carries auth, roles, parameters, bodies, the envelope and the error codes', () => {
  const subscribe = document.paths['/api/client/push/subscribe'].post;
  assert.is(subscribe['x-auth'], 'user');
  assert.equal(subscribe.security, [{ bearer: [] }, { session: [] }]);
  const body = subscribe.requestBody.content['application/json'].schema;
  assert.equal(body.required.sort(), ['endpoint', 'keys']);
  assert.ok(body.properties.keys.properties.p256dh);
  assert.equal(Object.keys(subscribe.responses).sort(), ['201', '400', '401', '403', '409', '413', '415', '422', '429', '500', '503']);
  assert.equal(subscribe.responses['201'].content['application/json'].schema.properties.success, { const: true });

  const signIn = document.paths['/api/client/auth/sign-in'].post;
  assert.equal(signIn.security, []);
  assert.is(signIn['x-auth'], 'public');
  assert.is(signIn['x-roles'], undefined);

  const guarded = allRoutes().find((r) => r.roles && r.roles.length > 0)!;
  const op = document.paths[declared(guarded).split(' ')[1]!][guarded.method];
  assert.equal(op['x-roles'], [...guarded.roles!]);
  assert.match(op.description, guarded.roles!.join(', '));

  const withParam = allRoutes().find((r) => r.path.includes(':id'))!;
  const params = document.paths[declared(withParam).split(' ')[1]!][withParam.method].parameters;
  assert.equal(params.find((p: any) => p.name === 'id').in, 'path');

  const withQuery = allRoutes().find((r) => r.query && r.method === 'get')!;
  assert.ok(document.paths[declared(withQuery).split(' ')[1]!].get.parameters.some((p: any) => p.in === 'query'));

  // every code of ERROR_STATUS is documented under its status
  const documentedCodes = Object.values(document.components.schemas as Record<string, any>).flatMap((s) => s.properties.error.properties.code.enum);
  assert.equal(documentedCodes.sort(), Object.keys(ERROR_STATUS).sort());
  assert.equal(document.components.schemas.Error429.properties.error.properties.code.enum.sort(), ['RATE_LIMITED', 'TOO_MANY_ATTEMPTS']);
});

openapi('GET /api/docs is a page served offline: its script and style come from this server', async () => {
  const page = await server.request('GET', '/api/docs');
  assert.is(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /text\/html/);
  const csp = page.headers.get('content-security-policy') ?? '';
  assert.match(csp, "script-src 'self'");
  const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.equal(sources.sort(), ['/api/docs/start.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
  for (const source of sources) {
    const res = await fetch(server.url + source);
    assert.is(res.status, 200, source);
    const text = await res.text();
    assert.ok(source.endsWith('.css') ? /text\/css/.test(res.headers.get('content-type')!) : /javascript/.test(res.headers.get('content-type')!), source);
    if (source.includes('swagger-ui-bundle')) assert.ok(text.length > 100_000 && text.includes('SwaggerUIBundle'));
  }
  assert.is((await server.request('GET', '/api/docs/index.html')).status, 404);
  assert.is((await server.request('GET', '/api/docs/..%2Fpackage.json')).status, 404);
});

openapi.run();
