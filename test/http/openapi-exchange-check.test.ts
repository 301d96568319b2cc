import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server';
import { checkExchange, documentedOperation } from '../helpers/openapi-exchange';

/**
 * The check every test request goes through (test/helpers/openapi-exchange.ts) finds contradictions: answers made up
 * here that the served document refuses must fail it, and the real answers pass.
 */
const check = suite('the exchange check against the served OpenAPI document');
let server: TestServer;
check.before(async () => {
  server = await startTestServer();
});
check.after(async () => server.stop());

function answered(status: number, body: unknown, contentType = 'application/json'): TestResponse {
  const text = body === undefined ? '' : JSON.stringify(body);
  return { status, headers: new Headers({ 'content-type': contentType }), body, text };
}

const exchange = (method: string, path: string, response: TestResponse) => ({
  method,
  url: new URL(`${server.url}${path}`),
  requestHeaders: {},
  requestBody: undefined,
  response,
});

async function contradiction(method: string, path: string, response: TestResponse): Promise<string> {
  try {
    await checkExchange(server.url, exchange(method, path, response));
  } catch (error) {
    return (error as Error).message;
  }
  return '';
}

check('a real answer passes', async () => {
  const res = await server.request('GET', '/api/client/auth/me'); // checked on the way
  assert.is(res.status, 401);
  assert.is(await contradiction('GET', '/api/client/auth/me', res), '');
});

check('an undocumented status, a body off its schema, an error outside the envelope: each is a contradiction', async () => {
  assert.match(await contradiction('GET', '/api/client/auth/me', answered(418, { error: {} })), 'status 418 is not documented');
  assert.match(
    await contradiction('GET', '/api/client/auth/me', answered(200, { data: { id: 'seven' } })),
    'does not match the 200 schema',
  );
  assert.match(await contradiction('GET', '/api/client/auth/me', answered(401, 'nope', 'text/plain')), 'media type text/plain');
  assert.match(await contradiction('DELETE', '/api/client/auth/me', answered(200, {})), 'not 405');
});

check('a literal segment wins over a parameter, method by method', async () => {
  assert.is(await documentedOperation(server.url, 'GET', '/api/admin/logs/export'), '/api/admin/logs/export');
  assert.is(await documentedOperation(server.url, 'GET', '/api/admin/logs/stream'), '/api/admin/logs/stream');
  // only DELETE has the parameter path: a GET of an id is no operation, a DELETE of "export" is the parameter's
  assert.is(await documentedOperation(server.url, 'GET', '/api/admin/logs/42'), undefined);
  assert.is(await documentedOperation(server.url, 'DELETE', '/api/admin/logs/42'), '/api/admin/logs/{id}');
  assert.is(await documentedOperation(server.url, 'DELETE', '/api/admin/logs/export'), '/api/admin/logs/{id}');
  assert.is(await documentedOperation(server.url, 'GET', '/api/admin/user/vendor-users-report'), '/api/admin/user/vendor-users-report');
  assert.is(await documentedOperation(server.url, 'GET', '/api/admin/logs/42/more'), undefined);
});

check.run();
