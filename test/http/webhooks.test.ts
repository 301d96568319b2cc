import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitFor } from '../helpers/wait';
import { buildClient, uniqueEmail, adminToken, signIn, type BuiltClient } from '../helpers/factories';
import { startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../helpers/webhook-receiver';
import { withTransaction } from '#db/transaction';
import { emitEvent } from '#events/emit';
import { tenantScope } from '#db/tenant';
import { ManualClock } from '#lib/clock';

// Loopback receivers need loopback allowed; the retry schedule is seconds, driven by the server's clock.
const ENV = { WIP_WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WIP_WEBHOOK_RETRY_SCHEDULE: '1s,1s', WIP_WEBHOOK_POLL_INTERVAL: '100ms' };

let server: TestServer;
let receiver: WebhookReceiver;
const hooks = suite('Webhooks: Standard Webhooks deliveries');
hooks.before(async () => {
  server = await startTestServer({ env: ENV });
});
hooks.after(async () => server.stop());
hooks.before.each(async () => {
  receiver = await startWebhookReceiver();
});
hooks.after.each(async () => receiver.close());

async function register(client: BuiltClient, url: string, events: string[]) {
  const res = await server.request('POST', '/api/client/webhooks', { token: client.owner.token, body: { url, events } });
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: number; secret: string; url: string; events: string[]; active: boolean };
}

const createUser = (client: BuiltClient, email = uniqueEmail()) =>
  server.request('POST', '/api/admin/user', {
    token: client.owner.token,
    body: { email, roles: ['operator'], licenseType: 'full', password: 'correct-horse-battery' },
  });

/**
 * Moves the server's clock past the next retry (the schedule is 1s, 1s) once
 * attempt `attempt` is recorded. The receiver sees a request before the sender
 * records its outcome; advancing in between would put the retry a second past
 * the advanced clock, where nothing moves it again.
 */
async function advancePastRetry(client: BuiltClient, hookId: number, attempt: number) {
  await waitFor(`attempt ${attempt} to be recorded`, async () => {
    const log = await server.request('GET', `/api/client/webhooks/${hookId}/deliveries`, { token: client.owner.token });
    return log.body.data.items[0]?.attempt === attempt;
  });
  server.clock.advance(1_100);
}

hooks('a created user reaches the endpoint signed per Standard Webhooks, verified by the standardwebhooks package', async () => {
  const client = await buildClient(server);
  const hook = await register(client, receiver.url, ['user.created']);
  assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]+=*$/);
  const email = uniqueEmail();
  assert.is((await createUser(client, email)).status, 201);
  const [delivery] = await receiver.waitFor(1);
  const payload = verifyDelivery(hook.secret, delivery);
  assert.is(payload.type, 'user.created');
  assert.is(payload.id, delivery.headers['webhook-id']);
  assert.is(payload.data.email, email);
  assert.is(payload.data.clientId, client.id);
  assert.not.ok('passwordHash' in payload.data || 'password_hash' in payload.data, 'no hash in the payload');
  assert.throws(() => verifyDelivery(`whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`, delivery));
  // the secret is shown at creation only
  const list = await server.request('GET', '/api/client/webhooks', { token: client.owner.token });
  assert.is(list.body.data.items[0].id, hook.id);
  assert.not.ok('secret' in list.body.data.items[0]);
  await waitFor('the delivery log', async () => {
    const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
    return log.body.data.items[0]?.status === 'succeeded';
  });
  const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
  const entry = log.body.data.items[0];
  assert.is(entry.eventId, payload.id);
  assert.is(entry.eventType, 'user.created');
  assert.is(entry.attempt, 1);
  assert.is(entry.statusCode, 200);
  assert.type(entry.durationMs, 'number');
});

hooks('a receiver failing twice then answering 2xx gets three attempts with the same webhook-id', async () => {
  const client = await buildClient(server);
  const hook = await register(client, receiver.url, ['user.created']);
  receiver.respond = (n) => ({ status: n < 2 ? 503 : 204 });
  await createUser(client);
  await receiver.waitFor(1);
  for (const count of [2, 3]) {
    await advancePastRetry(client, hook.id, count - 1);
    await receiver.waitFor(count);
  }
  const ids = receiver.received.map((d) => d.headers['webhook-id']);
  assert.is(new Set(ids).size, 1, `same id on every attempt: ${ids}`);
  for (const d of receiver.received) verifyDelivery(hook.secret, d);
  await waitFor('the delivery to succeed', async () => {
    const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
    return log.body.data.items[0]?.status === 'succeeded';
  });
  const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
  assert.is(log.body.data.items[0].attempt, 3);
  assert.is(log.body.data.items[0].statusCode, 204);
});

