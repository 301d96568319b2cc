import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server';
import { testPostgres } from '../helpers/postgres';
import { buildClient, buildUser, PASSWORD, signIn } from '../helpers/factories';
import { loadConfig } from '#config';

/**
 * A TCP relay between the node and PostgreSQL: "down" refuses new connections
 * and cuts the open ones, as a failover or a dead database server does.
 */
async function startRelay(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let up = true;
  const server = net.createServer((socket) => {
    if (!up) return socket.destroy();
    const upstream = net.connect(target.port, target.host);
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
      sockets.delete(socket);
      sockets.delete(upstream);
    };
    socket.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    down() {
      up = false;
      for (const socket of sockets) socket.destroy();
    },
    up() {
      up = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let server: TestServer;
let relay: Awaited<ReturnType<typeof startRelay>>;

const outage = suite('PostgreSQL unreachable');
outage.before(async () => {
  const url = new URL(await (await testPostgres()).freshDatabaseUrl());
  relay = await startRelay({ host: url.hostname, port: Number(url.port) });
  url.port = String(relay.port);
  server = await startTestServer({ env: { WIP_DATABASE_URL: url.toString(), WIP_MASTER_KEY: TEST_MASTER_KEY } });
});
outage.after(async () => {
  await server.stop();
  await relay.close();
});

outage(
  'requests are answered 503 SERVICE_UNAVAILABLE (never 500) and readiness says why; the node recovers by itself when the database returns',
  async () => {
    const client = await buildClient(server);
    const user = await buildUser(server, client);
    const token = await signIn(server, user.email, PASSWORD);
    relay.down();
    const me = await server.request('GET', '/api/client/auth/me', { token });
    assert.is(me.status, 503, me.text);
    assert.is(me.body.error.code, 'SERVICE_UNAVAILABLE');
    const write = await server.request('POST', '/api/client/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
    assert.is(write.status, 503, write.text);
    const ready = await server.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.match(JSON.stringify(ready.body), /unreachable/);
    relay.up();
    assert.is((await server.request('GET', '/api/client/auth/me', { token })).status, 200);
    assert.is((await server.request('GET', '/readyz')).status, 200);
  },
);

const config = suite('PostgreSQL settings');
config('databaseUrl without a master key is refused with a clear message', () => {
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: '/tmp/unused', WIP_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/wip' } }),
    (error: Error) => /masterKey: required with databaseUrl: set WIP_MASTER_KEY/.test(error.message),
  );
  assert.throws(
    () =>
      loadConfig({ env: { WIP_DATA_DIR: '/tmp/unused', WIP_DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/wip', WIP_MASTER_KEY: 'short' } }),
    /masterKey: use at least 32 characters/,
  );
});

outage.run();
config.run();
