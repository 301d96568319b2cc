import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon } from '../helpers/cli';
import { installedDataDir } from '../helpers/spawn-wip';
import { request } from '../helpers/server';

/**
 * A daemon's first answers are part of its start-up time (the `binary`
 * benchmark: start to the first answered /healthz). Koa tests an object body
 * with `instanceof ReadableStream`/`Blob`/`Response`, and touching those
 * globals loads Node's web streams and undici (≈ 30 ms); our JSON answers are
 * serialized by us instead (src/http/json-body.ts). The modules the daemon
 * loaded are written at its exit by a preloaded script.
 */
const LOADED_ON_FIRST_USE = ['openid-client', 'qrcode', 'pino-pretty', 'web-push', 'node-forge'];
/** route groups (and what only they use) load with their first request (ROUTE_GROUPS in src/http/routes); live event streams load the template service with their first template event */
const ROUTE_GROUPS_NOT_ASKED = ['./client/graphql', './admin/client', './client/reports', '../services/templates', './templates'];

test('`wip serve` answers liveness, readiness, a route envelope and error envelopes without loading web streams (ReadableStream), undici, or the libraries of a few routes', async () => {
  const { root, env } = await installedDataDir();
  const loadedFile = path.join(root, 'loaded.json');
  const hook = path.join(root, 'hook.js');
  // built-in modules from Node's own list; packages by every name the daemon required
  fs.writeFileSync(
    hook,
    `const Module = require('node:module'); const required = new Set(); const load = Module._load;
    Module._load = function (request) { required.add(request); return load.apply(this, arguments); };
    process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loadedFile)}, JSON.stringify({ builtins: process.moduleLoadList, required: [...required] })));`,
  );
  const daemon = await startDaemon([], { ...env, NODE_OPTIONS: `--require ${hook}` });
  try {
    const answers = [];
    const asks: [string, string, object?][] = [
      ['GET', '/healthz'],
      ['GET', '/readyz'],
      ['GET', '/no-such-route'],
      // the first requests of lazily loaded route groups: a fixed path, a write with its body validated, a path with a parameter, 405
      ['GET', '/api/client/auth/me'],
      ['POST', '/api/client/auth/sign-in', { email: 'not an email' }],
      ['GET', '/api/admin/user/x'],
      ['DELETE', '/healthz'],
    ];
    for (const [method, urlPath, body] of asks) {
      // unchecked: the exchange check would read /api/openapi.json from this daemon, and building the document loads more
      const res = await request(daemon.url, method, urlPath, { body, checked: false });
      answers.push([res.status, res.headers.get('content-type'), res.body.status ?? res.body.data?.status ?? res.body.error?.code]);
    }
    assert.equal(answers, [
      [200, 'application/json; charset=utf-8', 'ok'],
      [200, 'application/json; charset=utf-8', 'ready'],
      [404, 'application/json; charset=utf-8', 'NOT_FOUND'],
      [401, 'application/json; charset=utf-8', 'UNAUTHORIZED'],
      [422, 'application/json; charset=utf-8', 'VALIDATION_ERROR'],
      [401, 'application/json; charset=utf-8', 'UNAUTHORIZED'],
      [405, 'application/json; charset=utf-8', 'METHOD_NOT_ALLOWED'],
    ]);
  } finally {
    assert.is(await daemon.stop(), 0);
  }
  const loaded = JSON.parse(fs.readFileSync(loadedFile, 'utf8')) as { builtins: string[]; required: string[] };
  assert.equal(
    loaded.builtins.filter((name) => /undici|webstreams\/readablestream/.test(name)),
    [],
  );
  // libraries of a few routes (OpenID sign-in, 2FA enrolment, update checks), of terminal logs and of certificate issuing load when first used
  assert.equal(
    loaded.required.filter((name) => LOADED_ON_FIRST_USE.includes(name)),
    [],
  );
  assert.equal(
    loaded.required.filter((name) => ROUTE_GROUPS_NOT_ASKED.includes(name)),
    [],
  );
  assert.ok(loaded.required.includes('./client/auth'), 'the route group of /api/client/auth/me was loaded on its first request');
  assert.ok(loaded.required.includes('better-sqlite3'), 'the hook saw the daemon require its packages');
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