hooks('after the last scheduled retry a delivery has failed, and redeliver sends it again with the same id', async () => {
  const client = await buildClient(server);
  const hook = await register(client, receiver.url, ['user.created']);
  receiver.respond = () => ({ status: 500 });
  await createUser(client);
  await receiver.waitFor(1);
  await advancePastRetry(client, hook.id, 1);
  await receiver.waitFor(2);
  await advancePastRetry(client, hook.id, 2);
  await receiver.waitFor(3);
  await waitFor('the delivery to fail', async () => {
    const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
    return log.body.data.items[0]?.status === 'failed';
  });
  // past every retry the schedule could have: a run of the sender at that time finds nothing due
  server.clock.advance(5_000);
  await server.deps.webhooks.deliverDue();
  assert.is(receiver.received.length, 3, 'no attempt after the schedule ran out');
  const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
  receiver.respond = () => ({ status: 200 });
  const again = await server.request('POST', `/api/client/webhooks/${hook.id}/deliveries/${log.body.data.items[0].id}/redeliver`, {
    token: client.owner.token,
  });
  assert.is(again.status, 202, again.text);
  const all = await receiver.waitFor(4);
  assert.is(all[3].headers['webhook-id'], all[0].headers['webhook-id']);
});

hooks('only subscribed types are delivered; ping reaches the endpoint as webhook.ping', async () => {
  const client = await buildClient(server);
  const hook = await register(client, receiver.url, ['user.deleted']);
  await createUser(client);
  const ping = await server.request('POST', `/api/client/webhooks/${hook.id}/ping`, { token: client.owner.token });
  assert.is(ping.status, 202, ping.text);
  const [delivery] = await receiver.waitFor(1);
  assert.is(verifyDelivery(hook.secret, delivery).type, 'webhook.ping');
  // the user's event was written before the ping: had it been queued for the endpoint, the log would list it,
  // and a run of the sender has nothing left to send
  await server.deps.webhooks.deliverDue();
  const log = await server.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
  assert.equal(
    log.body.data.items.map((d: { eventType: string }) => d.eventType),
    ['webhook.ping'],
  );
  assert.is(receiver.received.length, 1, 'user.created was not subscribed');
});

hooks('a rotated secret signs beside the old one for 24 h', async () => {
  const client = await buildClient(server);
  const hook = await register(client, receiver.url, ['user.created']);
  const rotated = await server.request('PUT', `/api/client/webhooks/${hook.id}`, {
    token: client.owner.token,
    body: { rotateSecret: true },
  });
  assert.is(rotated.status, 200, rotated.text);
  assert.match(rotated.body.data.secret, /^whsec_/);
  assert.is.not(rotated.body.data.secret, hook.secret);
  await createUser(client);
  const [delivery] = await receiver.waitFor(1);
  verifyDelivery(hook.secret, delivery);
  verifyDelivery(rotated.body.data.secret, delivery);
  // past the overlap only the new secret signs
  server.clock.advance(24 * 3_600_000 + 1_000);
  // the owner's access token has expired by then too
  const fresh = {
    ...client,
    owner: { ...client.owner, token: await signIn(server, client.owner.email, client.owner.password, client.id) },
  };
  assert.is((await createUser(fresh)).status, 201);
  const [, later] = await receiver.waitFor(2);
  verifyDelivery(rotated.body.data.secret, later);
  assert.throws(() => verifyDelivery(hook.secret, later));
});

hooks('a rolled-back change emits nothing: no event, no delivery', async () => {
  const client = await buildClient(server);
  await register(client, receiver.url, ['user.created', 'user.updated']);
  const email = uniqueEmail();
  assert.is((await createUser(client, email)).status, 201);
  await receiver.waitFor(1);
  // refused change (the email is taken): its transaction rolls back
  assert.is((await createUser(client, email)).status, 409);
  // an event written and then rolled back with its transaction
  const deps = server.deps;
  const before = await deps.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await withTransaction(deps.db, async (trx, afterCommit) => {
    await emitEvent({ deps, trx, afterCommit }, tenantScope(client.id), 'user.updated', { id: 1 });
    throw new Error('the change fails after its event was written');
  }).catch(() => undefined);
  const after = await deps.db.kysely
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  assert.is(Number(after.n), Number(before.n));
  // a run of the sender (it resolves once every due delivery was sent) sends nothing more
  await deps.webhooks.deliverDue();
  assert.is(receiver.received.length, 1);
});

