import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server';
import { buildClient, buildUser } from '../helpers/factories';
import { json, startUpstream, type Upstream } from '../helpers/upstream';

// ---------------------------------------------------------------------------
const tracker = suite('POST /api/client/bug-report-vendor');
let upstream: Upstream;
let server: TestServer;
let bare: TestServer;
const TOKEN = 'tracker-token-secret-1234';
tracker.before(async () => {
  upstream = await startUpstream();
  server = await startTestServer({
    env: {
      WIP_BUG_TRACKER_URL: `${upstream.url}/api/v3`,
      WIP_BUG_TRACKER_REPOSITORY: 'acme/field-app',
      WIP_BUG_TRACKER_TOKEN: TOKEN,
      WIP_INTEGRATION_TIMEOUT: '1s',
    },
  });
  bare = await startTestServer();
});
tracker.after(async () => {
  await server.stop();
  await bare.stop();
  await upstream.close();
});

const report = {
  title: 'Crash on step 3',
  description: 'The app closes when I take a photo',
  appVersion: '2.4.1',
  device: 'Pixel 7',
  platform: 'android',
  logs: 'E/Camera: boom',
};

tracker('files an issue in the configured repository with the token, and answers its number and URL', async () => {
  const client = await buildClient(server);
  const operator = await buildUser(server, client, { roles: ['operator'] });
  upstream.answer = () => json(201, { number: 42, html_url: 'https://tracker.example/acme/field-app/issues/42' });
  const res = await server.request('POST', '/api/client/bug-report-vendor', { token: operator.token, body: report });
  assert.is(res.status, 201, res.text);
  assert.equal(res.body.data, { issueNumber: 42, issueUrl: 'https://tracker.example/acme/field-app/issues/42' });
  const sent = upstream.received.at(-1)!;
  assert.is(sent.method, 'POST');
  assert.is(sent.url, '/api/v3/repos/acme/field-app/issues');
  assert.is(sent.headers.authorization, `Bearer ${TOKEN}`);
  const issue = JSON.parse(sent.body);
  assert.is(issue.title, report.title);
  assert.match(issue.body, report.description);
  assert.match(issue.body, '2.4.1');
  assert.match(issue.body, 'E/Camera: boom');
  assert.match(issue.body, `client ${client.id}, user ${operator.id}`);
  assert.not.match(issue.body, operator.email);
});

tracker('an upstream failure is 502 UPSTREAM_ERROR with the upstream status; the token never appears in the answer', async () => {
  const client = await buildClient(server);
  upstream.answer = () => json(401, { message: 'Bad credentials' });
  const res = await server.request('POST', '/api/client/bug-report-vendor', { token: client.owner.token, body: report });
  assert.is(res.status, 502, res.text);
  assert.is(res.body.error.code, 'UPSTREAM_ERROR');
  assert.is(res.body.error.details.upstreamStatus, 401);
  assert.not.match(res.text, TOKEN);
  upstream.answer = () => ({ status: 302, headers: { location: 'http://169.254.169.254/' } });
  const redirected = await server.request('POST', '/api/client/bug-report-vendor', { token: client.owner.token, body: report });
  assert.is(redirected.status, 502);
  assert.is(redirected.body.error.details.upstreamStatus, 302);
  upstream.answer = () => ({ ...json(201, { number: 1 }), silent: true });
  const slow = await server.request('POST', '/api/client/bug-report-vendor', { token: client.owner.token, body: report });
  assert.is(slow.status, 502);
  assert.is(slow.body.error.details.upstreamStatus, null);
});

tracker('unconfigured: 503 INTEGRATION_NOT_CONFIGURED; a body without a title is 422', async () => {
  const client = await buildClient(bare);
  const res = await bare.request('POST', '/api/client/bug-report-vendor', { token: client.owner.token, body: report });
  assert.is(res.status, 503);
  assert.is(res.body.error.code, 'INTEGRATION_NOT_CONFIGURED');
  const invalid = await bare.request('POST', '/api/client/bug-report-vendor', { token: client.owner.token, body: { description: 'x' } });
  assert.is(invalid.status, 422);
});

tracker.run();

// ---------------------------------------------------------------------------
const maps = suite('GET /api/client/vendorMapsApi');
let tiles: Upstream;
let mapsServer: TestServer;
const KEY = 'maps-api-key-very-secret';
maps.before(async () => {
  tiles = await startUpstream();
  mapsServer = await startTestServer({
    env: {
      WIP_MAPS_URL: `${tiles.url}/v1/`,
      WIP_MAPS_ALLOWED_PATHS: '/geocode/,/tiles/',
      WIP_MAPS_ALLOWED_PARAMS: 'q,lang,limit',
      WIP_MAPS_API_KEY: KEY,
      WIP_MAPS_API_KEY_PARAM: 'apikey',
      WIP_MAPS_MAX_RESPONSE: '64kb',
      WIP_INTEGRATION_TIMEOUT: '1s',
    },
  });
});
maps.after(async () => {
  await mapsServer.stop();
  await tiles.close();
});

