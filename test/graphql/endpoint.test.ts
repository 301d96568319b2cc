import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import { serverAudits } from 'graphql-http';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';
import { waitFor } from '../helpers/wait';

/** Opens `count` connections, waits until the server has accepted them, then writes one GraphQL request on each in the same synchronous loop; the parsed answers. */
async function sendTogether(server: TestServer, token: string, query: string, count: number) {
  const { hostname, port } = new URL(server.url);
  // the server accepts one connection per event-loop turn: the requests are written once it has accepted them all
  const accepted = new Set<number>();
  const onConnection = (socket: net.Socket) => accepted.add(socket.remotePort!);
  server.listener.on('connection', onConnection);
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Socket>((resolve, reject) =>
          net
            .connect(Number(port), hostname)
            .once('connect', function (this: net.Socket) {
              resolve(this);
            })
            .once('error', reject),
        ),
    ),
  );
  await waitFor(`the server to accept ${count} connections`, () => sockets.every((socket) => accepted.has(socket.localPort!)));
  server.listener.off('connection', onConnection);
  const body = JSON.stringify({ query });
  const request = `POST /api/client/graphql HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  const answers = sockets.map(
    (socket) =>
      new Promise<{ status: number; headers: Record<string, string>; body: any }>((resolve) => {
        const chunks: Buffer[] = [];
        socket
          .on('data', (chunk) => chunks.push(chunk))
          .on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const [head, ...rest] = text.split('\r\n\r\n');
            const [statusLine, ...lines] = head.split('\r\n');
            const headers = Object.fromEntries(
              lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
            );
            const raw = rest.join('\r\n\r\n');
            // Connection: close answers are not chunked unless the body was streamed; the JSON is the body
            resolve({
              status: Number(statusLine.split(' ')[1]),
              headers,
              body: JSON.parse(raw.slice(raw.indexOf('{'), raw.lastIndexOf('}') + 1)),
            });
          });
      }),
  );
  for (const socket of sockets) socket.write(request);
  return Promise.all(answers);
}

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
  const result = await gql(server, client.owner.token, '{ me { id databaseId email roles } }');
  assert.is(result.status, 200, JSON.stringify(result.body));
  assert.is(result.data.me.databaseId, client.owner.id);
  assert.is(result.data.me.id, `User:${client.owner.id}`);
  assert.is(result.data.me.email, client.owner.email);
  assert.ok(result.data.me.roles.includes('admin'));
});

endpoint('a syntax error is a 400 with a code', async () => {
  const client = await buildClient(server);
  const result = await gql(server, client.owner.token, '{ me { id ');
  assert.is(result.status, 400);
  assert.equal(result.codes, ['BAD_REQUEST']);
});

endpoint('no query (a browser opening the URL, a body of {}) is 400 BAD_REQUEST "Missing query", nothing logged as an error', async () => {
  const client = await buildClient(server);
  const logger = server.deps.logger;
  const logged: unknown[] = [];
  const error = logger.error;
  logger.error = (...args: unknown[]) => void logged.push(args);
  try {
    const browser = await server.request('GET', '/api/client/graphql', {
      token: client.owner.token,
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    const empty = await server.request('POST', '/api/client/graphql', { token: client.owner.token, body: {} });
    for (const res of [browser, empty]) {
      assert.is(res.status, 400, res.text);
      assert.equal(
        res.body.errors.map((e: { message: string; extensions: { code: string } }) => [e.message, e.extensions.code]),
        [['Missing query', 'BAD_REQUEST']],
      );
    }
  } finally {
    logger.error = error;
  }
  assert.equal(logged, []);
});

endpoint('an oversize query is refused before execution with QUERY_TOO_COMPLEX', async () => {
  const client = await buildClient(server);
  const deep = '{ me { id } ' + 'a: me { id } '.repeat(1) + '}';
  assert.is((await gql(server, client.owner.token, deep)).status, 200);
  // aliases multiply cost: 60,000 aliased fields exceed the cost limit
  const wide =
    '{ ' + Array.from({ length: 3000 }, (_, i) => `m${i}: me { id email firstName lastName title roles licenseType }`).join(' ') + ' }';
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

endpoint('errors of a compiled query keep their code, message, path and locations, the first time and the next', async () => {
  const client = await buildClient(server);
  for (let i = 0; i < 2; i++) {
    const notFound = await gql(server, client.owner.token, 'query Lookup { me { id } job(id: "Job:987654") { id title } }');
    assert.equal(notFound.data, { me: { id: `User:${client.owner.id}` }, job: null });
    assert.equal(notFound.body.errors, [
      { message: 'Job not found', locations: [{ line: 1, column: 26 }], path: ['job'], extensions: { code: 'NOT_FOUND' } },
    ]);
    const badVariable = await gql(server, client.owner.token, 'query ($id: ID!) { job(id: $id) { id } }', { id: { seven: 7 } });
    assert.is(badVariable.status, 400);
    assert.equal(badVariable.codes, ['BAD_REQUEST']);
    assert.equal(badVariable.errors![0].message.includes('$id'), true, badVariable.errors![0].message);
  }
});

endpoint(
  'more queries waiting than WIP_GRAPHQL_QUEUE_MAX: 503 SERVICE_UNAVAILABLE envelope with Retry-After; the rest answered',
  async () => {
    const small = await startTestServer({ env: { WIP_GRAPHQL_CONCURRENCY: '1', WIP_GRAPHQL_QUEUE_MAX: '1' } });
    try {
      const client = await buildClient(small);
      await small.request('POST', '/api/client/graphql', { token: client.owner.token, body: { query: '{ me { id } }' } });
      // 30 requests written at once on 30 open connections are read in one event-loop turn: one runs, one waits, the rest find the queue full
      const answers = await sendTogether(small, client.owner.token, '{ me { id } }', 30);
      const statuses = answers.map((a) => a.status).join(' ');
      const refused = answers.filter((a) => a.status === 503);
      assert.ok(refused.length > 0, statuses);
      assert.ok(
        answers.every((a) => a.status === 200 || a.status === 503),
        statuses,
      );
      for (const answer of answers.filter((a) => a.status === 200)) assert.is(answer.body.data.me.id, `User:${client.owner.id}`);
      assert.is(refused[0].body.success, false);
      assert.is(refused[0].body.error.code, 'SERVICE_UNAVAILABLE');
      assert.is(refused[0].headers['retry-after'], '1');
      const res = await small.request('POST', '/api/client/graphql', { token: client.owner.token, body: { query: '{ me { id } }' } });
      assert.is(res.status, 200, 'the queue drains');
    } finally {
      await small.stop();
    }
  },
);

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

endpoint('an answer without errors has the content type graphql-http gives its answers with errors, for every Accept', async () => {
  const client = await buildClient(server);
  const post = (accept: string | undefined, query: string) =>
    fetch(`${server.url}/api/client/graphql`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${client.owner.token}`,
        'content-type': 'application/json',
        ...(accept !== undefined && { accept }),
      },
      body: JSON.stringify({ query }),
    });
  const accepts = [
    undefined,
    '*/*',
    'application/json',
    'application/graphql-response+json',
    'application/graphql-response+json; charset=utf-8, application/json',
    'application/json, application/graphql-response+json',
    'text/html, application/*;q=0.9',
    'application/graphql-response+json;charset=latin1, application/json;charset=utf8',
  ];
  for (const accept of accepts) {
    const [ok, refused] = [await post(accept, '{ me { id } }'), await post(accept, '{ nope }')];
    assert.is(ok.status, 200, `${accept}: ${ok.status}`);
    assert.is(((await ok.json()) as { data: { me: { id: string } } }).data.me.id, `User:${client.owner.id}`);
    assert.ok(refused.status === 200 || refused.status === 400, `${accept}: ${refused.status}`);
    assert.is(ok.headers.get('content-type'), refused.headers.get('content-type'), `Accept: ${accept}`);
  }
});

endpoint.run();
