import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { envName, loadConfig } from '#config';
import { parseDuration } from '#lib/duration';

const durations = suite('parseDuration');

durations('seconds as a number or with units s, m, h, d', () => {
  assert.is(parseDuration(90), 90_000);
  assert.is(parseDuration('90'), 90_000);
  assert.is(parseDuration('30s'), 30_000);
  assert.is(parseDuration('15m'), 900_000);
  assert.is(parseDuration('24h'), 86_400_000);
  assert.is(parseDuration('30d'), 2_592_000_000);
});

durations('rejects anything else', () => {
  for (const bad of ['', 'abc', '10 weeks', '-5s', '5y']) assert.throws(() => parseDuration(bad), /invalid duration/);
});

const config = suite('loadConfig');
const dirs: string[] = [];
config.after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

function dataDirWith(file?: object): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-config-'));
  dirs.push(dir);
  if (file) fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(file));
  return dir;
}

config('defaults match docs/api/contract.md: port 8080, host 0.0.0.0, tokens 24h / 30d, cookie idle 7d', () => {
  const c = loadConfig({ env: { WIP_DATA_DIR: dataDirWith() } });
  assert.is(c.port, 8080);
  assert.is(c.host, '0.0.0.0');
  assert.is(c.accessTokenTtl, 24 * 3_600_000);
  assert.is(c.refreshTokenTtl, 30 * 86_400_000);
  assert.is(c.sessionIdleTtl, 7 * 86_400_000);
  assert.is(c.bcryptCost, 11);
});

config('precedence: flags > WIP_* env > config file > defaults', () => {
  const dir = dataDirWith({ port: 7000, host: '10.0.0.1', logLevel: 'warn', accessTokenTtl: '1h' });
  const fileOnly = loadConfig({ env: { WIP_DATA_DIR: dir } });
  assert.is(fileOnly.port, 7000);
  assert.is(fileOnly.accessTokenTtl, 3_600_000);
  const env = loadConfig({ env: { WIP_DATA_DIR: dir, WIP_PORT: '7001', WIP_ACCESS_TOKEN_TTL: '30s' } });
  assert.is(env.port, 7001);
  assert.is(env.host, '10.0.0.1');
  assert.is(env.accessTokenTtl, 30_000);
  const flags = loadConfig({ env: { WIP_DATA_DIR: dir, WIP_PORT: '7001' }, flags: { port: '7002' } });
  assert.is(flags.port, 7002);
  assert.is(flags.logLevel, 'warn');
});

config('--config names another file, which must exist', () => {
  const dir = dataDirWith({ port: 7000 });
  const other = path.join(dir, 'other.json');
  fs.writeFileSync(other, JSON.stringify({ port: 7100 }));
  assert.is(loadConfig({ env: { WIP_DATA_DIR: dir }, configFile: other }).port, 7100);
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: dir }, configFile: path.join(dir, 'missing.json') }), /cannot read config file/);
});

config('invalid values are reported with their key', () => {
  const dir = dataDirWith();
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_PORT: 'eighty' } }), /port/);
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_SESSION_IDLE_TTL: 'forever' } }), /sessionIdleTtl/);
  fs.writeFileSync(path.join(dir, 'config.json'), '{ not json');
  assert.throws(() => loadConfig({ env: { WIP_DATA_DIR: dir } }), /not valid JSON/);
});

config(
  'corsOrigins: empty by default; WIP_CORS_ORIGINS is a comma-separated list of exact origins, normalised like a browser sends them',
  () => {
    const dir = dataDirWith();
    assert.equal(loadConfig({ env: { WIP_DATA_DIR: dir } }).corsOrigins, []);
    const c = loadConfig({
      env: { WIP_DATA_DIR: dir, WIP_CORS_ORIGINS: ' https://App.example.com , http://10.0.0.5:3000/,https://b.example.com:443' },
    });
    assert.equal(c.corsOrigins, ['https://app.example.com', 'http://10.0.0.5:3000', 'https://b.example.com']);
    assert.equal(loadConfig({ env: { WIP_DATA_DIR: dataDirWith({ corsOrigins: ['https://a.example.com'] }) } }).corsOrigins, [
      'https://a.example.com',
    ]);
  },
);

config('corsOrigins refuses "*" (credentialed CORS) and anything that is not a bare origin', () => {
  const dir = dataDirWith();
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_CORS_ORIGINS: '*' } }),
    /corsOrigins: "\*" is not allowed: the API answers with credentials/,
  );
  assert.throws(
    () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_CORS_ORIGINS: 'https://*.example.com' } }),
    /corsOrigins: "https:\/\/\*\.example\.com" is not allowed/,
  );
  for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://files.example.com', 'https://user:pw@app.example.com']) {
    assert.throws(
      () => loadConfig({ env: { WIP_DATA_DIR: dir, WIP_CORS_ORIGINS: bad } }),
      /is not an origin: use scheme:\/\/host\[:port\]/,
      bad,
    );
  }
});

config('env names are WIP_ + SCREAMING_SNAKE of the key', () => {
  assert.is(envName('port'), 'WIP_PORT');
  assert.is(envName('accessTokenTtl'), 'WIP_ACCESS_TOKEN_TTL');
  assert.is(envName('sessionIdleTtl'), 'WIP_SESSION_IDLE_TTL');
});

durations.run();
config.run();
