import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { version } from '../../package.json';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminToken, buildClient } from '../helpers/factories';

/** A manifest upstream on 127.0.0.1 whose answer the test sets. */
let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end();
let requests = 0;
const upstream = http.createServer((req, res) => {
  requests++;
  answer(req, res);
});
const json = (body: unknown) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(body));
};

let server: TestServer;
let noUrl: TestServer;
let upstreamUrl: string;
const updates = suite('GET /api/client/check-updates');
updates.before(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/wip/manifest.json`;
  server = await startTestServer({ env: { WIP_UPDATE_URL: upstreamUrl } });
  noUrl = await startTestServer();
});
updates.after(async () => {
  await Promise.all([server.stop(), noUrl.stop()]);
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
});

const check = async (target: TestServer, token?: string) => {
  token ??= (await buildClient(target)).owner.token;
  const res = await target.request('GET', '/api/client/check-updates', { token });
  assert.is(res.status, 200, res.text);
  return res.body.data;
};
const dropManifest = (target: TestServer, text: string) => {
  fs.mkdirSync(path.join(target.dataDir, 'updates'), { recursive: true });
  fs.writeFileSync(path.join(target.dataDir, 'updates', 'manifest.json'), text);
};

updates('a newer version from the configured URL is an available update, with its notes', async () => {
  answer = json({ version: '99.1.0', notes: 'Faster sync', extra: 'ignored' });
  assert.equal(await check(server), { current: version, latest: '99.1.0', updateAvailable: true, notes: 'Faster sync', source: 'url' });
});

updates('the same or an older version is no update; system administrators may ask too', async () => {
  answer = json({ version });
  assert.equal(await check(server), { current: version, latest: version, updateAvailable: false, notes: null, source: 'url' });
  answer = json({ version: '0.0.1' });
  assert.is((await check(server, await adminToken(server))).updateAvailable, false);
});

updates('an upstream that is down, slow to redirect, errs, is too large or malformed is reported, never a failed request', async () => {
  const cases: [string, (req: http.IncomingMessage, res: http.ServerResponse) => void, RegExp][] = [
    [
      'redirect',
      (_req, res) => {
        res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
        res.end();
      },
      /HTTP 302 \(redirects are not followed\)/,
    ],
    [
      'error',
      (_req, res) => {
        res.writeHead(500);
        res.end('boom');
      },
      /HTTP 500/,
    ],
    [
      'too large',
      (_req, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ version: '9.9.9', notes: 'x'.repeat(70_000) }));
      },
      /larger than 65536 bytes/,
    ],
    [
      'too large, no length',
      (_req, res) => {
        res.write('{"version":"9.9.9","notes":"');
        res.write('x'.repeat(70_000));
        res.end('"}');
      },
      /larger than 65536 bytes/,
    ],
    ['not json', (_req, res) => res.end('<html>'), /not JSON/],
    ['bad version', json({ version: 'latest' }), /version: not a semantic version/],
  ];
  for (const [label, handler, error] of cases) {
    answer = handler;
    const data = await check(server);
    assert.is(data.source, 'unreachable', label);
    assert.is(data.updateAvailable, false, label);
    assert.is(data.latest, null, label);
    assert.match(data.error, error, label);
  }
});

updates('an upstream that is not listening is reported as unreachable', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const down = await startTestServer({ env: { WIP_UPDATE_URL: `http://127.0.0.1:${port}/m.json` } });
  try {
    const data = await check(down);
    assert.is(data.source, 'unreachable');
    assert.match(data.error, /unreachable/);
  } finally {
    await down.stop();
  }
});

updates('air-gapped: the manifest IT dropped into <data-dir>/updates is used; none at all is source none', async () => {
  assert.equal(await check(noUrl), { current: version, latest: null, updateAvailable: false, notes: null, source: 'none' });
  dropManifest(noUrl, JSON.stringify({ version: '99.0.0-rc.1', notes: 'Release candidate' }));
  assert.equal(await check(noUrl), {
    current: version,
    latest: '99.0.0-rc.1',
    updateAvailable: true,
    notes: 'Release candidate',
    source: 'file',
  });
  dropManifest(noUrl, '{ broken');
  const broken = await check(noUrl);
  assert.is(broken.source, 'unreachable');
  assert.match(broken.error, /updates\/manifest\.json: the manifest is not JSON/);
  fs.rmSync(path.join(noUrl.dataDir, 'updates'), { recursive: true });
});

updates('when the URL cannot be reached, the dropped file answers and the URL failure is noted', async () => {
  answer = (_req, res) => {
    res.writeHead(503);
    res.end();
  };
  dropManifest(server, JSON.stringify({ version: '98.0.0' }));
  try {
    const data = await check(server);
    assert.equal([data.source, data.latest, data.updateAvailable], ['file', '98.0.0', true]);
    assert.match(data.error, /HTTP 503/);
  } finally {
    fs.rmSync(path.join(server.dataDir, 'updates'), { recursive: true });
  }
});

updates('signed-out callers are refused before anything is fetched', async () => {
  const before = requests;
  const res = await server.request('GET', '/api/client/check-updates');
  assert.is(res.status, 401);
  assert.is(requests, before);
});

updates.run();
