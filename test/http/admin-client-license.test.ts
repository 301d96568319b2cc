import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, PASSWORD, uniqueEmail } from '../helpers/factories';

let server: TestServer;

const clients = suite('/api/admin/client');
clients.before(async () => {
  server = await startTestServer();
});
clients.after(async () => server.stop());

clients('POST creates the client, its seat licenses and its owner (Security Administrator, full seat) → 201', async () => {
  const token = await adminToken(server);
  const email = uniqueEmail('owner');
  const res = await server.request('POST', '/api/admin/client', {
    token,
    body: { name: '  Acme Plant 3 ', owner: { email, firstName: 'Olga', password: PASSWORD }, seats: { full: 4, connect: 10 } },
  });
  assert.is(res.status, 201, res.text);
  const data = res.body.data;
  assert.is(data.name, 'Acme Plant 3');
  assert.is(data.owner.email, email);
  assert.is(data.owner.firstName, 'Olga');
  assert.equal(data.owner.roles, ['admin']);
  assert.is(data.owner.licenseType, 'full');
  assert.equal(
    data.licenses.map((l: { licenseType: string; seats: number }) => [l.licenseType, l.seats]),
    [
      ['full', 4],
      ['connect', 10],
    ],
  );
  const signIn = await server.request('POST', '/api/client/auth/sign-in', { body: { email, password: PASSWORD } });
  assert.is(signIn.body.data.user.clientId, data.id);
});

clients('default allocation is one full seat; zero full seats is refused (the owner needs one)', async () => {
  const token = await adminToken(server);
  const res = await server.request('POST', '/api/admin/client', { token, body: { name: 'Solo', owner: { email: uniqueEmail() } } });
  assert.is(res.status, 201);
  assert.equal(
    res.body.data.licenses.map((l: { seats: number }) => l.seats),
    [1],
  );
  assert.is(res.body.data.owner.status, 'invited');
  const none = await server.request('POST', '/api/admin/client', {
    token,
    body: { name: 'None', owner: { email: uniqueEmail() }, seats: { full: 0 } },
  });
  assert.is(none.status, 422);
});

clients('validation: name and owner.email required; weak owner password refused', async () => {
  const token = await adminToken(server);
  const res = await server.request('POST', '/api/admin/client', { token, body: { owner: { password: 'short' } } });
  assert.is(res.status, 422);
  const paths = res.body.error.details.fields.map((f: { path: string }) => f.path).sort();
  assert.equal(paths, ['body.name', 'body.owner.email', 'body.owner.password']);
});

clients('GET lists clients with cursor pagination; PUT renames; DELETE removes the client with its users and sessions', async () => {
  const token = await adminToken(server);
  const client = await buildClient(server);
  const user = await buildUser(server, client);
  const page = await server.request('GET', '/api/admin/client?limit=200', { token });
  assert.is(page.status, 200);
  assert.ok(page.body.data.items.some((c: { id: number }) => c.id === client.id));
  assert.is(page.body.data.nextCursor, null);
  const renamed = await server.request('PUT', `/api/admin/client/${client.id}`, { token, body: { name: 'Renamed' } });
  assert.is(renamed.status, 200);
  assert.is(renamed.body.data.name, 'Renamed');
  const del = await server.request('DELETE', `/api/admin/client/${client.id}`, { token });
  assert.is(del.status, 200);
  assert.is((await server.request('GET', '/api/client/auth/me', { token: user.token })).status, 401);
  assert.is((await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } })).status, 401);
  const left = await server.deps.db.kysely.selectFrom('users').select('id').where('client_id', '=', client.id).execute();
  assert.is(left.length, 0);
  assert.is((await server.request('DELETE', `/api/admin/client/${client.id}`, { token })).status, 404);
  assert.is((await server.request('PUT', `/api/admin/client/999999`, { token, body: { name: 'x' } })).status, 404);
});

