import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { serverAudits } from 'graphql-http';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';

let server: TestServer;
const endpoint = suite('POST /api/client/graphql');
endpoint.before(async () => {
  server = await startTestServer();
});
endpoint.after(async () => server.stop());

endpoint('401 envelope without a token, before GraphQL runs', async () => {
  const res = await server.request('POST', '/api/client/graphql', { body: { query: '{ me { id } }' } });
  assert.is(res.status, 401);
  assert.is(res.body.success, false);
  assert.is(res.body.error.code, 'UNAUTHORIZED');
});

endpoint('me answers the signed-in user', async () => {
  const client = await buildClient(server);
  const result = await gql(server, client.owner.token, '{ me { id email roles } }');
  assert.is(result.status, 200, JSON.stringify(result.body));
  assert.is(result.data.me.id, client.owner.id);
  assert.is(result.data.me.email, client.owner.email);
  assert.ok(result.data.me.roles.includes('admin'));
});

endpoint('a syntax error is a 400 with a code', async () => {
  const client = await buildClient(server);
  const result = await gql(server, client.owner.token, '{ me { id ');
  assert.is(result.status, 400);
  assert.equal(result.codes, ['BAD_REQUEST']);
});

endpoint('an oversize query is refused before execution with QUERY_TOO_COMPLEX', async () => {
  const client = await buildClient(server);
  const deep = '{ me { id } ' + 'a: me { id } '.repeat(1) + '}';
  assert.is((await gql(server, client.owner.token, deep)).status, 200);
  // aliases multiply cost: 60,000 aliased fields exceed the cost limit
  const wide = '{ ' + Array.from({ length: 3000 }, (_, i) => `m${i}: me { id email firstName lastName title roles licenseType }`).join(' ') + ' }';
  const result = await gql(server, client.owner.token, wide);
  assert.is(result.codes[0], 'QUERY_TOO_COMPLEX', JSON.stringify(result.body).slice(0, 300));
});

endpoint('a query answered once is checked again for its cost when its variables make it oversize', async () => {
  const client = await buildClient(server);
  // the same text both times: the second request is served from the document cache
  const query = 'query Jobs($n: Int) { jobs(first: $n) { edges { node { id title } } } }';
  const small = await gql(server, client.owner.token, query, { n: 1 });
  assert.is(small.status, 200, JSON.stringify(small.body));
  assert.equal(small.errors, undefined);
  const huge = await gql(server, client.owner.token, query, { n: 1_000_000 });
  assert.equal(huge.codes, ['QUERY_TOO_COMPLEX'], JSON.stringify(huge.body).slice(0, 300));
  // and a cached document still answers with its new variables
  const again = await gql(server, client.owner.token, query, { n: 2 });
  assert.is(again.status, 200, JSON.stringify(again.body));
});

endpoint('the graphql-http server audits: every mandatory audit passes', async () => {
  const client = await buildClient(server);
  const url = `${server.url}/api/client/graphql`;
  const authedFetch: typeof fetch = (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${client.owner.token}`);
    return fetch(input, { ...init, headers });
  };
  const failures: string[] = [];
  for (const audit of serverAudits({ url, fetchFn: authedFetch })) {
    const result = await audit.fn();
    if (result.status !== 'ok' && audit.name.startsWith('MUST')) failures.push(`${audit.id} ${audit.name}: ${result.reason}`);
  }
  assert.equal(failures, []);
});

endpoint.run();