const mapsGet = (token: string | undefined, query: string) => mapsServer.request('GET', `/api/client/vendorMapsApi?${query}`, { token });

maps('forwards an allowed path and parameters to the configured upstream with the API key added, and answers its bytes', async () => {
  const client = await buildClient(mapsServer);
  tiles.answer = () => json(200, { features: [{ name: 'Linz' }] });
  const res = await mapsGet(client.owner.token, 'path=/geocode/search&q=Linz&lang=de');
  assert.is(res.status, 200, res.text);
  assert.equal(res.body, { features: [{ name: 'Linz' }] });
  const sent = new URL(tiles.received.at(-1)!.url, tiles.url);
  assert.is(sent.pathname, '/v1/geocode/search');
  assert.equal(Object.fromEntries(sent.searchParams), { q: 'Linz', lang: 'de', apikey: KEY });

  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  tiles.answer = () => ({ status: 200, headers: { 'content-type': 'image/png' }, body: png });
  const tile = await fetch(`${mapsServer.url}/api/client/vendorMapsApi?path=/tiles/3/4/5.png`, {
    headers: { authorization: `Bearer ${client.owner.token}` },
  });
  assert.is(tile.headers.get('content-type'), 'image/png');
  assert.ok(Buffer.from(await tile.arrayBuffer()).equals(png));
});

maps(
  'SSRF attempts are refused before anything is sent: absolute URLs, @ tricks, encoded dots, dot segments, other paths, unlisted parameters, the key parameter',
  async () => {
    const client = await buildClient(mapsServer);
    const before = tiles.received.length;
    const attempts = [
      'path=http://169.254.169.254/latest/meta-data',
      'path=//evil.example/geocode/x',
      'path=@evil.example/geocode/',
      'path=/geocode/@evil.example',
      'path=/geocode/%2e%2e/admin',
      `path=${encodeURIComponent('/geocode/%2e%2e/admin')}`,
      'path=/geocode/../admin',
      'path=/geocode/./x',
      'path=/geocode\\..\\admin',
      'path=/admin/secrets',
      'path=/geocode/search&apikey=mine',
      'path=/geocode/search&callback=x',
      'path=/geocode/search&q=a&q=b',
      'path=/geocode:80/x',
    ];
    for (const query of attempts) {
      const res = await mapsGet(client.owner.token, query);
      assert.is(res.status, 422, `${query}: ${res.status} ${res.text}`);
    }
    assert.is(tiles.received.length, before, 'nothing reached the upstream');
  },
);

maps('a redirect is not followed, an over-long or slow answer and an upstream error are 502', async () => {
  const client = await buildClient(mapsServer);
  tiles.answer = () => ({ status: 301, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
  const redirect = await mapsGet(client.owner.token, 'path=/geocode/search&q=x');
  assert.is(redirect.status, 502);
  assert.is(redirect.body.error.details.upstreamStatus, 301);
  tiles.answer = () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(65 * 1024, 32) });
  assert.is((await mapsGet(client.owner.token, 'path=/geocode/search&q=x')).status, 502);
  tiles.answer = () => ({ status: 200, body: 'chunk', silent: true });
  assert.is((await mapsGet(client.owner.token, 'path=/geocode/search&q=x')).status, 502);
  tiles.answer = () => json(500, { error: 'down' });
  const failed = await mapsGet(client.owner.token, 'path=/geocode/search&q=x');
  assert.is(failed.status, 502);
  assert.is(failed.body.error.details.upstreamStatus, 500);
  assert.not.match(failed.text, KEY);
});

maps('an HTML answer is never served as a page of this origin', async () => {
  const client = await buildClient(mapsServer);
  tiles.answer = () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<script>alert(1)</script>' });
  const res = await mapsGet(client.owner.token, 'path=/geocode/search&q=x');
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'application/octet-stream');
});

maps('unconfigured: 503 INTEGRATION_NOT_CONFIGURED; without a token 401', async () => {
  const bareServer = await startTestServer();
  try {
    const client = await buildClient(bareServer);
    const res = await bareServer.request('GET', '/api/client/vendorMapsApi?path=/geocode/x', { token: client.owner.token });
    assert.is(res.status, 503);
    assert.is(res.body.error.code, 'INTEGRATION_NOT_CONFIGURED');
  } finally {
    await bareServer.stop();
  }
  assert.is((await mapsGet(undefined, 'path=/geocode/x')).status, 401);
});

maps.run();