hooks("another client's endpoints and events stay out of reach", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const other = await startWebhookReceiver();
  try {
    const hookA = await register(a, receiver.url, ['user.created']);
    const hookB = await register(b, other.url, ['user.created']);
    await createUser(a);
    await receiver.waitFor(1);
    // no delivery was queued for client B's endpoint (deliveries are written with the event), and a run of the
    // sender has nothing left to send
    const logB = await server.request('GET', `/api/client/webhooks/${hookB.id}/deliveries`, { token: b.owner.token });
    assert.equal(logB.body.data.items, []);
    await server.deps.webhooks.deliverDue();
    assert.is(other.received.length, 0, "client B's endpoint got nothing of client A");
    for (const [method, path] of [
      ['PUT', `/api/client/webhooks/${hookA.id}`],
      ['DELETE', `/api/client/webhooks/${hookA.id}`],
      ['POST', `/api/client/webhooks/${hookA.id}/ping`],
      ['GET', `/api/client/webhooks/${hookA.id}/deliveries`],
    ] as const) {
      const res = await server.request(method, path, { token: b.owner.token, body: method === 'PUT' ? { description: 'x' } : undefined });
      assert.is(res.status, 404, `${method} ${path}: ${res.text}`);
    }
    const list = await server.request('GET', '/api/client/webhooks', { token: b.owner.token });
    assert.not.ok(list.body.data.items.some((w: { id: number }) => w.id === hookA.id));
  } finally {
    await other.close();
  }
});

hooks('system administrators get system events (client.created) on /api/admin/webhooks', async () => {
  const token = await adminToken(server);
  const res = await server.request('POST', '/api/admin/webhooks', { token, body: { url: receiver.url, events: ['client.created'] } });
  assert.is(res.status, 201, res.text);
  const client = await buildClient(server);
  const [delivery] = await receiver.waitFor(1);
  const payload = verifyDelivery(res.body.data.secret, delivery);
  assert.is(payload.type, 'client.created');
  assert.is(payload.data.id, client.id);
  // client event types are not system events
  const wrong = await server.request('POST', '/api/admin/webhooks', { token, body: { url: receiver.url, events: ['user.created'] } });
  assert.is(wrong.status, 422);
  await server.request('DELETE', `/api/admin/webhooks/${res.body.data.id}`, { token });
});

hooks(
  "a delivery that always throws (its sealed secret is corrupt) is failed after the schedule's attempts, and the other endpoint still gets the event",
  async () => {
    const client = await buildClient(server);
    const healthy = await register(client, receiver.url, ['user.created']);
    const poisoned = await register(client, receiver.url, ['user.created']);
    const db = server.deps.db.kysely;
    await db.updateTable('webhooks').set({ secret: 'not-a-sealed-value' }).where('id', '=', poisoned.id).execute();
    assert.is((await createUser(client)).status, 201);
    const [delivery] = await receiver.waitFor(1);
    verifyDelivery(healthy.secret, delivery);
    const row = () => db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', poisoned.id).executeTakeFirstOrThrow();
    await waitFor('the first failed attempt', async () => (await row()).attempts >= 1);
    // far more rounds than the schedule (1s, 1s: three attempts) allows, each past the longest backoff
    for (let round = 0; round < 6; round++) {
      server.clock.advance(2 * 3_600_000);
      await server.deps.webhooks.deliverDue();
    }
    const failed = await row();
    assert.is(failed.status, 'failed');
    assert.is(failed.attempts, 3);
    assert.match(failed.last_error ?? '', 'not a sealed value');
    assert.is(receiver.received.length, 1, 'the poisoned endpoint was never posted to');
  },
);

hooks.run();

const ssrf = suite('Webhooks: SSRF defence');
let plain: TestServer;
let allowing: TestServer;
ssrf.before(async () => {
  [plain, allowing] = await Promise.all([startTestServer(), startTestServer({ env: ENV })]);
});
ssrf.after(async () => {
  await Promise.all([plain.stop(), allowing.stop()]);
});

