import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createApp } from '#app';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import { defineRoute } from '#http/route';
import { bootstrap } from '#ops/bootstrap';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, REDACT_PATHS } from '#logger';

const test = suite('REDACT_PATHS (pino redaction list)');

test('every listed credential field is replaced by [redacted] whatever the log call', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ logLevel: 'info' }, sink);
  const value = 'S3NSITIVE-VALUE-0123456789';
  const nested = {
    password: value,
    token: value,
    refreshToken: value,
    licenseKey: value,
    secret: value,
    adminPassword: value,
    smtpUrl: value,
  };
  logger.info(
    {
      ...nested,
      currentPassword: value,
      newPassword: value,
      accessToken: value,
      jwtSecret: value,
      cookieKeys: [value],
      body: nested,
      headers: { authorization: value, cookie: value },
      req: { headers: { authorization: value, cookie: value } },
      res: { headers: { 'set-cookie': value } },
    },
    'login',
  );
  assert.is(lines.length, 1);
  assert.not.ok(lines[0].includes(value), lines[0]);
  assert.match(lines[0], /\[redacted\]/);
  assert.ok(REDACT_PATHS.length > 10);
});

test('a credential in a path parameter (reset link) is not in the request line', async () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-redact-'));
  const deps = createDeps(
    loadConfig({
      env: { WIP_ENV: 'test', WIP_DATA_DIR: dataDir, WIP_LOG_LEVEL: 'info', WIP_BCRYPT_COST: '4', WIP_ADMIN_PASSWORD: 'redaction-admin' },
    }),
    { logger: createLogger({ logLevel: 'info' }, sink) },
  );
  await bootstrap(deps);
  lines.length = 0;
  const app = createApp(deps, [
    defineRoute({
      method: 'post',
      path: '/api/test/reset-password/:token',
      summary: 'test',
      auth: 'public',
      handler: async () => ({ ok: true }),
    }),
  ]);
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const secret = 'reset-token-abcdef0123456789';
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/test/reset-password/${secret}`, { method: 'POST' });
    assert.is(res.status, 200, await res.text());
  } finally {
    await new Promise((resolve) => server.close(resolve));
    await closeDeps(deps);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const request = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'request');
  assert.is(request.path, '/api/test/reset-password/[redacted]');
  assert.is(request.route, '/api/test/reset-password/:token');
  assert.not.ok(lines.join('').includes(secret));
});

test.run();
