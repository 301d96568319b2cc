import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { migrateDown, migrateToLatest } from '#db/migrator';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient } from '../helpers/factories';
import { parseExposition } from '../helpers/prometheus';

let server: TestServer;

const health = suite('GET /healthz and GET /readyz');
health.before(async () => {
  server = await startTestServer();
});
health.after(async () => server.stop());

health('/healthz answers 200 without authentication or database', async () => {
  const res = await server.request('GET', '/healthz');
  assert.is(res.status, 200);
  assert.equal(res.body, { status: 'ok', version });
  assert.is(res.headers.get('cache-control'), 'no-store');
});

health('/healthz still answers when the database is closed; /readyz then says 503', async () => {
  const other = await startTestServer();
  try {
    await other.deps.db.close();
    assert.is((await other.request('GET', '/healthz')).status, 200);
    const ready = await other.request('GET', '/readyz');
    assert.is(ready.status, 503);
    assert.is(ready.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.match(ready.body.error.details.checks.database, /^unreachable/);
  } finally {
    await other.stop();
  }
});

health('/readyz reports every check ok in the envelope', async () => {
  const res = await server.request('GET', '/readyz');
  assert.is(res.status, 200);
  assert.equal(res.body, { success: true, data: { status: 'ready', checks: { database: 'ok', migrations: 'ok', storage: 'ok' } } });
});

health('/readyz is 503 SERVICE_UNAVAILABLE while a migration is pending', async () => {
  const [undone] = await migrateDown(server.deps.db);
  try {
    const res = await server.request('GET', '/readyz');
    assert.is(res.status, 503);
    assert.is(res.body.success, false);
    assert.is(res.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.is(res.body.error.details.checks.migrations, `pending: ${undone}`);
    assert.is(res.body.error.details.checks.database, 'ok');
  } finally {
    await migrateToLatest(server.deps.db);
  }
  assert.is((await server.request('GET', '/readyz')).status, 200);
});

const metrics = suite('GET /metrics');
metrics.before(async () => {
  server = await startTestServer();
});
metrics.after(async () => server.stop());

metrics('serves a valid Prometheus exposition to a loopback caller without a token', async () => {
  const res = await server.request('GET', '/metrics');
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const exposition = parseExposition(res.text);
  assert.is(exposition.types.get('wip_http_requests_total'), 'counter');
  assert.is(exposition.types.get('wip_http_request_duration_seconds'), 'histogram');
  assert.is(exposition.types.get('wip_db_query_duration_seconds'), 'histogram');
  assert.is(exposition.types.get('nodejs_eventloop_lag_seconds'), 'gauge');
  assert.ok(exposition.value('nodejs_eventloop_lag_seconds')! >= 0);
});

metrics('counts requests by route pattern and status, times them, and sees sessions and license seats', async () => {
  const client = await buildClient(server, { seats: { full: 5, connect: 3 } });
  await server.request('DELETE', `/api/admin/client/${client.id + 1000}`, { token: 'not-a-token' });
  await server.request('GET', '/no/such/path/' + Math.random());
  const exposition = parseExposition((await server.request('GET', '/metrics')).text);

  const signIn = { method: 'POST', route: '/api/admin/auth/sign-in', status: '200' };
  assert.is(exposition.value('wip_http_requests_total', signIn), 1);
  assert.is(exposition.value('wip_http_request_duration_seconds_count', signIn), 1);
  assert.is(exposition.value('wip_http_request_duration_seconds_bucket', { ...signIn, le: '+Inf' }), 1);
  assert.ok(exposition.value('wip_http_request_duration_seconds_sum', signIn)! > 0);
  assert.is(exposition.value('wip_http_requests_total', { method: 'DELETE', route: '/api/admin/client/:id', status: '401' }), 1);
  // a concrete path never becomes a label
  assert.is(exposition.value('wip_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
  assert.not.ok(exposition.samples.some((s) => s.labels.route?.startsWith('/no/such')));

  assert.ok(exposition.value('wip_db_query_duration_seconds_count', { kind: 'select' })! > 0);
  assert.ok(exposition.value('wip_db_query_duration_seconds_count', { kind: 'insert' })! > 0);
  assert.is(exposition.value('wip_active_sessions', { kind: 'admin' }), 1);
  assert.is(exposition.value('wip_active_sessions', { kind: 'user' }), 1);
  assert.is(exposition.value('wip_license_seats', { license_type: 'full', state: 'allocated' }), 5);
  assert.is(exposition.value('wip_license_seats', { license_type: 'connect', state: 'allocated' }), 3);
  assert.is(exposition.value('wip_license_seats', { license_type: 'full', state: 'used' }), 1);
});

metrics('each server counts only its own requests (no global registry)', async () => {
  const other = await startTestServer();
  try {
    const exposition = parseExposition((await other.request('GET', '/metrics')).text);
    assert.is(exposition.value('wip_http_requests_total', { route: '/api/admin/auth/sign-in' }), undefined);
  } finally {
    await other.stop();
  }
});

metrics('a caller forwarded from elsewhere through a trusted proxy is refused with 403 when no token is configured', async () => {
  const proxied = await startTestServer({ env: { WIP_TRUST_PROXY: 'true' } });
  try {
    const res = await proxied.request('GET', '/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.is(res.status, 403);
    assert.is(res.body.error.code, 'FORBIDDEN');
    assert.is((await proxied.request('GET', '/metrics', { headers: { 'x-forwarded-for': '127.0.0.1' } })).status, 200);
    // a remote client writing 127.0.0.1 in front of the address the proxy appends stays remote
    const forged = await proxied.request('GET', '/metrics', { headers: { 'x-forwarded-for': '127.0.0.1, 203.0.113.7' } });
    assert.is(forged.status, 403);
  } finally {
    await proxied.stop();
  }
});

metrics('with metricsToken, only the bearer token opens it', async () => {
  const token = 'scrape-token-0123456789abcdef';
  const guarded = await startTestServer({ env: { WIP_METRICS_TOKEN: token } });
  try {
    const none = await guarded.request('GET', '/metrics');
    assert.is(none.status, 401);
    assert.is(none.body.error.code, 'UNAUTHORIZED');
    assert.is((await guarded.request('GET', '/metrics', { token: token + 'x' })).status, 401);
    assert.is((await guarded.request('GET', '/metrics', { headers: { authorization: `Basic ${token}` } })).status, 401);
    const ok = await guarded.request('GET', '/metrics', { token });
    assert.is(ok.status, 200);
    parseExposition(ok.text);
  } finally {
    await guarded.stop();
  }
});

health.run();
metrics.run();
