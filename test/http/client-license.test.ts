import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';

let server: TestServer;

const get = suite('GET /api/client/license');
get.before(async () => {
  server = await startTestServer();
});

get('any signed-in user sees the client seats per type and the license flags', async () => {
  const client = await buildClient(server, { seats: { full: 3, connect: 2 } });
  const viewer = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  const res = await server.request('GET', '/api/client/license', { token: viewer.token });
  assert.is(res.status, 200, res.text);
  const data = res.body.data;
  assert.equal(data.seats, { full: { allocated: 3, used: 1, free: 2 }, connect: { allocated: 2, used: 1, free: 1 } });
  assert.equal([data.evaluation, data.status, data.grace, data.readOnly], [false, 'active', false, false]);
  assert.type(data.expiresAt, 'string');
  assert.ok(Array.isArray(data.features));
});

get('401 without a token', async () => {
  const res = await server.request('GET', '/api/client/license');
  assert.is(res.status, 401);
});

get.run();

const post = suite('POST /api/client/license');

post('the Security Administrator moves a user to another license type', async () => {
  const client = await buildClient(server, { seats: { full: 3, connect: 2 } });
  const user = await buildUser(server, client, { roles: ['operator'], licenseType: 'full' });
  const res = await server.request('POST', '/api/client/license', {
    token: client.owner.token,
    body: { userId: user.id, licenseType: 'connect' },
  });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.users[0].licenseType, 'connect');
  assert.equal(res.body.data.seats.connect, { allocated: 2, used: 1, free: 1 });
  assert.equal(res.body.data.seats.full, { allocated: 3, used: 1, free: 2 });
});

post('403 for a user who is not a Security Administrator', async () => {
  const client = await buildClient(server);
  const author = await buildUser(server, client, { roles: ['user_admin'] });
  const res = await server.request('POST', '/api/client/license', {
    token: author.token,
    body: { userId: author.id, licenseType: 'connect' },
  });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'FORBIDDEN');
});

// the rules of a move (roles per type, seats after the whole batch, all or nothing): test/services/licensing-seats.test.ts
post('a batch of changes answers every user moved (a swap when every seat is taken)', async () => {
  const client = await buildClient(server, { seats: { full: 2, connect: 1 } });
  const a = await buildUser(server, client, { roles: ['viewer'], licenseType: 'full' });
  const b = await buildUser(server, client, { roles: ['viewer'], licenseType: 'connect' });
  const res = await server.request('POST', '/api/client/license', {
    token: client.owner.token,
    body: {
      changes: [
        { userId: a.id, licenseType: 'connect' },
        { userId: b.id, licenseType: 'full' },
      ],
    },
  });
  assert.is(res.status, 200, res.text);
  assert.equal(
    res.body.data.users.map((u: { licenseType: string }) => u.licenseType),
    ['connect', 'full'],
  );
});

post("another client's user → 404", async () => {
  const mine = await buildClient(server);
  const other = await buildClient(server);
  const stranger = await buildUser(server, other, { roles: ['viewer'] });
  const res = await server.request('POST', '/api/client/license', {
    token: mine.owner.token,
    body: { userId: stranger.id, licenseType: 'connect' },
  });
  assert.is(res.status, 404);
});

post.after(async () => server.stop());
post.run();
