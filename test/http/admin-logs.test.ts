import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient } from '../helpers/factories';
import { recordLogEntry } from '#services/security-log';

let server: TestServer;
let token: string;

/** A unique event name per test, so tests do not see each other's rows. */
const tag = (name: string) => `test.${name}.${Math.random().toString(36).slice(2, 8)}`;

const list = suite('GET /api/admin/logs');
list.before(async () => {
  server = await startTestServer();
  token = await adminToken(server);
});
list.after(async () => server.stop());

list('401 without a token, 403 for a client user', async () => {
  const client = await buildClient(server);
  assert.is((await server.request('GET', '/api/admin/logs')).status, 401);
  const res = await server.request('GET', '/api/admin/logs', { token: client.owner.token });
  assert.is(res.status, 403);
  assert.is(res.body.error.code, 'FORBIDDEN');
});

list('newest first, paged with ?limit=&cursor= until nextCursor is null, every row exactly once', async () => {
  const event = tag('paging');
  for (let i = 0; i < 7; i++) await recordLogEntry(server.deps, { event, message: `row ${i}`, data: { i } });
  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const q: string = `/api/admin/logs?event=${event}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await server.request('GET', q, { token });
    assert.is(res.status, 200, res.text);
    seen.push(...res.body.data.items.map((item: { data: { i: number } }) => item.data.i));
    cursor = res.body.data.nextCursor;
    pages++;
  } while (cursor);
  assert.equal(seen, [6, 5, 4, 3, 2, 1, 0]);
  assert.is(pages, 3);
});

list('filters by level (one or a list), client, user and time range', async () => {
  const event = tag('filters');
  const start = server.clock.now();
  await recordLogEntry(server.deps, { event, level: 'info', message: 'a', clientId: 1, userId: 10 });
  server.clock.advance(60_000);
  await recordLogEntry(server.deps, { event, level: 'warn', message: 'b', clientId: 2, userId: 20 });
  server.clock.advance(60_000);
  await recordLogEntry(server.deps, { event, level: 'error', message: 'c', clientId: 2, userId: 21 });
  const messages = async (query: string) => {
    const res = await server.request('GET', `/api/admin/logs?event=${event}&${query}`, { token });
    assert.is(res.status, 200, res.text);
    return res.body.data.items.map((item: { message: string }) => item.message);
  };
  assert.equal(await messages('level=warn'), ['b']);
  assert.equal(await messages('level=warn,error'), ['c', 'b']);
  assert.equal(await messages('clientId=2'), ['c', 'b']);
  assert.equal(await messages('userId=10'), ['a']);
  const since = new Date(start.getTime() + 30_000).toISOString();
  const until = new Date(start.getTime() + 90_000).toISOString();
  assert.equal(await messages(`since=${since}&until=${until}`), ['b']);
});

list('an entry has the presented fields and nothing internal', async () => {
  const event = tag('shape');
  await recordLogEntry(server.deps, {
    event,
    level: 'warn',
    message: 'shape',
    clientId: 3,
    meta: { ip: '10.0.0.1', userAgent: 'ua', requestId: 'r1' },
    data: { k: 'v' },
  });
  const res = await server.request('GET', `/api/admin/logs?event=${event}`, { token });
  const item = res.body.data.items[0];
  assert.equal(Object.keys(item).sort(), [
    'actor',
    'adminId',
    'clientId',
    'createdAt',
    'data',
    'event',
    'id',
    'ip',
    'level',
    'message',
    'requestId',
    'userAgent',
    'userId',
  ]);
  assert.equal(
    { level: item.level, clientId: item.clientId, ip: item.ip, data: item.data },
    { level: 'warn', clientId: 3, ip: '10.0.0.1', data: { k: 'v' } },
  );
});

list('422 naming the field for a bad level or time; 400 for a forged cursor', async () => {
  const bad = await server.request('GET', '/api/admin/logs?level=debug&since=yesterday', { token });
  assert.is(bad.status, 422);
  const paths = bad.body.error.details.fields.map((f: { path: string }) => f.path.split('.').slice(0, 2).join('.')).sort();
  assert.equal(paths, ['query.level', 'query.since']);
  const forged = await server.request('GET', '/api/admin/logs?cursor=bm9wZQ', { token });
  assert.is(forged.status, 400);
});

list.run();

const remove = suite('DELETE /api/admin/logs/:id');
remove.before(async () => {
  server = await startTestServer();
  token = await adminToken(server);
});
remove.after(async () => server.stop());

remove('deletes the entry, records who deleted it, and a second delete is 404', async () => {
  const event = tag('delete');
  await recordLogEntry(server.deps, { event, message: 'to delete' });
  const listed = await server.request('GET', `/api/admin/logs?event=${event}`, { token });
  const id = listed.body.data.items[0].id;
  const res = await server.request('DELETE', `/api/admin/logs/${id}`, { token });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { id, deleted: true });
  const after = await server.request('GET', `/api/admin/logs?event=${event}`, { token });
  assert.is(after.body.data.items.length, 0);
  const audit = await server.request('GET', '/api/admin/logs?event=log.deleted', { token });
  assert.ok(
    audit.body.data.items.some(
      (item: { data: { logId: number }; adminId: number | null }) => item.data.logId === id && item.adminId !== null,
    ),
  );
  assert.is((await server.request('DELETE', `/api/admin/logs/${id}`, { token })).status, 404);
});

remove('401 without a token, 403 for a client user, 404 for a non-numeric id', async () => {
  const client = await buildClient(server);
  assert.is((await server.request('DELETE', '/api/admin/logs/1')).status, 401);
  assert.is((await server.request('DELETE', '/api/admin/logs/1', { token: client.owner.token })).status, 403);
  assert.is((await server.request('DELETE', '/api/admin/logs/abc', { token })).status, 404);
});

remove.run();
