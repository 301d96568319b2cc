import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { buildClient, buildUser } from '../helpers/factories';

// Two nodes on one PostgreSQL database count one budget: the request rate
// limits (per principal, per IP, and a route's own) are kept in the database.

const PRINCIPAL_MAX = 8;
let a: TestServer;
let b: TestServer;

const limits = suite('rate limits shared by two nodes on one PostgreSQL database');
limits.before(async () => {
  const env = {
    WIP_DATABASE_URL: await (await testPostgres()).freshDatabaseUrl(),
    WIP_MASTER_KEY: TEST_MASTER_KEY,
    WIP_RATE_LIMIT_MAX: String(PRINCIPAL_MAX),
    WIP_RATE_LIMIT_ANONYMOUS_MAX: '1000',
    WIP_RATE_LIMIT_WINDOW: '1h',
  };
  a = await startTestServer({ env });
  b = await startTestServer({ env, license: 'evaluation' });
});
limits.after(async () => {
  await a.stop();
  await b.stop();
});

limits('a signed-in user has one budget across both nodes: half through each, and the next request is refused by either', async () => {
  const client = await buildClient(a);
  const user = await buildUser(a, client);
  const statuses: number[] = [];
  const remaining: number[] = [];
  for (let i = 0; i < PRINCIPAL_MAX + 2; i++) {
    const response = await (i % 2 === 0 ? a : b).request('GET', '/api/client/auth/me', { token: user.token });
    statuses.push(response.status);
    if (response.status === 200) remaining.push(Number(response.headers.get('x-ratelimit-remaining')));
  }
  // one node each would allow PRINCIPAL_MAX / 2 + 1 each: 10
  assert.equal(statuses, [...Array(PRINCIPAL_MAX).fill(200), 429, 429]);
  assert.equal(
    remaining,
    Array.from({ length: PRINCIPAL_MAX }, (_, i) => PRINCIPAL_MAX - 1 - i),
  );
});

limits('requests without credentials from one IP count once across both nodes', async () => {
  const first = await a.request('GET', '/healthz');
  const second = await b.request('GET', '/healthz');
  const third = await a.request('GET', '/healthz');
  const left = [first, second, third].map((r) => Number(r.headers.get('x-ratelimit-remaining')));
  assert.equal(left, [left[0], left[0] - 1, left[0] - 2]);
});

limits.run();
