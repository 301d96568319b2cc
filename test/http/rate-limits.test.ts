import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser } from '../helpers/factories';
import { retainedHeap } from '../helpers/memory';

// Global limits per principal (user, system admin) and per route group; per IP
// for traffic without valid credentials. Every request here comes from 127.0.0.1.

const MAX = 12;
let server: TestServer;
const limits = suite('global rate limits: per principal, per route group, per IP for anonymous traffic');
limits.before(async () => {
  server = await startTestServer({
    env: {
      WIP_RATE_LIMIT_MAX: String(MAX),
      WIP_RATE_LIMIT_ANONYMOUS_MAX: '200',
      WIP_SIGN_IN_RATE_LIMIT_MAX: '1000',
      WIP_RATE_LIMIT_GROUPS: 'graphql=3',
    },
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
  const first = await me(noisy.token);
  assert.is(first.headers.get('x-ratelimit-limit'), String(MAX));
  const limited = await exhaust(() => me(noisy.token));
  assert.is(limited.body.error.code, 'RATE_LIMITED');
  assert.match(limited.headers.get('retry-after') ?? '', /^\d+$/);
  assert.is(limited.headers.get('x-ratelimit-remaining'), '0');

  const other = await me(quiet.token);
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

const perEmail = suite('the per-email budget of POST /api/client/auth/forgot');
perEmail.before(async () => {
  server = await startTestServer({ env: { WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' } });
});
perEmail.after(async () => server.stop());

perEmail(
  'counts an address by a fixed-size key: distinct oversized "emails" (refused 422) leave nothing caller-sized behind for the 15-minute window',
  async () => {
    // the budget's key is taken from the body before validation; each window lives 15 minutes
    const send = (i: number) =>
      server.request('POST', '/api/client/auth/forgot', { body: { email: `${i}-${'x'.repeat(200_000)}@example.test` } });
    for (let i = 0; i < 10; i++) assert.is((await send(i)).status, 422);
    const before = retainedHeap();
    for (let i = 10; i < 210; i++) assert.is((await send(i)).status, 422);
    const grown = retainedHeap() - before;
    // 200 keys of 200 KB would be 40 MB
    assert.ok(grown < 10_000_000, `retained heap grew by ${(grown / 1e6).toFixed(1)} MB`);
  },
);

perEmail('still one budget per address, whatever its case and spacing: 5 per 15 minutes', async () => {
  const statuses = [];
  for (const email of [
    'Budget@Example.test',
    ' budget@example.test',
    'BUDGET@example.test ',
    'budget@example.test',
    'budget@EXAMPLE.test',
    'budget@example.test',
  ]) {
    statuses.push((await server.request('POST', '/api/client/auth/forgot', { body: { email } })).status);
  }
  assert.equal(statuses, [200, 200, 200, 200, 200, 429]);
});

perEmail.run();
