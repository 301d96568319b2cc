import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { allRoutes } from '#http/routes/index';
import { startTestServer, unconfiguredIntegration, type TestServer } from '../helpers/server';
import { adminToken, buildClient } from '../helpers/factories';

// "No 500 for anything a client can send": every declared route, called by a
// principal allowed to reach its handler, with malformed and hostile input.

const RAW_BODIES = [
  '[]',
  '"text"',
  '42',
  'null',
  'true',
  '{"a":',
  '{}',
  '{"__proto__":{"polluted":1}}',
  JSON.stringify({ x: 'y'.repeat(5000) }),
];
const FIELD_VALUES: unknown[] = [
  null,
  -1,
  0,
  1e308,
  'x'.repeat(3000),
  [],
  {},
  ['a', 1, null],
  { $gt: '' },
  '../../etc/passwd',
  '\u0000',
  true,
];
const FIELDS = [
  'email',
  'password',
  'id',
  'userId',
  'clientId',
  'roles',
  'licenseType',
  'name',
  'owner',
  'seats',
  'token',
  'code',
  'refreshToken',
  'licenseKey',
  'kind',
  'body',
  'title',
  'newPassword',
  'currentPassword',
  'challengeToken',
  'invitationToken',
  'changes',
  'expiresAt',
  'version',
];
const QUERIES = [
  '?limit=-1',
  '?limit=abc&cursor=%00',
  '?cursor=aWQ6OTk5OTk5OTk5OTk5OTk5OTk5',
  '?clientId=1e400',
  '?since=yesterday&until=%ff',
  '?level=[]&event[]=a',
];
const PATH_VALUES = ['0', '-5', '1e3', '99999999999999999999', '%00', 'x'.repeat(300)];

let server: TestServer;
const hostile = suite('hostile input never yields a 500');
hostile.before(async () => {
  // generous sign-in budget, so requests reach the handlers instead of the limiter
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' } });
});
hostile.after(async () => server.stop());

hostile('malformed bodies, wrong-typed fields, odd queries and path values on every route', async () => {
  const failures: string[] = [];
  const statuses = new Map<number, number>();
  for (const route of allRoutes()) {
    const method = route.method.toUpperCase();
    // a fresh client and credentials per route: the previous route may have deleted the client or ended the session
    const client = await buildClient(server);
    const token = route.auth === 'admin' ? await adminToken(server) : route.auth === 'public' ? undefined : client.owner.token;
    const paths = route.path.includes(':') ? PATH_VALUES.map((v) => route.path.replace(/:\w+/g, v)) : [route.path];
    const send = async (path: string, options: { raw?: string; body?: unknown }) => {
      const res = await server.request(method, path, { token, ...options });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      // a 503 that says an integration is not set up on this server answers the configuration, not the input
      const unconfigured = unconfiguredIntegration(res.status, res.body);
      if (res.status >= 500 && !unconfigured && !(route.path === '/readyz' && res.status === 503))
        failures.push(`${method} ${path} ${JSON.stringify(options).slice(0, 80)} → ${res.status} ${res.text.slice(0, 120)}`);
      else if (
        route.path.startsWith('/api/') &&
        res.body?.success !== true &&
        res.body?.success !== false &&
        res.headers.get('content-type')?.includes('json')
      ) {
        // GraphQL answers GraphQL-over-HTTP ({data, errors}) once past authentication; /api/openapi.json is the OpenAPI document;
        // a download (the NDJSON log export) is a file, not an answer
        const download = res.headers.get('content-disposition')?.startsWith('attachment');
        const ownFormat =
          route.envelope === false && (download || (res.body && ('data' in res.body || 'errors' in res.body || 'openapi' in res.body)));
        if (!ownFormat) failures.push(`${method} ${path} → no envelope`);
      }
    };
    for (const path of paths) await send(path, {});
    for (const query of QUERIES) await send(route.path.replace(/:\w+/g, '1') + query, {});
    if (method === 'GET') continue;
    const path = route.path.replace(/:\w+/g, '1');
    for (const raw of RAW_BODIES) await send(path, { raw });
    for (const value of FIELD_VALUES) await send(path, { body: Object.fromEntries(FIELDS.map((f) => [f, value])) });
  }
  assert.equal(failures, []);
  // the input reached validation and handlers, not only the guards
  assert.ok((statuses.get(422) ?? 0) > 200, JSON.stringify([...statuses]));
  assert.ok((statuses.get(400) ?? 0) > 50, JSON.stringify([...statuses]));
  // and the prototype of plain objects is untouched
  assert.is(({} as { polluted?: number }).polluted, undefined);
});

/** One request written as raw bytes (fetch cannot send what Node's parser refuses); the whole answer, once the server closes. */
function rawExchange(request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

hostile('a URL or headers over the limit answer 431 in the error envelope, a malformed request 400; the server goes on', async () => {
  const cases = [
    {
      name: 'a 20 KiB URL',
      request: `GET /api/client/files?q=${'a'.repeat(20 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
    },
    {
      name: 'a 20 KiB header',
      request: `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20 * 1024)}\r\n\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
    },
    {
      name: 'a thousand headers',
      request: `GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 1000 }, (_, i) => `X-H${i}: ${'v'.repeat(20)}\r\n`).join('')}\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
    },
    { name: 'a malformed request line', request: 'GET\u0001 / HTTP/9.9\r\n\r\n', status: 400, code: 'BAD_REQUEST' },
  ];
  for (const c of cases) {
    const res = await rawExchange(c.request);
    assert.is(res.status, c.status, `${c.name}: ${res.status} ${res.body}`);
    assert.is(res.headers['content-type'], 'application/json; charset=utf-8', c.name);
    assert.is(res.headers['cache-control'], 'no-store', c.name);
    assert.ok(res.headers['x-request-id'], c.name);
    assert.is(res.headers['x-content-type-options'], 'nosniff', c.name);
    const body = JSON.parse(res.body);
    assert.equal(body.success, false, c.name);
    assert.is(body.error.code, c.code, c.name);
    assert.ok(body.error.message, c.name);
  }
  assert.is((await server.request('GET', '/healthz')).status, 200);
});

hostile.run();
