import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createUser, deleteUser, getUser, updateUser, type UserFields } from '#services/users';
import { signIn } from '#services/auth';
import { unlockUser } from '#services/lockout';
import { createLicense } from '#services/licensing/seat-allocations';
import { BY_TEST, PASSWORD, refusal, seedClient, serviceDeps, type ServiceDeps } from '../helpers/service-deps';

// Accounts where their rules live: a user's email unique in its client (any case), roles the license type allows,
// a free seat (never oversold), the last Security Administrator kept, a new password or disabling ending the
// sessions; the sign-in lockout of an email and of an IP, its window, its end and its unlock, as security events.
// What the routes answer and who may call them: test/http/admin-user.test.ts and test/http/lockout-csrf.test.ts.

const META = { ip: '192.0.2.7', userAgent: 'account-test' };
const MINUTE = 60_000;

let emails = 0;
const email = (tag = 'user') => `${tag}${++emails}@example.com`;
const fields = (extra: Partial<UserFields> = {}): UserFields => ({ email: email(), roles: ['author'], licenseType: 'full', ...extra });

const test = suite<{ deps: ServiceDeps }>('accounts: users, seats, sessions, lockout (services)');
test.before.each(async (ctx) => {
  // the IP's own limit is its own test's subject
  ctx.deps = await serviceDeps({ env: { WIP_LOCKOUT_IP_MAX_FAILURES: '1000' } });
});
test.after.each(async ({ deps }) => {
  await deps.close();
});

/** sessions of the user not ended */
const liveSessions = async (deps: ServiceDeps, userId: number) =>
  (await deps.db.kysely.selectFrom('sessions').select('id').where('user_id', '=', userId).where('revoked_at', 'is', null).execute()).length;

