import fs from 'node:fs';
import path from 'node:path';
import yauzl from 'yauzl';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../../migrations';
import { runtimeInfo } from '#lib/node-runtime';
import { ADMIN_PASSWORD } from '../helpers/server';
import { installedDataDir, runWip } from '../helpers/spawn-wip';

/** Every entry of a ZIP, decompressed. */
function readZip(file: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const entries = new Map<string, string>();
    yauzl.open(file, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (err, stream) => {
          if (err || !stream) return reject(err);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

const test = suite('wip support-bundle');

test('contains version, sanitized config, migrations, doctor output and recent logs — and no secret anywhere', async () => {
  const smtpPassword = 'smtp-pass-do-not-leak';
  const metricsToken = 'metrics-token-do-not-leak';
  const { root, dataDir, env } = await installedDataDir({
    WIP_PORT: '0',
    WIP_SMTP_URL: `smtp://mailer:${smtpPassword}@127.0.0.1:1`,
    WIP_METRICS_TOKEN: metricsToken,
  });
  // a failed admin sign-in and a bad refresh write log rows
  const BetterSqlite3 = (await import('better-sqlite3')).default;
  const db = new BetterSqlite3(path.join(dataDir, 'wip.db'));
  const insert = db.prepare("INSERT INTO logs (created_at, level, event, message, data) VALUES (?, 'info', 'test.event', ?, '{}')");
  for (let i = 0; i < 30; i++) insert.run(new Date().toISOString(), `event number ${i}`);
  db.close();

  const file = path.join(root, 'bundle.zip');
  const result = await runWip(['support-bundle', '--output', file, '--log-lines', '10'], env);
  assert.is(result.code, 0, result.stderr);
  const entries = await readZip(file);
  assert.equal(
    [...entries.keys()].sort(),
    ['config.json', 'doctor.json', 'doctor.txt', 'logs.ndjson', 'migrations.json', 'version.json'].map((n) => `wip-support/${n}`),
  );

  const version = JSON.parse(entries.get('wip-support/version.json')!);
  assert.is(version.version, JSON.parse(fs.readFileSync(path.join(__dirname, '../../../package.json'), 'utf8')).version);
  // the runtime as GET /api/client/version reports it, and the doctor's verdict on it
  assert.equal(version.runtime, runtimeInfo());
  assert.equal(JSON.parse(entries.get('wip-support/doctor.json')!).runtime, runtimeInfo());
  assert.match(
    entries.get('wip-support/doctor.txt')!,
    new RegExp(`^OK +runtime +Node\\.js ${process.versions.node}, release line supported until ${runtimeInfo().supportedUntil}$`, 'm'),
  );
  const config = JSON.parse(entries.get('wip-support/config.json')!);
  assert.is(config.adminPassword, '[removed]');
  assert.is(config.metricsToken, '[removed]');
  // only secrets are removed: durations and paths are what support needs
  assert.is(config.accessTokenTtl, 24 * 60 * 60 * 1000);
  assert.is(config.refreshTokenTtl, 30 * 24 * 60 * 60 * 1000);
  assert.is(config.resetTokenTtl, 60 * 60 * 1000);
  assert.is(config.lockoutMaxFailures, 10);
  assert.is(config.smtpUrl, 'smtp://127.0.0.1:1');
  assert.is(config.dataDir, dataDir);
  assert.equal(JSON.parse(entries.get('wip-support/migrations.json')!), { applied: Object.keys(migrations), pending: [], unknown: [] });
  assert.is(JSON.parse(entries.get('wip-support/doctor.json')!).checks.find((c: { name: string }) => c.name === 'smtp').status, 'FAIL');
  const logs = entries
    .get('wip-support/logs.ndjson')!
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.is(logs.length, 10);
  assert.is(logs[9].message, 'event number 29', 'the newest rows, oldest first');

  const secrets = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'));
  const forbidden = [secrets.jwtSecret, ...secrets.cookieKeys, ADMIN_PASSWORD, smtpPassword, metricsToken];
  const raw = fs.readFileSync(file);
  for (const secret of forbidden) {
    assert.is(raw.indexOf(Buffer.from(secret)), -1, 'not in the raw bytes');
    for (const [name, text] of entries) assert.not.ok(text.includes(secret), `a secret leaked into ${name}`);
  }
  fs.rmSync(root, { recursive: true, force: true });
});

test('a damaged database still yields a bundle that says so', async () => {
  const { root, dataDir, env } = await installedDataDir({ WIP_PORT: '0' });
  fs.writeFileSync(path.join(dataDir, 'wip.db'), 'not a database at all, just text');
  const file = path.join(root, 'bundle.zip');
  const result = await runWip(['support-bundle', '--output', file], env);
  assert.is(result.code, 0, result.stderr);
  const entries = await readZip(file);
  assert.match(entries.get('wip-support/migrations.json')!, /damaged/);
  assert.match(entries.get('wip-support/doctor.txt')!, /FAIL +database/);
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
