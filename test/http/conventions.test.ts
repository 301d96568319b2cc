import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server';
import { createApp } from '#app';
import { defineRoute } from '#http/route';
import http from 'node:http';
import { request } from '../helpers/server';
import { adminToken } from '../helpers/factories';

let server: TestServer;

const envelope = suite('HTTP conventions');
envelope.before(async () => {
  server = await startTestServer({ env: { WIP_BODY_LIMIT: '2kb' } });
});
envelope.after(async () => server.stop());

envelope("every response's Date is the server's clock (the floor app measures its offset from it)", async () => {
  // ten minutes ahead of the machine's clock (forward only: going back counts as a clock rollback)
  server.clock.advance(10 * 60_000);
  const expected = server.clock.now().toUTCString();
  const answers = [await server.request('GET', '/api/nothing-here'), await server.request('GET', '/api/client/version')];
  for (const res of answers) assert.is(res.headers.get('date'), expected);
});

envelope('every response carries X-Request-Id; a sane incoming id is echoed, a hostile one replaced', async () => {
  const res = await server.request('GET', '/api/nothing-here');
  assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const kept = await server.request('GET', '/api/nothing-here', { headers: { 'x-request-id': 'trace-123' } });
  assert.is(kept.headers.get('x-request-id'), 'trace-123');
  const replaced = await server.request('GET', '/api/nothing-here', { headers: { 'x-request-id': 'bad id <script>' } });
  assert.is.not(replaced.headers.get('x-request-id'), 'bad id <script>');
});

envelope('details.fields[].path says where the value was read: body.x for the schema and for the service alike', async () => {
  const token = await adminToken(server);
  // the schema refuses the name: body.name
  const schema = await server.request('POST', '/api/admin/client', {
    token,
    body: { name: 5, owner: { email: 'a@example.test', password: 'x'.repeat(16) } },
  });
  assert.is(schema.status, 422);
  assert.ok(
    schema.body.error.details.fields.some((f: { path: string }) => f.path === 'body.name'),
    schema.text,
  );
  // the service refuses the seats (it names the field bare, `seats.full`, as GraphQL reads it): still body.seats.full
  const service = await server.request('POST', '/api/admin/client', {
    token,
    body: { name: 'No seats', owner: { email: 'b@example.test', password: 'x'.repeat(16) }, seats: { full: 0 } },
  });
  assert.is(service.status, 422, service.text);
  assert.equal(
    service.body.error.details.fields.map((f: { path: string }) => f.path),
    ['body.seats.full'],
  );
  // the query: query.x
  const query = await server.request('GET', '/api/admin/client?limit=0', { token });
  assert.is(query.status, 422);
  assert.equal(
    query.body.error.details.fields.map((f: { path: string }) => f.path),
    ['query.limit'],
  );
});

envelope('unknown route → 404 NOT_FOUND in the envelope', async () => {
  const res = await server.request('GET', '/api/client/does-not-exist');
  assert.is(res.status, 404);
  assert.equal(res.body, { success: false, error: { message: 'Route not found', code: 'NOT_FOUND' } });
});

envelope('wrong method on a known route → 405 METHOD_NOT_ALLOWED with Allow', async () => {
  const res = await server.request('PATCH', '/api/client/auth/sign-in');
  assert.is(res.status, 405);
  assert.is(res.body.error.code, 'METHOD_NOT_ALLOWED');
  assert.is(res.headers.get('allow'), 'POST');
  const del = await server.request('DELETE', '/api/client/auth/me');
  assert.is(del.status, 405);
  assert.is(del.headers.get('allow'), 'HEAD, GET');
});

envelope('malformed JSON → 400 BAD_REQUEST', async () => {
  const res = await server.request('POST', '/api/client/auth/sign-in', { raw: '{"email": "a@b.c", ' });
  assert.is(res.status, 400);
  assert.is(res.body.success, false);
  assert.is(res.body.error.code, 'BAD_REQUEST');
});

envelope('oversize body → 413 PAYLOAD_TOO_LARGE', async () => {
  const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email: 'a@b.c', password: 'x'.repeat(5000) } });
  assert.is(res.status, 413);
  assert.is(res.body.error.code, 'PAYLOAD_TOO_LARGE');
});

envelope('a non-object JSON body is a validation error, not a crash', async () => {
  for (const raw of ['[]', '"text"', '42', 'null']) {
    const res = await server.request('POST', '/api/client/auth/sign-in', { raw });
    assert.ok([400, 422].includes(res.status), `${raw} → ${res.status}`);
    assert.is(res.body.success, false);
  }
});

envelope('security headers on every response; no HSTS over plain HTTP', async () => {
  const res = await server.request('GET', '/api/client/auth/me');
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  assert.is(res.headers.get('strict-transport-security'), null);
});