clients('auth matrix: no token → 401, client token (even a Security Administrator) → 403, admin token → 200', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client);
  const admin = await adminToken(server);
  const routes: [string, string, unknown?][] = [
    ['GET', '/api/admin/client'],
    ['POST', '/api/admin/client', { name: 'x', owner: { email: uniqueEmail() } }],
    ['PUT', `/api/admin/client/${client.id}`, { name: 'y' }],
    ['DELETE', `/api/admin/client/${client.id}`],
    ['GET', '/api/admin/license'],
    ['POST', '/api/admin/license', { clientId: client.id, licenseType: 'full', seats: 1 }],
  ];
  for (const [method, path, body] of routes) {
    assert.is((await server.request(method, path, { body })).status, 401, `${method} ${path} anonymous`);
    assert.is((await server.request(method, path, { body, token: client.owner.token })).status, 403, `${method} ${path} owner`);
    assert.is((await server.request(method, path, { body, token: author.token })).status, 403, `${method} ${path} author`);
  }
  assert.is((await server.request('GET', '/api/admin/client', { token: admin })).status, 200);
});

clients('admin sign-in: wrong password → 401 INVALID_CREDENTIALS; sign-out ends the admin token', async () => {
  const wrong = await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: 'wrong-password' } });
  assert.is(wrong.status, 401);
  assert.is(wrong.body.error.code, 'INVALID_CREDENTIALS');
  const unknown = await server.request('POST', '/api/admin/auth/sign-in', { body: { username: 'ghost', password: 'wrong-password' } });
  assert.equal(unknown.body, wrong.body);
  const token = await adminToken(server);
  assert.is((await server.request('POST', '/api/admin/auth/sign-out', { token })).status, 200);
  assert.is((await server.request('GET', '/api/admin/client', { token })).status, 401);
});

const licenses = suite('/api/admin/license');
licenses.before(async () => {
  server = await startTestServer();
});
licenses.after(async () => server.stop());

// which allocations are refused (below the users holding seats, past the key's totals, expired ones not counted):
// test/services/licensing-seats.test.ts
licenses(
  'POST, GET, PUT and DELETE: an allocation created, listed, changed and removed; a refusal is 409 with the seats used',
  async () => {
    const token = await adminToken(server);
    const client = await buildClient(server, { seats: { full: 3 } });
    await buildUser(server, client);
    const extra = await server.request('POST', '/api/admin/license', {
      token,
      body: {
        clientId: client.id,
        licenseType: 'connect',
        seats: 5,
        expiresAt: new Date(server.clock.now().getTime() + 86_400_000).toISOString(),
      },
    });
    assert.is(extra.status, 201, extra.text);
    assert.equal([extra.body.data.licenseType, extra.body.data.seats], ['connect', 5]);
    const list = await server.request('GET', `/api/admin/license?clientId=${client.id}`, { token });
    assert.is(list.body.data.items.length, 2);
    const id = list.body.data.items[0].id;
    const tooFew = await server.request('PUT', `/api/admin/license/${id}`, { token, body: { seats: 1 } });
    assert.is(tooFew.status, 409);
    assert.is(tooFew.body.error.details.used, 2);
    const ok = await server.request('PUT', `/api/admin/license/${id}`, { token, body: { seats: 2 } });
    assert.is(ok.status, 200);
    assert.is(ok.body.data.seats, 2);
    assert.is((await server.request('DELETE', `/api/admin/license/${extra.body.data.id}`, { token })).status, 200);
    assert.is((await server.request('DELETE', `/api/admin/license/${extra.body.data.id}`, { token })).status, 404);
  },
);

licenses('validation: unknown client → 404, bad type/seats/date → 422', async () => {
  const token = await adminToken(server);
  assert.is(
    (await server.request('POST', '/api/admin/license', { token, body: { clientId: 999999, licenseType: 'full', seats: 1 } })).status,
    404,
  );
  const bad = await server.request('POST', '/api/admin/license', {
    token,
    body: { clientId: 1, licenseType: 'gold', seats: -1, expiresAt: 'tomorrow' },
  });
  assert.is(bad.status, 422);
  assert.is(bad.body.error.details.fields.length, 3);
});

clients.run();
licenses.run();
