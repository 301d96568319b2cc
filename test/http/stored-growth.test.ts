import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { uniqueEmail } from '../helpers/factories';

// What callers can make the server keep: rows per attacker-chosen value must
// end, and rows must not hold caller-chosen strings of any length.

let server: TestServer;

const growth = suite('stored growth');
growth.before(async () => {
  // every failure locks its email at once; the request budgets and the IP lock are not what is under test
  server = await startTestServer({
    env: { WIP_LOCKOUT_MAX_FAILURES: '1', WIP_LOCKOUT_IP_MAX_FAILURES: '100000', WIP_SIGN_IN_RATE_LIMIT_MAX: '100000' },
  });
});
growth.after(async () => server.stop());

const emailLocks = async () =>
  Number(
    (
      await server.deps.db.kysely
        .selectFrom('auth_lockouts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('key', 'like', 'email:%')
        .executeTakeFirstOrThrow()
    ).n,
  );

growth('sign-ins with ever new unknown emails leave only the locks still in force', async () => {
  const before = await emailLocks();
  for (let i = 0; i < 20; i++) {
    const res = await server.request('POST', '/api/client/auth/sign-in', { body: { email: uniqueEmail('ghost'), password: 'wrong-password' } });
    assert.is(res.status, 429, res.text);
  }
  assert.is(await emailLocks(), before + 20);
  // the locks ended; the next failure must not find them all still stored
  server.clock.advance(server.deps.config.lockoutDuration + 1000);
  const next = await server.request('POST', '/api/client/auth/sign-in', { body: { email: uniqueEmail('ghost'), password: 'wrong-password' } });
  assert.is(next.status, 429, next.text);
  assert.is(await emailLocks(), 1);
});

growth.run();
