import { createHmac, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient } from '../helpers/factories';

const notifications = suite('POST /api/admin/container-notification-center');
const SECRET = 'container-secret-0123456789abcdef-0123';
let server: TestServer;
notifications.before(async () => {
  server = await startTestServer({ env: { WIP_CONTAINER_NOTIFICATION_SECRET: SECRET } });
});
notifications.after(async () => server.stop());

const sign = (raw: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
const send = (raw: string, headers: Record<string, string> = {}, token?: string) =>
  server.request('POST', '/api/admin/container-notification-center', { raw, headers, token });
const notification = (type = 'image.updated') => ({
  id: `n-${randomUUID()}`,
  type,
  occurredAt: '2026-11-20T10:00:00.000Z',
  data: { image: 'wip:1.4.0', digest: 'sha256:abc' },
});

notifications('a notification signed over its raw bytes is stored and listed for system administrators', async () => {
  const n = notification();
  // formatting the signer chose (spaces, key order) is what is signed: the check uses the raw bytes
  const raw = `{ "type": "image.updated", "id": "${n.id}",\n "occurredAt": "${n.occurredAt}", "data": ${JSON.stringify(n.data)} }`;
  const res = await send(raw, { 'x-signature-256': sign(raw) });
  assert.is(res.status, 200, res.text);
  assert.equal(
    {
      id: res.body.data.id,
      type: res.body.data.type,
      data: res.body.data.data,
      by: res.body.data.authenticatedBy,
      duplicate: res.body.data.duplicate,
    },
    { id: n.id, type: 'image.updated', data: n.data, by: 'signature', duplicate: false },
  );
  const list = await server.request('GET', '/api/admin/container-notification-center?type=image.updated&limit=200', {
    token: await adminToken(server),
  });
  assert.is(list.status, 200);
  assert.ok(list.body.data.items.some((item: { id: string }) => item.id === n.id));
});

notifications('a missing or wrong signature is 401 SIGNATURE_INVALID and nothing is stored', async () => {
  const n = notification();
  const raw = JSON.stringify(n);
  for (const headers of [
    {} as Record<string, string>,
    { 'x-signature-256': sign(raw, 'another-secret-0123456789abcdef-0000') },
    { 'x-signature-256': sign(raw + ' ') },
    { 'x-signature-256': 'sha256=zz' },
  ]) {
    const res = await send(raw, headers);
    assert.is(res.status, 401, JSON.stringify(headers));
    assert.is(res.body.error.code, 'SIGNATURE_INVALID');
  }
  // the body was signed, then changed in transit
  const tampered = JSON.stringify({ ...n, type: 'restart.scheduled' });
  assert.is((await send(tampered, { 'x-signature-256': sign(raw) })).status, 401);
  const list = await server.request('GET', '/api/admin/container-notification-center?limit=200', { token: await adminToken(server) });
  assert.not.ok(list.body.data.items.some((item: { id: string }) => item.id === n.id));
});

notifications('a replayed id is answered with the stored notification, stored once; the same id with other content is 409', async () => {
  const n = notification('restart.scheduled');
  const raw = JSON.stringify(n);
  const first = await send(raw, { 'x-signature-256': sign(raw) });
  const again = await send(raw, { 'x-signature-256': sign(raw) });
  assert.is(first.status, 200);
  assert.is(again.status, 200);
  assert.is(again.body.data.duplicate, true);
  assert.is(again.body.data.receivedAt, first.body.data.receivedAt);
  const list = await server.request('GET', '/api/admin/container-notification-center?type=restart.scheduled&limit=200', {
    token: await adminToken(server),
  });
  assert.is(list.body.data.items.filter((item: { id: string }) => item.id === n.id).length, 1);
  const changed = JSON.stringify({ ...n, data: { at: 'tomorrow' } });
  const clash = await send(changed, { 'x-signature-256': sign(changed) });
  assert.is(clash.status, 409);
});

notifications("a system administrator's token is accepted instead of a signature; a client user's is not", async () => {
  const n = notification();
  const res = await send(JSON.stringify(n), {}, await adminToken(server));
  assert.is(res.status, 200, res.text);
  assert.match(res.body.data.authenticatedBy, /^admin:\d+$/);
  const client = await buildClient(server);
  const user = await send(JSON.stringify(notification()), {}, client.owner.token);
  assert.is(user.status, 401);
  assert.is((await server.request('GET', '/api/admin/container-notification-center', { token: client.owner.token })).status, 403);
});

notifications(
  'without a configured secret, anyone unauthenticated gets 401 first (signed or not, any body); only a system administrator learns 503 INTEGRATION_NOT_CONFIGURED',
  async () => {
    const bare = await startTestServer();
    try {
      const raw = JSON.stringify(notification());
      const post = (body: string, headers: Record<string, string> = {}, token?: string) =>
        bare.request('POST', '/api/admin/container-notification-center', { raw: body, headers, token });
      const anonymous = [await post(raw), await post(raw, { 'x-signature-256': sign(raw) }), await post('{"not":"a notification"}')];
      for (const res of anonymous) {
        assert.is(res.status, 401, res.text);
        assert.is(res.body.error.code, 'SIGNATURE_INVALID');
        assert.not.match(res.text, /configur|secret/i);
      }
      // a signed post is refused exactly like a wrong signature on a configured server: nothing tells them apart
      assert.is(anonymous[1].text, (await send(raw, { 'x-signature-256': sign(raw, 'another-secret-0123456789abcdef-0000') })).text);
      const client = await buildClient(bare);
      assert.is((await post(raw, {}, client.owner.token)).status, 401);
      const admin = await post(raw, {}, await adminToken(bare));
      assert.is(admin.status, 503, admin.text);
      assert.is(admin.body.error.code, 'INTEGRATION_NOT_CONFIGURED');
      assert.equal(admin.body.error.details.settings, ['containerNotificationSecret']);
      const list = await bare.request('GET', '/api/admin/container-notification-center', { token: await adminToken(bare) });
      assert.equal(list.body.data.items, []);
    } finally {
      await bare.stop();
    }
  },
);

notifications('the caller is authenticated before the body is validated', async () => {
  const res = await send('{"id":"has space","type":"Bad"}');
  assert.is(res.status, 401, res.text);
  assert.is(res.body.error.code, 'SIGNATURE_INVALID');
  const signed = '{"id":"has space","type":"Bad"}';
  assert.is((await send(signed, { 'x-signature-256': sign(signed) })).status, 422);
});

notifications.run();
