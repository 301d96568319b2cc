import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';

// Global limits per principal (user, system admin) and per route group; per IP
// for traffic without valid credentials. Every request here comes from 127.0.0.1.

const MAX = 12;
let server: TestServer;
const limits = suite('global rate limits: per principal, per route group, per IP for anonymous traffic');
limits.before(async () => {
  server = await startTestServer({
    env: { WIP_RATE_LIMIT_MAX: String(MAX), WIP_RATE_LIMIT_ANONYMOUS_MAX: '200', WIP_SIGN_IN_RATE_LIMIT_MAX: '1000', WIP_RATE_LIMIT_GROUPS: 'graphql=3' },
  });
});
limits.after(async () => server.stop());

const me = (token?: string) => server.request('GET', '/api/client/client-info', { token });

/** Spends a budget until the 429, returning it. */
async function exhaust(call: () => Promise<{ status: number; headers: Headers; body: any }>) {
  for (let i = 0; i < MAX + 2; i++) {
    const res = await call();
    if (res.status === 429) return res;
  }
  throw new Error('never limited');
}

limits('two users behind one IP keep separate budgets: one noisy token is contained', async () => {
  const client = await buildClient(server);
  const [noisy, quiet] = await Promise.all([0, 1].map(() => buildUser(server, client, { roles: ['viewer'] })));
  const first = await me(noisy!.token);
  assert.is(first.headers.get('x-ratelimit-limit'), String(MAX));
  const limited = await exhaust(() => me(noisy!.token));
  assert.is(limited.body.error.code, 'RATE_LIMITED');
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  assert.is(limited.headers.get('x-ratelimit-remaining'), '0');

  const other = await me(quiet!.token);
  assert.is(other.status, 200, 'another user at the same IP is not affected');
  assert.is(other.headers.get('x-ratelimit-remaining'), String(MAX - 1));
  // anonymous traffic from that IP has its own budget too, and so do system administrators
  assert.is((await server.request('GET', '/api/client/on-premise')).status, 200);
  const admin = await adminToken(server);
  assert.is((await server.request('GET', '/api/admin/client', { token: admin })).status, 200);
});

limits('a route group with its own budget (rateLimitGroups graphql=3) is counted apart from the rest', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['viewer'] });
  const graphql = () => server.request('POST', '/api/client/graphql', { token: user.token, body: { query: '{ __typename }' } });
  for (let i = 0; i < 3; i++) assert.is((await graphql()).status, 200);
  const limited = await graphql();
  assert.is(limited.status, 429);
  assert.is(limited.headers.get('x-ratelimit-limit'), '3');
  const rest = await me(user.token);
  assert.is(rest.status, 200, 'REST calls use the default budget');
  assert.is(rest.headers.get('x-ratelimit-limit'), String(MAX));
});

limits('refused credentials count against the IP, not against the user they name', async () => {
  const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzaWQiOjF9.forged';
  const res = await me(forged);
  assert.is(res.status, 401);
  assert.is(res.headers.get('x-ratelimit-limit'), '200');
});

limits.run();

const anonymous = suite('the per-IP budget of unauthenticated traffic');
anonymous.before(async () => {
  server = await startTestServer({ env: { WIP_RATE_LIMIT_ANONYMOUS_MAX: '3', WIP_SIGN_IN_RATE_LIMIT_MAX: '1000' } });
});
anonymous.after(async () => server.stop());

anonymous('runs out for requests without credentials, while an authenticated caller from that IP goes on', async () => {
  const client = await buildClient(server); // two sign-ins: two anonymous requests
  const statuses = [];
  for (let i = 0; i < 3; i++) statuses.push((await server.request('GET', '/api/client/on-premise')).status);
  assert.equal(statuses, [200, 429, 429]);
  assert.is((await me(client.owner.token)).status, 200);
});

anonymous.run();
