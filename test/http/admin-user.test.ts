import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, uniqueEmail } from '../helpers/factories';

let server: TestServer;

const create = suite('POST /api/admin/user');
create.before(async () => {
  server = await startTestServer({ env: { WIP_ACCESS_TOKEN_TTL: '10m' } });
});
create.after(async () => server.stop());

const newUser = (extra: Record<string, unknown> = {}) => ({ email: uniqueEmail(), roles: ['author'], licenseType: 'full', ...extra });

create("201 with the created user in the caller's client, never its password hash", async () => {
  const client = await buildClient(server);
  const body = newUser({ firstName: 'Ada', lastName: 'Lovelace', title: 'Engineer', availableToOrg: ['org-1', 7], password: PASSWORD });
  const res = await server.request('POST', '/api/admin/user', { token: client.owner.token, body });
  assert.is(res.status, 201, res.text);
  const user = res.body.data;
  assert.is(user.clientId, client.id);
  assert.is(user.email, body.email);
  assert.equal(user.roles, ['author']);
  assert.is(user.licenseType, 'full');
  assert.is(user.firstName, 'Ada');
  assert.is(user.title, 'Engineer');
  assert.equal(user.availableToOrg, ['org-1', 7]);
  assert.is(user.status, 'active');
  assert.not.match(res.text, /password/i);
  assert.not.match(res.text, /\$2[aby]\$/);
  // the new user can sign in
  const signIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email: body.email, password: PASSWORD } });
  assert.is(signIn.status, 200);
});

create('rule 2: missing, garbage or expired token → 401', async () => {
  const client = await buildClient(server);
  assert.is((await server.request('POST', '/api/admin/user', { body: newUser() })).status, 401);
  assert.is((await server.request('POST', '/api/admin/user', { token: 'x.y.z', body: newUser() })).status, 401);
  server.clock.advance(11 * 60_000);
  const expired = await server.request('POST', '/api/admin/user', { token: client.owner.token, body: newUser() });
  assert.is(expired.status, 401);
  assert.is(expired.body.error.code, 'TOKEN_EXPIRED');
});

create('rule 1: a client user without role admin → 403 FORBIDDEN, for every non-admin role', async () => {
  const client = await buildClient(server, { seats: { full: 10 } });
  for (const role of ['user_admin', 'author', 'operator', 'approver', 'publisher', 'viewer']) {
    const user = await buildUser(server, client, { roles: [role] });
    const res = await server.request('POST', '/api/admin/user', { token: user.token, body: newUser() });
    assert.is(res.status, 403, role);
    assert.is(res.body.error.code, 'FORBIDDEN');
  }
});

create('rule 1: a system-admin token may not create users → 403', async () => {
  const res = await server.request('POST', '/api/admin/user', { token: await adminToken(server), body: newUser() });
  assert.is(res.status, 403);
});

// the rules of a user (unique email, roles per license type, seats never oversold, invitations): test/services/accounts.test.ts
create('rule 4: missing required fields, a malformed email or an unknown role → 422 naming each field', async () => {
  const client = await buildClient(server);
  const missing = await server.request('POST', '/api/admin/user', { token: client.owner.token, body: {} });
  assert.is(missing.status, 422);
  assert.is(missing.body.error.code, 'VALIDATION_ERROR');
  const paths = missing.body.error.details.fields.map((f: { path: string }) => f.path).sort();
  assert.equal(paths, ['body.email', 'body.licenseType', 'body.roles']);
  const bad = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email: 'nope', roles: ['wizard'], licenseType: 'gold' },
  });
  assert.is(bad.status, 422);
  assert.is(bad.body.error.details.fields.length, 3);
});

create('unknown fields are not written (stripped)', async () => {
  const client = await buildClient(server);
  const res = await server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: newUser({ clientId: 999, status: 'active', password_hash: 'x' }),
  });
  assert.is(res.status, 201);
  assert.is(res.body.data.clientId, client.id);
  assert.is(res.body.data.status, 'invited');
});

const update = suite('PUT /api/admin/user');
update.before(async () => {
  server = await startTestServer();
});
update.after(async () => server.stop());

