import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { installedDataDir, ROOT, runWip } from '../helpers/spawn-wip';
import { daemonAsServer, startDaemon } from '../helpers/cli';
import { waitFor } from '../helpers/wait';
import { buildClient } from '../helpers/factories';
import { upload } from '../helpers/upload';

const test = suite('Uploads survive a crash: bytes first, then the row; doctor --fix removes what a crash left');

const asServer = daemonAsServer;

function walk(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

const fileRows = (dataDir: string) => {
  const db = new Database(path.join(dataDir, 'wip.db'), { readonly: true });
  try {
    return db.prepare('select id, name from files').all() as { id: number; name: string }[];
  } finally {
    db.close();
  }
};

test('killed between writing the bytes and committing the row, and killed mid-stream: no row, no partial file after restart, the orphan removed by --fix', async () => {
  const { root, dataDir, env } = await installedDataDir();
  assert.is((await runWip(['license', 'install', path.join(ROOT, 'test', 'fixtures', 'test-suite.lic')], env)).code, 0);
  const marker = path.join(root, 'held');
  const filesDir = path.join(dataDir, 'files');

  // 1. the daemon holds after the bytes are durable, before the commit; kill -9 there
  let daemon = await startDaemon([], { ...env, WIP_TEST_HOLD_FILE_COMMIT: marker });
  const client = await buildClient(asServer(daemon));
  const pending = upload(asServer(daemon), client.owner.token, [{ name: 'crash.txt', data: 'written but never committed' }]).catch(
    (e) => e,
  );
  await waitFor('the daemon to reach the commit', () => fs.existsSync(marker));
  await daemon.stop('SIGKILL');
  await pending;
  assert.equal(fileRows(dataDir), [], 'no row was committed');
  const blobs = walk(filesDir).filter((f) => !path.relative(filesDir, f).startsWith('tmp'));
  assert.is(blobs.length, 1, 'the complete content is on disk, unreferenced');

  // 2. killed while the body is still streaming: a partial temporary file
  daemon = await startDaemon([], env);
  const url = new URL(daemon.url + '/api/client/upload');
  const req = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { authorization: `Bearer ${client.owner.token}`, 'content-type': 'multipart/form-data; boundary=b' },
  });
  req.on('error', () => undefined);
  req.write('--b\r\nContent-Disposition: form-data; name="file"; filename="half.bin"\r\n\r\n');
  req.write(Buffer.alloc(1024 * 1024, 1));
  await waitFor('a partial temporary file', () => walk(path.join(filesDir, 'tmp')).some((f) => fs.statSync(f).size > 0));
  await daemon.stop('SIGKILL');
  req.destroy();
  assert.is(walk(path.join(filesDir, 'tmp')).length, 1, 'the partial file is there after the crash');

  // 3. restart: temporary files of interrupted uploads are gone; a real upload commits
  daemon = await startDaemon([], env);
  assert.equal(walk(path.join(filesDir, 'tmp')), [], 'no partial file after restart');
  const ok = await upload(asServer(daemon), client.owner.token, [{ name: 'kept.txt', data: 'committed' }]);
  assert.is(ok.status, 201, ok.text);
  await daemon.stop();

  // 4. doctor: the orphaned content is reported once it is old enough not to belong to work in progress, and --fix removes only it
  const hoursAgo = new Date(Date.now() - 2 * 3600_000);
  for (const file of walk(filesDir)) fs.utimesSync(file, hoursAgo, hoursAgo);
  const before = JSON.parse((await runWip(['doctor', '--json'], env)).stdout);
  const filesCheck = (report: any) => report.checks.find((c: any) => c.name === 'files');
  assert.is(filesCheck(before).status, 'WARN');
  assert.match(filesCheck(before).message, /1 orphaned/);
  const fixed = JSON.parse((await runWip(['doctor', '--fix', '--json'], env)).stdout);
  assert.is(filesCheck(fixed).status, 'OK');
  assert.match(filesCheck(fixed).message, /removed 1 /);
  const after = JSON.parse((await runWip(['doctor', '--json'], env)).stdout);
  assert.is(filesCheck(after).status, 'OK', filesCheck(after).message);
  assert.match(filesCheck(after).message, /1 stored file\(s\), no orphans/);
  assert.equal(
    fileRows(dataDir).map((r) => r.name),
    ['kept.txt'],
  );

  daemon = await startDaemon([], env);
  const rows = fileRows(dataDir);
  const res = await fetch(`${daemon.url}/api/client/files/${rows[0].id}`, { headers: { authorization: `Bearer ${client.owner.token}` } });
  assert.is(await res.text(), 'committed');
  await daemon.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

test.run();