envelope('an unexpected exception → 500 INTERNAL_ERROR with no stack or message leaked, logged with the request id', async () => {
  const logged: string[] = [];
  const logger = server.deps.logger.child({});
  const deps = {
    ...server.deps,
    logger: Object.assign(Object.create(logger), {
      error: (obj: { requestId?: string }) => logged.push(String(obj.requestId)),
      info: () => {},
    }),
  };
  const boom = defineRoute({
    method: 'get',
    path: '/api/client/boom',
    summary: 'test route that throws',
    auth: 'public',
    async handler() {
      throw new Error('secret internal detail at /var/lib/wip');
    },
  });
  const app = createApp(deps, [boom]);
  const httpServer = http.createServer(app.callback()).listen(0, '127.0.0.1');
  await new Promise((r) => httpServer.once('listening', r));
  const port = (httpServer.address() as { port: number }).port;
  try {
    const res = await request(`http://127.0.0.1:${port}`, 'GET', '/api/client/boom');
    assert.is(res.status, 500);
    assert.equal(res.body, { success: false, error: { message: 'Internal server error', code: 'INTERNAL_ERROR' } });
    assert.not.match(res.text, /secret internal detail|at |\.ts/);
    assert.equal(logged, [res.headers.get('x-request-id')]);
  } finally {
    httpServer.close();
  }
});

const limits = suite('rate limiting');
limits.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '3', WIP_RATE_LIMIT_MAX: '1000' } });
});
limits.after(async () => server.stop());

limits('sign-in is rate limited per IP: X-RateLimit-* headers, then 429 RATE_LIMITED with Retry-After', async () => {
  const body = { email: 'someone@example.test', password: 'whatever-password' };
  let last: TestResponse | undefined;
  for (let i = 0; i < 3; i++) {
    last = await server.request('POST', '/api/client/auth/sign-in', { body });
    assert.is(last.status, 401);
  }
  assert.is(last!.headers.get('x-ratelimit-limit'), '3');
  assert.is(last!.headers.get('x-ratelimit-remaining'), '0');
  assert.match(last!.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
  const limited = await server.request('POST', '/api/client/auth/sign-in', { body });
  assert.is(limited.status, 429);
  assert.is(limited.body.error.code, 'RATE_LIMITED');
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  assert.match(limited.headers.get('x-ratelimit-reset') ?? '', /^\d+$/);
});

envelope.run();
limits.run();

const proxy = suite('X-Forwarded-For without a trusted proxy');
proxy.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '2' } });
});
proxy.after(async () => server.stop());

/** Statuses of three failing sign-ins, the i-th sent with X-Forwarded-For `forwardedFor(i)` (the sign-in budget is 2). */
async function signInStatuses(on: TestServer, forwardedFor: (i: number) => string): Promise<number[]> {
  const body = { email: 'someone@example.test', password: 'whatever-password' };
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    statuses.push((await on.request('POST', '/api/client/auth/sign-in', { body, headers: { 'x-forwarded-for': forwardedFor(i) } })).status);
  }
  return statuses;
}

proxy('is ignored: spoofed addresses do not get fresh rate-limit budgets', async () => {
  assert.equal(await signInStatuses(server, (i) => `10.0.0.${i + 1}`), [401, 401, 429]);
});

proxy.run();

const trusted = suite('X-Forwarded-For behind a trusted proxy that appends to it');
trusted.before(async () => {
  server = await startTestServer({ env: { WIP_TRUST_PROXY: 'true', WIP_SIGN_IN_RATE_LIMIT_MAX: '2' } });
});
trusted.after(async () => server.stop());

// The proxy appends the address it saw to whatever the client sent: only entries added by trusted proxies count
trusted('the client is the address the proxy added, not one the client wrote in front of it', async () => {
  assert.equal(await signInStatuses(server, (i) => `10.0.0.${i + 1}, 203.0.113.7`), [401, 401, 429], 'one budget for 203.0.113.7');
  assert.equal(await signInStatuses(server, () => '203.0.113.8'), [401, 401, 429], 'another client has its own budget');
});

trusted('WIP_PROXY_HOPS counts the proxies that append: with two, the client is the second entry from the right', async () => {
  const twoHops = await startTestServer({ env: { WIP_TRUST_PROXY: 'true', WIP_PROXY_HOPS: '2', WIP_SIGN_IN_RATE_LIMIT_MAX: '2' } });
  try {
    assert.equal(await signInStatuses(twoHops, (i) => `10.0.0.${i + 1}, 203.0.113.7, 10.1.1.1`), [401, 401, 429]);
    const bad = await startTestServer({ env: { WIP_PROXY_HOPS: '0' } }).then(
      async (s) => (await s.stop(), 'started'),
      (error: Error) => error.message,
    );
    assert.match(bad, /proxyHops/);
  } finally {
    await twoHops.stop();
  }
});

trusted.run();