const signInCode = async (deps: ServiceDeps, address: string, password: string) => {
  try {
    await signIn(deps, { email: address, password }, META);
    return 'OK';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
};

test('an email is unique in its client whatever its case, and free in another; without a password the user is invited (a hashed token)', async ({
  deps,
}) => {
  const { scope } = await seedClient(deps);
  const address = email('dup');
  await createUser(deps, scope, fields({ email: address }), BY_TEST);
  assert.is((await refusal(createUser(deps, scope, fields({ email: address.toUpperCase() }), BY_TEST))).code, 'CONFLICT');
  const other = await seedClient(deps);
  const invited = await createUser(deps, other.scope, fields({ email: address }), BY_TEST);
  assert.is(invited.status, 'invited');
  const tokens = await deps.db.kysely.selectFrom('user_tokens').selectAll().where('user_id', '=', invited.id).execute();
  assert.equal(
    tokens.map((t) => [t.purpose, /^[0-9a-f]{64}$/.test(t.token_hash)]),
    [['invite', true]],
  );
});

test('roles the license type allows (connect: operator and viewer), and a free seat of it; never oversold, even at once', async ({
  deps,
}) => {
  const { client, scope } = await seedClient(deps, 2);
  await createLicense(deps, { clientId: client.id, licenseType: 'connect', seats: 1 }, BY_TEST);
  const mismatch = await refusal(createUser(deps, scope, fields({ licenseType: 'connect', roles: ['operator', 'author'] }), BY_TEST));
  assert.is(mismatch.code, 'VALIDATION_ERROR');
  assert.match(JSON.stringify(mismatch.details), /author/);
  await createUser(deps, scope, fields(), BY_TEST);
  const noSeat = email('noseat');
  assert.is((await refusal(createUser(deps, scope, fields({ email: noSeat }), BY_TEST))).code, 'LICENSE_SEATS_EXHAUSTED');
  assert.not.ok(await deps.db.kysely.selectFrom('users').select('id').where('email', '=', noSeat).executeTakeFirst(), 'nothing created');
  // the connect seat is still free
  await createUser(deps, scope, fields({ licenseType: 'connect', roles: ['operator', 'viewer'] }), BY_TEST);

  // the last seat asked for six times at once: one gets it
  const { scope: racing } = await seedClient(deps, 2);
  const results = await Promise.allSettled(
    Array.from({ length: 6 }, () => createUser(deps, racing, fields({ password: PASSWORD }), BY_TEST)),
  );
  assert.equal(results.map((r) => (r.status === 'fulfilled' ? 'created' : (r.reason as { code: string }).code)).sort(), [
    'LICENSE_SEATS_EXHAUSTED',
    'LICENSE_SEATS_EXHAUSTED',
    'LICENSE_SEATS_EXHAUSTED',
    'LICENSE_SEATS_EXHAUSTED',
    'LICENSE_SEATS_EXHAUSTED',
    'created',
  ]);
});

test('an edit keeps what it omits, and the result must meet the rules: roles of the type, a free email, a free seat; deleting frees the seat', async ({
  deps,
}) => {
  const { client, scope } = await seedClient(deps, 3);
  await createLicense(deps, { clientId: client.id, licenseType: 'connect', seats: 1 }, BY_TEST);
  const user = await createUser(deps, scope, fields({ roles: ['author', 'approver'] }), BY_TEST);
  const other = await createUser(deps, scope, fields({ roles: ['viewer'], licenseType: 'connect' }), BY_TEST);
  const titled = await updateUser(deps, scope, { id: user.id, title: 'Lead' }, BY_TEST);
  assert.equal([titled.title, titled.email, titled.roles], ['Lead', user.email, ['author', 'approver']]);

  const change = (changes: Parameters<typeof updateUser>[2]) => refusal(updateUser(deps, scope, changes, BY_TEST));
  assert.is((await change({ id: user.id, licenseType: 'connect' })).code, 'VALIDATION_ERROR', 'an author on a connect seat');
  assert.is((await change({ id: user.id, email: other.email.toUpperCase() })).code, 'CONFLICT');
  assert.is((await change({ id: user.id, licenseType: 'connect', roles: ['operator'] })).code, 'LICENSE_SEATS_EXHAUSTED');
  assert.is((await change({ id: 999_999, title: 'x' })).code, 'NOT_FOUND');
  // moving the connect user to full frees the connect seat for the other
  await updateUser(deps, scope, { id: other.id, licenseType: 'full' }, BY_TEST);
  const moved = await updateUser(deps, scope, { id: user.id, licenseType: 'connect', roles: ['operator'] }, BY_TEST);
  assert.equal(moved.roles, ['operator']);

  // full: owner and other; deleting one lets another in
  await createUser(deps, scope, fields(), BY_TEST);
  assert.is((await refusal(createUser(deps, scope, fields(), BY_TEST))).code, 'LICENSE_SEATS_EXHAUSTED');
  await deleteUser(deps, scope, other.id, BY_TEST);
  assert.is((await refusal(getUser(deps, scope, other.id))).code, 'NOT_FOUND');
  await createUser(deps, scope, fields(), BY_TEST);
});

test('the last Security Administrator keeps the admin role, is not disabled and not deleted (CONFLICT)', async ({ deps }) => {
  const { scope, owner } = await seedClient(deps);
  const cases: [string, () => Promise<unknown>][] = [
    ['losing the role', () => updateUser(deps, scope, { id: owner.userId, roles: ['author'] }, BY_TEST)],
    ['disabled', () => updateUser(deps, scope, { id: owner.userId, disabled: true }, BY_TEST)],
    ['deleted', () => deleteUser(deps, scope, owner.userId, BY_TEST)],
  ];
  for (const [what, call] of cases) assert.is((await refusal(call())).code, 'CONFLICT', what);
  // with a second one, the first may go
  const second = await createUser(deps, scope, fields({ roles: ['admin'] }), BY_TEST);
  assert.equal((await updateUser(deps, scope, { id: owner.userId, roles: ['author'] }, BY_TEST)).roles, ['author']);
  assert.is((await refusal(deleteUser(deps, scope, second.id, BY_TEST))).code, 'CONFLICT');
});

test("a new password ends the user's sessions; disabling ends them and refuses sign-in (ACCOUNT_DISABLED) until enabled again", async ({
  deps,
}) => {
  const { scope } = await seedClient(deps);
  const user = await createUser(deps, scope, fields({ password: PASSWORD }), BY_TEST);
  await signIn(deps, { email: user.email, password: PASSWORD }, META);
  assert.is(await liveSessions(deps, user.id), 1);
  await updateUser(deps, scope, { id: user.id, password: 'a-brand-new-password' }, BY_TEST);
  assert.is(await liveSessions(deps, user.id), 0);
  assert.is(await signInCode(deps, user.email, 'a-brand-new-password'), 'OK');

  const off = await updateUser(deps, scope, { id: user.id, disabled: true }, BY_TEST);
  assert.is(off.status, 'disabled');
  assert.is(await liveSessions(deps, user.id), 0);
  assert.is(await signInCode(deps, user.email, 'a-brand-new-password'), 'ACCOUNT_DISABLED');
  assert.is((await updateUser(deps, scope, { id: user.id, disabled: false }, BY_TEST)).status, 'active');
  assert.is(await signInCode(deps, user.email, 'a-brand-new-password'), 'OK');
});

/** `n` failed sign-ins; the last one's code */
async function fail(deps: ServiceDeps, address: string, n: number): Promise<string> {
  let code = '';
  for (let i = 0; i < n; i++) code = await signInCode(deps, address, `wrong-password-${i}`);
  return code;
}

test('the 10th failure in 15 minutes locks the email — the right password too — until the lock ends; failures are security events', async ({
  deps,
}) => {
  const { client, scope } = await seedClient(deps);
  const user = await createUser(deps, scope, fields({ password: PASSWORD }), BY_TEST);
  assert.is(await fail(deps, user.email, 9), 'INVALID_CREDENTIALS');
  const tenth = await refusal(signIn(deps, { email: user.email, password: 'wrong' }, META));
  assert.equal([tenth.code, tenth.details?.retryAfter], ['TOO_MANY_ATTEMPTS', 15 * 60]);
  assert.is(await signInCode(deps, user.email, PASSWORD), 'TOO_MANY_ATTEMPTS');
  deps.clock.advance(15 * MINUTE + 1000);
  assert.is(await signInCode(deps, user.email, PASSWORD), 'OK');

  const rows = await deps.db.kysely.selectFrom('logs').selectAll().where('user_id', '=', user.id).execute();
  assert.is(rows.filter((r) => r.event === 'auth.sign_in_failed').length, 10);
  const lock = rows.find((r) => r.event === 'auth.lockout');
  assert.equal([lock?.client_id, lock?.user_agent, lock?.ip], [client.id, META.userAgent, META.ip]);

  // an unknown email locks the same way: the lock reveals nothing
  assert.is(await fail(deps, email('ghost'), 10), 'TOO_MANY_ATTEMPTS');
});

test('failures older than the window do not count; a success clears the count; an unlock lifts the lock', async ({ deps }) => {
  const { scope, owner } = await seedClient(deps);
  const user = await createUser(deps, scope, fields({ password: PASSWORD }), BY_TEST);
  await fail(deps, user.email, 6);
  deps.clock.advance(16 * MINUTE);
  assert.is(await fail(deps, user.email, 6), 'INVALID_CREDENTIALS');
  assert.is(await signInCode(deps, user.email, PASSWORD), 'OK');
  assert.is(await fail(deps, user.email, 9), 'INVALID_CREDENTIALS');

  assert.is(await fail(deps, user.email, 1), 'TOO_MANY_ATTEMPTS');
  const unlocked = await unlockUser(deps, scope, user.id, {
    userId: owner.userId,
    actor: { kind: 'user', id: owner.userId, name: owner.email },
    via: 'api',
  });
  assert.is(unlocked.wasLocked, true);
  assert.is(await signInCode(deps, user.email, PASSWORD), 'OK');
  assert.ok(
    await deps.db.kysely
      .selectFrom('logs')
      .select('id')
      .where('event', '=', 'auth.unlocked')
      .where('user_id', '=', user.id)
      .executeTakeFirst(),
  );
});

test('failures across many emails from one IP lock that IP, for every email', async () => {
  const deps = await serviceDeps({ env: { WIP_LOCKOUT_IP_MAX_FAILURES: '5' } });
  try {
    const { client } = await seedClient(deps);
    const owner = await deps.db.kysely.selectFrom('users').select('email').where('client_id', '=', client.id).executeTakeFirstOrThrow();
    for (let i = 0; i < 4; i++) assert.is(await signInCode(deps, email('spray'), 'wrong-password'), 'INVALID_CREDENTIALS');
    assert.is(await signInCode(deps, email('spray'), 'wrong-password'), 'TOO_MANY_ATTEMPTS');
    assert.is(await signInCode(deps, owner.email, PASSWORD), 'TOO_MANY_ATTEMPTS');
  } finally {
    await deps.close();
  }
});

test.run();