ssrf('loopback, link-local (cloud metadata) and names resolving to loopback are refused with 422 naming why', async () => {
  const client = await buildClient(plain);
  const target = await startWebhookReceiver();
  try {
    const port = new URL(target.url).port;
    for (const [url, reason] of [
      [`http://127.0.0.1:${port}/hook`, /loopback/],
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      [`http://localhost:${port}/hook`, /localhost resolves to .*loopback/],
      [`http://[::ffff:127.0.0.1]:${port}/hook`, /loopback/],
      ['http://0.0.0.0/', /unspecified/],
    ] as const) {
      const res = await plain.request('POST', '/api/client/webhooks', {
        token: client.owner.token,
        body: { url, events: ['user.created'] },
      });
      assert.is(res.status, 422, `${url}: ${res.text}`);
      assert.is(res.body.error.code, 'WEBHOOK_TARGET_REFUSED');
      assert.match(res.body.error.message, reason);
    }
    const notHttp = await plain.request('POST', '/api/client/webhooks', {
      token: client.owner.token,
      body: { url: 'file:///etc/passwd', events: ['user.created'] },
    });
    assert.is(notHttp.status, 422);
    assert.is(target.received.length, 0);
  } finally {
    await target.close();
  }
});

ssrf('cloud metadata stays refused even when loopback is allowed; redirects are not followed', async () => {
  const client = await buildClient(allowing);
  const metadata = await allowing.request('POST', '/api/client/webhooks', {
    token: client.owner.token,
    body: { url: 'http://169.254.169.254/', events: ['user.created'] },
  });
  assert.is(metadata.status, 422);
  const elsewhere = await startWebhookReceiver();
  const redirecting = await startWebhookReceiver();
  try {
    redirecting.respond = () => ({ status: 307, headers: { location: elsewhere.url } });
    const hook = (
      await allowing.request('POST', '/api/client/webhooks', {
        token: client.owner.token,
        body: { url: redirecting.url, events: ['user.created'] },
      })
    ).body.data;
    await allowing.request('POST', `/api/client/webhooks/${hook.id}/ping`, { token: client.owner.token });
    await redirecting.waitFor(1);
    const deliveries = () => allowing.request('GET', `/api/client/webhooks/${hook.id}/deliveries`, { token: client.owner.token });
    // the receiver answers before the sender records the attempt: wait for the record, not a fixed time
    await waitFor('the redirected attempt to be recorded', async () => (await deliveries()).body.data.items[0]?.statusCode != null);
    // the attempt is recorded after its answer: a followed redirect would have reached `elsewhere` before it
    assert.is(elsewhere.received.length, 0, 'the redirect was not followed');
    const log = await deliveries();
    assert.is(log.body.data.items[0].statusCode, 307);
    assert.match(log.body.data.items[0].error, /redirect/);
    assert.is(log.body.data.items[0].status, 'pending', 'a redirect is a failure, retried on the schedule');
  } finally {
    await elsewhere.close();
    await redirecting.close();
  }
});

ssrf.run();

const restart = suite('Webhooks: deliveries survive a daemon restart');

restart('a pending delivery is sent by the next daemon on the same data directory, with the same id', async () => {
  const receiver2 = await startWebhookReceiver();
  // the first daemon's clock stands still, so it never retries; the next one's is past the 1 s retry
  let first: TestServer | undefined = await startTestServer({ env: { ...ENV, WIP_WEBHOOK_RETRY_SCHEDULE: '1s' } });
  let second: TestServer | undefined;
  try {
    const client = await buildClient(first);
    const hook = (
      await first.request('POST', '/api/client/webhooks', {
        token: client.owner.token,
        body: { url: receiver2.url, events: ['user.created'] },
      })
    ).body.data;
    receiver2.respond = () => ({ status: 500 });
    const created = await first.request('POST', '/api/admin/user', {
      token: client.owner.token,
      body: { email: uniqueEmail(), roles: ['operator'], licenseType: 'full', password: 'correct-horse-battery' },
    });
    assert.is(created.status, 201);
    await receiver2.waitFor(1);
    const dataDir = first.dataDir;
    await first.stop({ keepData: true });
    first = undefined;
    receiver2.respond = () => ({ status: 200 });
    second = await startTestServer({ env: ENV, dataDir, clock: new ManualClock(new Date(Date.now() + 2_000)) });
    const [a, b] = await receiver2.waitFor(2);
    assert.is(b.headers['webhook-id'], a.headers['webhook-id']);
    assert.is(verifyDelivery(hook.secret, b).type, 'user.created');
  } finally {
    await first?.stop();
    await second?.stop();
    await receiver2.close();
  }
});

restart.run();