update('omitted fields keep their values', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client, { roles: ['author', 'approver'] });
  const res = await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: user.id, title: 'Lead' } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.title, 'Lead');
  assert.is(res.body.data.email, user.email);
  assert.equal(res.body.data.roles, ['author', 'approver']);
});

// the rules of an edit (roles per type, email, seats, the last Security Administrator, sessions ended by a new
// password or disabling): test/services/accounts.test.ts
update('disabled: true answers the disabled user, whose sign-in is then 403 ACCOUNT_DISABLED', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const off = await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: user.id, disabled: true } });
  assert.is(off.status, 200);
  assert.is(off.body.data.status, 'disabled');
  const refused = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
  assert.is(refused.status, 403);
  assert.is(refused.body.error.code, 'ACCOUNT_DISABLED');
});

update('missing id → 422; unknown id → 404', async () => {
  const client = await buildClient(server);
  assert.is((await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { title: 'x' } })).status, 422);
  assert.is((await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: 999999 } })).status, 404);
});

update('an id of the wrong type is refused, never coerced (true is not user 1; "1e3" is not 1000) — found by the fuzzer', async () => {
  const client = await buildClient(server);
  for (const id of [true, [client.owner.id], '1e3', `${client.owner.id}.0`, '']) {
    const res = await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id, title: 'changed' } });
    assert.is(res.status, 422, `${JSON.stringify(id)}: ${res.text}`);
  }
  // the digits of an id still work, as in a query string
  assert.is(
    (await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: String(client.owner.id), title: 'ok' } }))
      .status,
    200,
  );
});

const tenancy = suite('tenant isolation on /api/admin/user');
tenancy.before(async () => {
  server = await startTestServer();
});
tenancy.after(async () => server.stop());

tenancy("client A cannot see, change or delete a user of client B: 404, and B's user is unchanged", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const victim = await buildUser(server, b, { roles: ['author'] });
  const get = await server.request('GET', `/api/admin/user/${victim.id}`, { token: a.owner.token });
  assert.is(get.status, 404);
  assert.is(get.body.error.code, 'NOT_FOUND');
  const put = await server.request('PUT', '/api/admin/user', { token: a.owner.token, body: { id: victim.id, title: 'pwned' } });
  assert.is(put.status, 404);
  const del = await server.request('DELETE', `/api/admin/user/${victim.id}`, { token: a.owner.token });
  assert.is(del.status, 404);
  const list = await server.request('GET', '/api/admin/user?limit=200', { token: a.owner.token });
  assert.not.ok(list.body.data.items.some((u: { id: number }) => u.id === victim.id));
  const still = await server.request('GET', `/api/admin/user/${victim.id}`, { token: b.owner.token });
  assert.is(still.status, 200);
  assert.is(still.body.data.title, '');
});

tenancy('the database refuses a role row linking a user to another client', async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  let error: unknown;
  try {
    await server.deps.db.kysely.insertInto('user_roles').values({ client_id: a.id, user_id: b.owner.id, role: 'admin' }).execute();
  } catch (e) {
    error = e;
  }
  // SQLite's constraint error, or PostgreSQL's foreign_key_violation
  assert.match(String((error as { code?: string })?.code), /SQLITE_CONSTRAINT|23503/);
});

const readDelete = suite('GET and DELETE /api/admin/user');
readDelete.before(async () => {
  server = await startTestServer();
});
readDelete.after(async () => server.stop());

readDelete('lists users with the one pagination shape {items, nextCursor}', async () => {
  const client = await buildClient(server, { seats: { full: 10 } });
  for (let i = 0; i < 4; i++) await buildUser(server, client, { password: null });
  const first = await server.request('GET', '/api/admin/user?limit=2', { token: client.owner.token });
  assert.is(first.status, 200);
  assert.is(first.body.data.items.length, 2);
  assert.type(first.body.data.nextCursor, 'string');
  const ids = first.body.data.items.map((u: { id: number }) => u.id);
  let cursor = first.body.data.nextCursor;
  while (cursor) {
    const page = await server.request('GET', `/api/admin/user?limit=2&cursor=${cursor}`, { token: client.owner.token });
    ids.push(...page.body.data.items.map((u: { id: number }) => u.id));
    cursor = page.body.data.nextCursor;
  }
  assert.is(ids.length, 5);
  assert.equal(
    [...ids].sort((x: number, y: number) => x - y),
    ids,
  );
  assert.is((await server.request('GET', '/api/admin/user?limit=0', { token: client.owner.token })).status, 422);
  assert.is((await server.request('GET', '/api/admin/user?limit=5000', { token: client.owner.token })).status, 422);
  assert.is((await server.request('GET', '/api/admin/user?cursor=%%%', { token: client.owner.token })).status, 400);
});

