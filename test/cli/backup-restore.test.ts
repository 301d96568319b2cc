import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as tar from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../../migrations';
import { loadConfig } from '#config';
import { createDeps } from '#composition';
import { startServer } from '#cli/serve';
import { loadOrCreateSelfSignedTls } from '#lib/tls';
import { request, startTestServer, ADMIN_PASSWORD, type TestServer } from '../helpers/server';
import { adminToken, uniqueEmail, PASSWORD } from '../helpers/factories';
import { cliEnv, installedDataDir, runWip } from '../helpers/spawn-wip';
import { waitFor } from '../helpers/wait';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'wip-br-'));

/** Serves an existing data directory in-process (the restored one). */
async function serveDataDir(dataDir: string) {
  const config = loadConfig({
    env: { WIP_ENV: 'test', WIP_HOST: '127.0.0.1', WIP_PORT: '0', WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'silent', WIP_DATA_DIR: dataDir },
  });
  const running = await startServer(createDeps(config));
  return { url: running.url.replace('localhost', '127.0.0.1'), stop: () => running.stop() };
}

async function allClientNames(url: string, token: string): Promise<Set<string>> {
  const names = new Set<string>();
  let cursor: string | null = null;
  do {
    const res: any = await request(url, 'GET', `/api/admin/client?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { token });
    assert.is(res.status, 200, res.text);
    for (const item of res.body.data.items) names.add(item.name);
    cursor = res.body.data.nextCursor;
  } while (cursor);
  return names;
}

const backup = suite('wip backup / wip restore');
let server: TestServer;
backup.before(async () => {
  server = await startTestServer();
});
backup.after(async () => server.stop());

backup('a backup taken while the daemon writes restores to a consistent state with every acknowledged write present', async () => {
  const token = await adminToken(server);
  const acknowledged: string[] = [];
  let writing = true;
  let failures = 0;
  const writer = async (n: number) => {
    for (let i = 0; writing; i++) {
      const name = `w${n}-${i}`;
      const res = await server.request('POST', '/api/admin/client', {
        token,
        body: { name, owner: { email: uniqueEmail('bk'), password: PASSWORD }, seats: { full: 2 } },
      });
      if (res.status === 201) acknowledged.push(name);
      else failures++;
    }
  };
  const writers = [writer(1), writer(2), writer(3)];
  await waitFor('20 acknowledged writes', () => acknowledged.length >= 20);
  const beforeBackup = [...acknowledged];
  const root = tmp();
  const archive = path.join(root, 'b.tar.gz');
  const result = await runWip(['backup', '--output', archive, '--json'], cliEnv(server.dataDir));
  const duringBackup = acknowledged.length - beforeBackup.length;
  writing = false;
  await Promise.all(writers);
  assert.is(result.code, 0, result.stderr);
  assert.is(failures, 0);
  assert.ok(duringBackup > 0, 'writes went on while the backup ran');
  const summary = JSON.parse(result.stdout);
  assert.is(summary.file, archive);
  assert.equal(summary.migrations, Object.keys(migrations));
  assert.is(fs.statSync(archive).mode & 0o777, 0o600);

  const target = path.join(root, 'restored');
  const restored = await runWip(['restore', archive, '--json'], cliEnv(target));
  assert.is(restored.code, 0, restored.stderr);
  assert.equal(
    fs.readFileSync(path.join(target, 'secrets.json'), 'utf8'),
    fs.readFileSync(path.join(server.dataDir, 'secrets.json'), 'utf8'),
  );
  const db = new BetterSqlite3(path.join(target, 'wip.db'), { readonly: true });
  assert.equal(db.pragma('integrity_check'), [{ integrity_check: 'ok' }]);
  assert.equal(db.pragma('foreign_key_check'), []);
  // every client has its owner and its seats: no half-written transaction
  const partial = db
    .prepare(
      'SELECT count(*) AS n FROM clients c WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.client_id = c.id) OR NOT EXISTS (SELECT 1 FROM licenses l WHERE l.client_id = c.id)',
    )
    .get() as { n: number };
  db.close();
  assert.is(partial.n, 0);

  const copy = await serveDataDir(target);
  try {
    // the original's session is in the copy and its secrets verify the token
    const names = await allClientNames(copy.url, token);
    for (const name of beforeBackup) assert.ok(names.has(name), `acknowledged write ${name} is in the backup`);
    for (const name of names) assert.ok(acknowledged.includes(name), `${name} was acknowledged`);
    const signIn = await request(copy.url, 'POST', '/api/admin/auth/sign-in', { body: { username: 'admin', password: ADMIN_PASSWORD } });
    assert.is(signIn.status, 200);
  } finally {
    await copy.stop();
  }
  fs.rmSync(root, { recursive: true, force: true });
});

backup('restore refuses while the daemon serves the data directory, and changes nothing', async () => {
  const root = tmp();
  const archive = path.join(root, 'b.tar.gz');
  assert.is((await runWip(['backup', '--output', archive], cliEnv(server.dataDir))).code, 0);
  const before = fs.readdirSync(server.dataDir).sort();
  const result = await runWip(['restore', archive], cliEnv(server.dataDir));
  assert.is(result.code, 1);
  assert.match(result.stderr, new RegExp(`restore refused: the daemon \\(pid ${process.pid}\\) is serving`));
  assert.equal(fs.readdirSync(server.dataDir).sort(), before);
  fs.rmSync(root, { recursive: true, force: true });
});

backup.run();

const refusals = suite('wip restore refusals');

refusals('an archive whose entry does not match its checksum is refused and the current data stays', async () => {
  const { root, dataDir, env } = await installedDataDir();
  const archive = path.join(root, 'b.tar.gz');
  assert.is((await runWip(['backup', '--output', archive], env)).code, 0);
  // tamper: same manifest, one changed entry
  const unpacked = path.join(root, 'unpacked');
  fs.mkdirSync(unpacked);
  await tar.extract({ file: archive, cwd: unpacked });
  fs.writeFileSync(path.join(unpacked, 'secrets.json'), '{"jwtSecret":"attacker-chosen-secret-0000000000000000","cookieKeys":["x"]}\n');
  const tampered = path.join(root, 'tampered.tar.gz');
  await tar.create({ gzip: true, file: tampered, cwd: unpacked }, fs.readdirSync(unpacked));
  const secretsBefore = fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8');

  const result = await runWip(['restore', tampered], env);
  assert.is(result.code, 1);
  assert.match(result.stderr, /restore refused: the archive is corrupt: checksum mismatch for secrets\.json/);
  assert.is(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'), secretsBefore);
  assert.equal(
    fs.readdirSync(root).filter((n) => n.includes('restore')),
    [],
  );

  // a truncated archive
  const bytes = fs.readFileSync(archive);
  const truncated = path.join(root, 'truncated.tar.gz');
  fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
  const cut = await runWip(['restore', truncated], env);
  assert.is(cut.code, 1);
  assert.match(cut.stderr, /restore refused: the archive is corrupt or not a wip backup/);
  // not an archive at all
  const junk = path.join(root, 'junk.tar.gz');
  fs.writeFileSync(junk, 'hello');
  assert.match((await runWip(['restore', junk], env)).stderr, /restore refused/);
  fs.rmSync(root, { recursive: true, force: true });
});

refusals('an archive from a newer schema is refused with a clear message', async () => {
  const newer = await installedDataDir();
  const db = new BetterSqlite3(path.join(newer.dataDir, 'wip.db'));
  db.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run('9999_from_the_future', new Date().toISOString());
  db.close();
  const archive = path.join(newer.root, 'newer.tar.gz');
  const made = await runWip(['backup', '--output', archive], newer.env);
  assert.is(made.code, 0, made.stderr);

  const current = await installedDataDir();
  const result = await runWip(['restore', archive], current.env);
  assert.is(result.code, 1);
  assert.match(result.stderr, /restore refused: the backup comes from a newer version of wip .*9999_from_the_future/);
  assert.ok(fs.existsSync(path.join(current.dataDir, 'wip.db')));
  fs.rmSync(newer.root, { recursive: true, force: true });
  fs.rmSync(current.root, { recursive: true, force: true });
});

refusals(
  'the file store comes back; a stale pid file does not block a restore; host-local folders are kept and the aside copy removed',
  async () => {
    const { root, dataDir, env } = await installedDataDir();
    const archive = path.join(root, 'b.tar.gz');
    fs.mkdirSync(path.join(dataDir, 'files', 'ab'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'files', 'ab', 'photo.bin'), Buffer.alloc(70_000, 7));
    assert.is((await runWip(['backup', '--output', archive], env)).code, 0);
    fs.rmSync(path.join(dataDir, 'files'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'secrets.json'), '{}');
    fs.writeFileSync(path.join(dataDir, 'wip.pid'), '999999999\n');
    fs.mkdirSync(path.join(dataDir, 'backups'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'backups', 'keep.tar.gz'), 'x');
    const result = await runWip(['restore', archive, '--json'], env);
    assert.is(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).carriedOver, ['backups']);
    assert.ok(fs.existsSync(path.join(dataDir, 'backups', 'keep.tar.gz')));
    assert.equal(fs.readFileSync(path.join(dataDir, 'files', 'ab', 'photo.bin')), Buffer.alloc(70_000, 7));
    assert.match(fs.readFileSync(path.join(dataDir, 'secrets.json'), 'utf8'), /jwtSecret/);
    assert.not.ok(fs.existsSync(path.join(dataDir, 'wip.pid')));
    assert.equal(fs.readdirSync(root).sort(), ['b.tar.gz', 'data']);
    const doctor = await runWip(['doctor'], env);
    assert.is(doctor.code, 0, doctor.stdout);
    fs.rmSync(root, { recursive: true, force: true });
  },
);

refusals('tls/ is backed up and restored: the CA keeps its fingerprint and its key', async () => {
  const { root, dataDir, env } = await installedDataDir();
  const material = loadOrCreateSelfSignedTls(dataDir, ['wip.example.test']);
  const fingerprint = new X509Certificate(material.ca).fingerprint256;
  const caKey = fs.readFileSync(path.join(dataDir, 'tls', 'ca.key'), 'utf8');
  const archive = path.join(root, 'b.tar.gz');
  const made = await runWip(['backup', '--output', archive], env);
  assert.is(made.code, 0, made.stderr);

  // onto a new server: the clients keep trusting the same CA
  const target = path.join(root, 'restored');
  const restored = await runWip(['restore', archive], cliEnv(target));
  assert.is(restored.code, 0, restored.stderr);
  assert.is(new X509Certificate(fs.readFileSync(path.join(target, 'tls', 'ca.crt'))).fingerprint256, fingerprint);
  assert.is(fs.readFileSync(path.join(target, 'tls', 'ca.key'), 'utf8'), caKey);
  assert.is(fs.statSync(path.join(target, 'tls', 'ca.key')).mode & 0o777, 0o600);
  assert.is(loadOrCreateSelfSignedTls(target, ['wip.example.test']).created.ca, false);
  fs.rmSync(root, { recursive: true, force: true });
});

refusals('every archive entry is private: files 0600, folders 0700', async () => {
  const { root, dataDir, env } = await installedDataDir();
  loadOrCreateSelfSignedTls(dataDir, ['wip.example.test']);
  fs.mkdirSync(path.join(dataDir, 'files', 'ab'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'files', 'ab', 'photo.bin'), 'x', { mode: 0o644 });
  fs.chmodSync(path.join(dataDir, 'wip.db'), 0o644);
  const archive = path.join(root, 'b.tar.gz');
  assert.is((await runWip(['backup', '--output', archive], env)).code, 0);
  const modes: Record<string, string> = {};
  await tar.list({ file: archive, onReadEntry: (entry) => void (modes[entry.path] = (entry.mode! & 0o777).toString(8)) });
  for (const name of ['manifest.json', 'wip.db', 'secrets.json', 'config.json', 'files/ab/photo.bin', 'tls/ca.key', 'tls/ca.crt']) {
    assert.ok(name in modes, `${name} is in the archive: ${JSON.stringify(modes)}`);
  }
  for (const [name, mode] of Object.entries(modes)) assert.is(mode, name.endsWith('/') ? '700' : '600', `${name} has mode ${mode}`);
  fs.rmSync(root, { recursive: true, force: true });
});

refusals.run();
