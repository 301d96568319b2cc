import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient, buildUser, signIn, type BuiltClient } from '../helpers/factories';
import { listUserWebrtcLogs } from '#repos/diagnostics';
import { tenantScope } from '#db/tenant';
import { startMaintenance } from '#ops/maintenance';

const DAY = 86_400_000;
let server: TestServer;
let admin: string;
let a: BuiltClient;
let b: BuiltClient;
const diagnostics = suite('diagnostics: bug reports, WebRTC logs, clearing them');
diagnostics.before(async () => {
  server = await startTestServer({ env: { WIP_LOG_RETENTION: '30d' } });
  admin = await adminToken(server);
  [a, b] = [await buildClient(server), await buildClient(server)];
});
diagnostics.after(async () => server.stop());

const report = { description: 'Camera freezes on step 3', appVersion: '2.4.1', device: 'Pixel 8', platform: 'android 15' };
const post = (path: string, token: string, body: unknown) => server.request('POST', path, { token, body });
const reportsOf = async (clientId: number) => {
  const res = await server.request('GET', `/api/admin/bug-reports?clientId=${clientId}`, { token: admin });
  assert.is(res.status, 200, res.text);
  return res.body.data.items;
};
const webrtcRows = (client: BuiltClient, userId: number) => listUserWebrtcLogs(server.deps.db.kysely, tenantScope(client.id), userId);

diagnostics('app and web bug reports are stored per client and listed for system admins, paginated and by client', async () => {
  const app = await post('/api/client/add-bug-report', a.owner.token, { ...report, logs: 'E/Camera: timeout', attachmentFileIds: [3, 7] });
  assert.is(app.status, 201, app.text);
  assert.equal(
    { ...app.body.data, id: 0, createdAt: '' },
    {
      id: 0,
      clientId: a.id,
      userId: a.owner.id,
      kind: 'app',
      ...report,
      logs: 'E/Camera: timeout',
      attachmentFileIds: [3, 7],
      createdAt: '',
    },
  );
  const web = await post('/api/client/bug-report-web', b.owner.token, { ...report, device: 'Firefox 140', platform: 'web' });
  assert.is(web.status, 201, web.text);
  assert.equal([web.body.data.kind, web.body.data.logs, web.body.data.attachmentFileIds], ['web', null, []]);

  assert.equal(
    (await reportsOf(a.id)).map((r: { id: number }) => r.id),
    [app.body.data.id],
  );
  assert.equal(
    (await reportsOf(b.id)).map((r: { id: number }) => r.id),
    [web.body.data.id],
  );
  const first = await server.request('GET', '/api/admin/bug-reports?limit=1', { token: admin });
  assert.is(first.body.data.items.length, 1);
  assert.type(first.body.data.nextCursor, 'string');
  const second = await server.request('GET', `/api/admin/bug-reports?limit=1&cursor=${first.body.data.nextCursor}`, { token: admin });
  assert.is.not(second.body.data.items[0].id, first.body.data.items[0].id);
  const client = await server.request('GET', '/api/admin/bug-reports', { token: a.owner.token });
  assert.is(client.status, 403);
});

diagnostics('bug reports are validated: sizes, attachment ids as numbers, unknown fields', async () => {
  const bad: unknown[] = [
    { ...report, description: '' },
    { ...report, logs: 'x'.repeat(256 * 1024 + 1) },
    { ...report, attachmentFileIds: ['3'] },
    { ...report, attachmentFileIds: [0] },
    { ...report, attachmentFileIds: Array.from({ length: 21 }, (_, i) => i + 1) },
    { ...report, secret: true },
    { description: 'only this' },
  ];
  for (const body of bad) {
    const res = await post('/api/client/add-bug-report', a.owner.token, body);
    assert.is(res.status, 422, JSON.stringify(body).slice(0, 80));
  }
});

diagnostics('bug-report-web defaults platform to web; the apps route still needs it', async () => {
  const { platform: _, ...withoutPlatform } = report;
  const web = await post('/api/client/bug-report-web', a.owner.token, { ...withoutPlatform, device: 'Firefox 140' });
  assert.is(web.status, 201, web.text);
  assert.equal([web.body.data.kind, web.body.data.platform], ['web', 'web']);
  const named = await post('/api/client/bug-report-web', a.owner.token, {
    ...withoutPlatform,
    device: 'Safari 19',
    platform: 'web (iPad)',
  });
  assert.is(named.body.data.platform, 'web (iPad)');
  const app = await post('/api/client/add-bug-report', a.owner.token, withoutPlatform);
  assert.is(app.status, 422, app.text);
  assert.ok(
    app.body.error.details.fields.some((f: { path: string }) => f.path.endsWith('platform')),
    app.text,
  );
});