readDelete(
  'a page carries each user exactly as GET by id does, roles included (a dense page reads roles by id range, a sparse one by id list)',
  async () => {
    const client = await buildClient(server, { seats: { full: 10 } });
    const odd = 'Q "quoted" \\ back\tslash é 名前 😀';
    const bodies = [
      newUser({
        firstName: odd,
        lastName: 'zzmark',
        title: 'Lead\nline',
        availableToOrg: ['org-1', 7],
        roles: ['viewer', 'author', 'admin'],
      }),
      newUser({ lastName: 'other', roles: ['operator'] }),
      newUser({ lastName: 'zzmark', roles: ['approver', 'author'] }),
    ];
    const created = [];
    for (const body of bodies) {
      const res = await server.request('POST', '/api/admin/user', { token: client.owner.token, body });
      assert.is(res.status, 201, res.text);
      created.push(res.body.data);
    }
    await server.request('PUT', '/api/admin/user', { token: client.owner.token, body: { id: created[1].id, disabled: true } });
    for (const query of ['limit=50', 'limit=50&search=zzmark']) {
      const list = await server.request('GET', `/api/admin/user?${query}`, { token: client.owner.token });
      assert.is(list.status, 200, list.text);
      for (const item of list.body.data.items) {
        const one = await server.request('GET', `/api/admin/user/${item.id}`, { token: client.owner.token });
        // the list adds the account state the console's actions depend on
        const { locked, twoFactorEnabled, lastSecurityAdministrator, ...user } = item;
        assert.equal([typeof locked, typeof twoFactorEnabled, typeof lastSecurityAdministrator], ['boolean', 'boolean', 'boolean']);
        assert.is(JSON.stringify(user), JSON.stringify(one.body.data));
      }
      assert.is(list.body.data.items.length, query.includes('search') ? 2 : 4);
    }
    const listed = (await server.request('GET', '/api/admin/user?limit=50', { token: client.owner.token })).body.data.items;
    assert.equal(listed[1].roles, ['admin', 'author', 'viewer']);
    assert.is(listed[1].firstName, odd);
    assert.equal(listed[1].availableToOrg, ['org-1', 7]);
  },
);

readDelete('a system administrator reads users of any client with ?clientId= and by id, but cannot delete', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const token = await adminToken(server);
  const list = await server.request('GET', `/api/admin/user?clientId=${client.id}`, { token });
  assert.is(list.status, 200);
  assert.is(list.body.data.items.length, 2);
  assert.is((await server.request('GET', '/api/admin/user', { token })).status, 422);
  assert.is((await server.request('GET', '/api/admin/user?clientId=999999', { token })).status, 404);
  const one = await server.request('GET', `/api/admin/user/${user.id}`, { token });
  assert.is(one.status, 200);
  assert.is(one.body.data.email, user.email);
  assert.is((await server.request('DELETE', `/api/admin/user/${user.id}`, { token })).status, 403);
});

readDelete('DELETE removes the user (then 404); the last Security Administrator → 409; a bad id → 404', async () => {
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  assert.is((await server.request('DELETE', `/api/admin/user/${user.id}`, { token: client.owner.token })).status, 200);
  assert.is((await server.request('GET', `/api/admin/user/${user.id}`, { token: client.owner.token })).status, 404);
  assert.is((await server.request('DELETE', `/api/admin/user/${client.owner.id}`, { token: client.owner.token })).status, 409);
  assert.is((await server.request('DELETE', '/api/admin/user/abc', { token: client.owner.token })).status, 404);
});

create.run();
update.run();
tenancy.run();
readDelete.run();
