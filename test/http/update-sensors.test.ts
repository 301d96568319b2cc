import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser, type BuiltClient } from '../helpers/factories';
import { gql } from '../helpers/graphql';

let server: TestServer;
const sensors = suite('POST /api/client/update-sensors');
sensors.before(async () => {
  server = await startTestServer();
});
sensors.after(async () => server.stop());

async function defineSensor(client: BuiltClient, name = 'T1'): Promise<number> {
  const result = await gql(
    server,
    client.owner.token,
    'mutation ($n: String!) { createSensor(input: {name: $n, unit: "°C", kind: "temperature"}) { sensor { databaseId } } }',
    { n: name },
  );
  return result.data.createSensor.sensor.databaseId;
}

const send = (token: string | undefined, readings: unknown[]) =>
  server.request('POST', '/api/client/update-sensors', { token, body: { readings } });

async function latest(token: string) {
  const result = await gql(server, token, '{ sensors { nodes { id: databaseId name latestReading { readingId value timestamp } } } }');
  return result.data.sensors.nodes as {
    id: number;
    name: string;
    latestReading: { readingId: string; value: number; timestamp: string } | null;
  }[];
}

sensors('an operator sends readings; Sensor.latestReading is the newest by measurement time', async () => {
  const client = await buildClient(server);
  const id = await defineSensor(client);
  const device = await buildUser(server, client, { roles: ['operator'], licenseType: 'connect' });
  const res = await send(device.token, [
    { sensorId: id, readingId: 'r1', value: 20.5, timestamp: '2026-01-01T10:00:00Z' },
    { sensorId: id, readingId: 'r3', value: 22, timestamp: '2026-01-01T10:02:00+00:00' },
    { sensorId: id, readingId: 'r2', value: 21, timestamp: '2026-01-01T10:01:00Z' },
  ]);
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { accepted: 3, duplicates: 0 });
  const [sensor] = await latest(device.token!);
  assert.equal(sensor.latestReading, { readingId: 'r3', value: 22, timestamp: '2026-01-01T10:02:00.000Z' });
});

sensors('a resent readingId is a duplicate, not a second value — also within one batch', async () => {
  const client = await buildClient(server);
  const id = await defineSensor(client);
  const first = await send(client.owner.token, [{ sensorId: id, readingId: 'a', value: 1, timestamp: '2026-01-01T10:00:00Z' }]);
  assert.equal(first.body.data, { accepted: 1, duplicates: 0 });
  const again = await send(client.owner.token, [
    { sensorId: id, readingId: 'a', value: 99, timestamp: '2026-01-02T10:00:00Z' },
    { sensorId: id, readingId: 'b', value: 2, timestamp: '2026-01-01T11:00:00Z' },
    { sensorId: id, readingId: 'b', value: 3, timestamp: '2026-01-01T12:00:00Z' },
  ]);
  assert.equal(again.body.data, { accepted: 1, duplicates: 2 });
  const [sensor] = await latest(client.owner.token);
  // the resent "a" (newer timestamp, value 99) was not stored; the first "b" was
  assert.equal(sensor.latestReading, { readingId: 'b', value: 2, timestamp: '2026-01-01T11:00:00.000Z' });
  const rows = await server.deps.db.kysely.selectFrom('sensor_readings').select('reading_id').where('client_id', '=', client.id).execute();
  assert.is(rows.length, 2);
});

sensors("readingIds are per client: another client's equal readingId is not a duplicate", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const reading = { readingId: 'same', value: 1, timestamp: '2026-01-01T10:00:00Z' };
  assert.equal((await send(a.owner.token, [{ ...reading, sensorId: await defineSensor(a) }])).body.data, { accepted: 1, duplicates: 0 });
  assert.equal((await send(b.owner.token, [{ ...reading, sensorId: await defineSensor(b) }])).body.data, { accepted: 1, duplicates: 0 });
});

sensors("an unknown or another client's sensorId refuses the whole batch with 422 naming the reading; nothing is stored", async () => {
  const a = await buildClient(server);
  const b = await buildClient(server);
  const mine = await defineSensor(a);
  const theirs = await defineSensor(b);
  for (const bad of [theirs, 987654]) {
    const res = await send(a.owner.token, [
      { sensorId: mine, readingId: `ok-${bad}`, value: 1, timestamp: '2026-01-01T10:00:00Z' },
      { sensorId: bad, readingId: `bad-${bad}`, value: 2, timestamp: '2026-01-01T10:00:00Z' },
    ]);
    assert.is(res.status, 422, res.text);
    assert.is(res.body.error.code, 'VALIDATION_ERROR');
    assert.equal(res.body.error.details.fields, [
      { path: 'body.readings.1.sensorId', message: `unknown sensor ${bad} (reading bad-${bad})` },
    ]);
  }
  assert.equal(await latest(a.owner.token).then((s) => s[0].latestReading), null);
  assert.equal(await latest(b.owner.token).then((s) => s[0].latestReading), null);
});

sensors('a batch over 1000 readings, an empty batch, and malformed readings are 422', async () => {
  const client = await buildClient(server);
  const id = await defineSensor(client);
  const many = Array.from({ length: 1001 }, (_, i) => ({ sensorId: id, readingId: `r${i}`, value: i, timestamp: '2026-01-01T10:00:00Z' }));
  assert.is((await send(client.owner.token, many)).status, 422);
  assert.equal((await send(client.owner.token, many.slice(0, 1000))).body.data, { accepted: 1000, duplicates: 0 });
  assert.is((await send(client.owner.token, [])).status, 422);
  for (const bad of [
    { sensorId: id, readingId: '', value: 1, timestamp: '2026-01-01T10:00:00Z' },
    { sensorId: id, readingId: 'x', value: 'hot', timestamp: '2026-01-01T10:00:00Z' },
    { sensorId: id, readingId: 'x', value: 1, timestamp: 'yesterday' },
  ]) {
    assert.is((await send(client.owner.token, [bad])).status, 422, JSON.stringify(bad));
  }
});

sensors('only operators and admins send readings (403 otherwise)', async () => {
  const client = await buildClient(server);
  const id = await defineSensor(client);
  for (const roles of [['author'], ['viewer'], ['approver', 'publisher', 'user_admin']]) {
    const user = await buildUser(server, client, { roles });
    const res = await send(user.token, [{ sensorId: id, readingId: 'x', value: 1, timestamp: '2026-01-01T10:00:00Z' }]);
    assert.is(res.status, 403, String(roles));
  }
  assert.is((await send(undefined, [])).status, 401);
});

sensors.run();