const entries = (n: number, at = '2026-11-23T10:00:00Z') =>
  Array.from({ length: n }, (_, i) => ({ at, level: 'info', message: `ice candidate ${i}`, stats: { rtt: i, codec: 'VP8' } }));

diagnostics('WebRTC log batches are stored for the caller; sizes are limited', async () => {
  const operator = await buildUser(server, a, { roles: ['operator'] });
  const res = await post('/api/client/web-rtc-logs', operator.token!, { callId: 'call-42', entries: entries(3) });
  assert.is(res.status, 201, res.text);
  assert.equal(res.body.data, { callId: 'call-42', stored: 3 });
  const rows = await webrtcRows(a, operator.id);
  assert.equal(
    rows.map((r) => [r.call_id, r.level, r.message, JSON.parse(r.stats!)]),
    [0, 1, 2].map((i) => ['call-42', 'info', `ice candidate ${i}`, { rtt: i, codec: 'VP8' }]),
  );
  assert.is(rows[0].at, '2026-11-23T10:00:00.000Z');
  for (const body of [
    { callId: 'call-42', entries: [] },
    { callId: 'call-42', entries: entries(501) },
    { callId: 'has space', entries: entries(1) },
    { callId: 'c', entries: [{ at: 'yesterday', level: 'info', message: 'x' }] },
    { callId: 'c', entries: [{ at: '2026-11-23T10:00:00Z', level: 'fatal', message: 'x' }] },
    { callId: 'c', entries: [{ at: '2026-11-23T10:00:00Z', level: 'info', message: 'x'.repeat(4001) }] },
    { callId: 'c', entries: [{ at: '2026-11-23T10:00:00Z', level: 'info', message: 'x', stats: { blob: 'x'.repeat(17_000) } }] },
    { callId: 'c', entries: [{ at: '2026-11-23T10:00:00Z', level: 'info', message: 'x', stats: [1, 2] }] },
  ]) {
    const refused = await post('/api/client/web-rtc-logs', operator.token!, body);
    assert.is(refused.status, 422, JSON.stringify(body).slice(0, 100));
  }
  assert.is((await webrtcRows(a, operator.id)).length, 3, 'nothing of a refused batch is stored');
});

diagnostics("clear-diagnostics deletes only the caller's own report logs and WebRTC logs", async () => {
  const me = await buildUser(server, a, { roles: ['operator'] });
  const colleague = await buildUser(server, a, { roles: ['operator'] });
  const other = await buildUser(server, b, { roles: ['operator'] });
  for (const user of [me, colleague]) {
    assert.is((await post('/api/client/add-bug-report', user.token!, { ...report, logs: 'secret-ish log' })).status, 201);
    assert.is((await post('/api/client/web-rtc-logs', user.token!, { callId: 'call-7', entries: entries(2) })).status, 201);
  }
  assert.is((await post('/api/client/web-rtc-logs', other.token!, { callId: 'call-7', entries: entries(2) })).status, 201);

  const cleared = await post('/api/client/clear-diagnostics', me.token!, {});
  assert.is(cleared.status, 200, cleared.text);
  assert.equal(cleared.body.data, { bugReportLogsCleared: 1, webRtcEntriesDeleted: 2 });
  const reports = await reportsOf(a.id);
  assert.is(reports.find((r: { userId: number }) => r.userId === me.id).logs, null);
  assert.is(reports.find((r: { userId: number }) => r.userId === me.id).description, report.description, 'the report stays');
  assert.is(reports.find((r: { userId: number }) => r.userId === colleague.id).logs, 'secret-ish log');
  assert.is((await webrtcRows(a, me.id)).length, 0);
  assert.is((await webrtcRows(a, colleague.id)).length, 2);
  assert.is((await webrtcRows(b, other.id)).length, 2);
  assert.equal((await post('/api/client/clear-diagnostics', me.token!, {})).body.data, {
    bugReportLogsCleared: 0,
    webRtcEntriesDeleted: 0,
  });
});

diagnostics('WebRTC logs are pruned by the log retention job, by when they were stored', async () => {
  const user = await buildUser(server, b, { roles: ['operator'] });
  assert.is((await post('/api/client/web-rtc-logs', user.token!, { callId: 'old-call', entries: entries(2) })).status, 201);
  server.clock.advance(20 * DAY);
  const token = await signIn(server, user.email, user.password, b.id);
  assert.is((await post('/api/client/web-rtc-logs', token, { callId: 'new-call', entries: entries(1) })).status, 201);
  server.clock.advance(11 * DAY);
  const maintenance = startMaintenance(server.deps, { intervalMs: 3_600_000 });
  try {
    await maintenance.runOnce({ backups: false });
  } finally {
    await maintenance.stop();
  }
  assert.equal(
    (await webrtcRows(b, user.id)).map((r) => r.call_id),
    ['new-call'],
  );
});

diagnostics.run();
