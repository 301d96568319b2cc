import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createApp } from '#app';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import { defineRoute } from '#http/route';
import { createLogger } from '#logger';
import { bootstrap } from '#ops/bootstrap';

const test = suite('request log sampling (requestLogSample, requestLogSlow)');

/** A server with the given settings whose log lines are collected; `get(path)` answers the status. */
async function withServer(
  env: Record<string, string>,
  run: (get: (p: string) => Promise<number>, requestLines: () => Record<string, unknown>[]) => Promise<void>,
) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-log-sample-'));
  const config = loadConfig({
    env: {
      WIP_ENV: 'test',
      WIP_DATA_DIR: dataDir,
      WIP_LOG_LEVEL: 'info',
      WIP_BCRYPT_COST: '4',
      WIP_ADMIN_PASSWORD: 'sampling-admin',
      ...env,
    },
  });
  const deps = createDeps(config, { logger: createLogger({ logLevel: 'info' }, sink) });
  await bootstrap(deps);
  const app = createApp(deps, [
    defineRoute({ method: 'get', path: '/api/test/ok', summary: 'test', auth: 'public', handler: async () => ({ ok: true }) }),
  ]);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    await run(
      async (p) => {
        const res = await fetch(`http://127.0.0.1:${port}${p}`);
        await res.arrayBuffer();
        return res.status;
      },
      () => lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request'),
    );
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await closeDeps(deps);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

test('by default every request leaves its line, with the same fields as before', async () => {
  await withServer({}, async (get, requestLines) => {
    for (let i = 0; i < 5; i++) assert.is(await get('/api/test/ok'), 200);
    const logged = requestLines();
    assert.is(logged.length, 5);
    const line = logged[0];
    assert.equal(Object.keys(line), ['level', 'time', 'service', 'requestId', 'method', 'route', 'path', 'status', 'ms', 'msg']);
    assert.is(line.level, 30);
    assert.is(line.service, 'wip');
    assert.is(line.route, '/api/test/ok');
    assert.is(line.status, 200);
    assert.type(line.ms, 'number');
    assert.ok(!Number.isNaN(Date.parse(String(line.time))));
  });
});

test('a sample of 0.25 logs every fourth successful request, and every failed one', async () => {
  await withServer({ WIP_REQUEST_LOG_SAMPLE: '0.25' }, async (get, requestLines) => {
    for (let i = 0; i < 8; i++) assert.is(await get('/api/test/ok'), 200);
    assert.is(requestLines().length, 2);
    for (let i = 0; i < 3; i++) assert.is(await get('/api/test/nothing-here'), 404);
    const failed = requestLines().filter((l) => l.status === 404);
    assert.is(failed.length, 3);
    assert.is(failed[0].route, null);
  });
});

test('a sample of 0 still logs errors and slow requests', async () => {
  await withServer({ WIP_REQUEST_LOG_SAMPLE: '0' }, async (get, requestLines) => {
    for (let i = 0; i < 4; i++) assert.is(await get('/api/test/ok'), 200);
    assert.is(requestLines().length, 0);
    assert.is(await get('/api/client/auth/me'), 404);
    assert.is(requestLines().length, 1);
  });
  // every request counts as slow with a threshold of 0
  await withServer({ WIP_REQUEST_LOG_SAMPLE: '0', WIP_REQUEST_LOG_SLOW: '0ms' }, async (get, requestLines) => {
    for (let i = 0; i < 3; i++) assert.is(await get('/api/test/ok'), 200);
    assert.is(requestLines().length, 3);
  });
});

test('a sample outside 0..1 is refused', () => {
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: os.tmpdir(), WIP_REQUEST_LOG_SAMPLE: '2' } }), /requestLogSample/);
});

test.run();
