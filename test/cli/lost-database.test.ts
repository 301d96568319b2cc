import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startDaemon } from '../helpers/cli';
import { installedDataDir, runWip } from '../helpers/spawn-wip';

// An initialised data directory (secrets, signing key, files) whose database was lost — emptied,
// truncated, its -wal deleted — is a FAIL in `wip doctor`, and `wip serve` (and every command that opens the
// database) refuses instead of starting a new, empty appliance beside the old secrets. Real processes throughout.

interface Report {
  ok: boolean;
  checks: { name: string; status: 'OK' | 'WARN' | 'FAIL'; message: string }[];
}

const status = (report: Report, name: string) => report.checks.find((c) => c.name === name)!;

async function doctor(env: Record<string, string>): Promise<{ code: number | null; report: Report }> {
  const result = await runWip(['doctor', '--json'], env);
  return { code: result.code, report: JSON.parse(result.stdout) as Report };
}

/** An installed data directory with a stored file (what a working appliance has), the daemon stopped. */
async function initialised() {
  const dir = await installedDataDir({ WIP_PORT: '0' });
  const key = 'ab'.repeat(32);
  fs.mkdirSync(path.join(dir.dataDir, 'files', 'ab'), { recursive: true });
  fs.writeFileSync(path.join(dir.dataDir, 'files', 'ab', key), 'a photo');
  return { ...dir, db: path.join(dir.dataDir, 'wip.db') };
}

/** A database file as it is left when everything was still in the -wal and the -wal is gone: a header, no table. */
function mainFileWithoutItsWal(target: string): void {
  const scratch = `${target}.scratch`;
  const db = new BetterSqlite3(scratch);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE kysely_migration (name TEXT PRIMARY KEY, timestamp TEXT)');
  db.prepare('INSERT INTO kysely_migration VALUES (?, ?)').run('0001_foundation', new Date().toISOString());
  // copied while the -wal still holds every page written: the copy is the main file alone
  fs.copyFileSync(scratch, target);
  db.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(scratch + suffix, { force: true });
}

const lost = suite('a lost database never starts as a new appliance');

lost('doctor: a 0-byte, a mid-page truncated, a page-truncated, a -wal-less and a missing wip.db each FAIL (exit 1)', async () => {
  const { root, env, db } = await initialised();
  const original = fs.readFileSync(db);
  const cases: [string, () => void, RegExp][] = [
    ['0 bytes', () => fs.writeFileSync(db, ''), /is empty \(0 bytes\)/],
    [
      'mid-page',
      () => fs.writeFileSync(db, original.subarray(0, original.length - 1000)),
      /is truncated \(\d+ bytes: not a whole number of 4096-byte pages\)/,
    ],
    ['whole pages', () => fs.writeFileSync(db, original.subarray(0, 4096 * 3)), /is truncated \(3 of its \d+ pages\)/],
    ['-wal deleted', () => mainFileWithoutItsWal(db), /holds no data \(no schema/],
    ['missing', () => fs.rmSync(db), /does not exist/],
    ['not SQLite', () => fs.writeFileSync(db, Buffer.alloc(8192, 0x41)), /is not an SQLite database/],
  ];
  for (const [name, damage, expected] of cases) {
    fs.writeFileSync(db, original);
    damage();
    const { code, report } = await doctor(env);
    assert.is(code, 1, `${name}: ${JSON.stringify(report)}`);
    const database = status(report, 'database');
    assert.is(database.status, 'FAIL', name);
    assert.match(database.message, expected, name);
    assert.ok(database.message.includes(db), `${name}: names the file`);
    assert.match(database.message, /secrets\.json .*1 stored file\(s\) in files\//, name);
    assert.match(database.message, /wip restore FILE/, name);
    assert.not.match(JSON.stringify(report), /pending \(applied on the next start\)/, name);
  }
  fs.writeFileSync(db, original);
  assert.is((await doctor(env)).code, 0, 'the sound file is OK again');
  fs.rmSync(root, { recursive: true, force: true });
});

lost('serve, migrate and install refuse a lost database, naming it and "wip restore", and create nothing', async () => {
  const { root, env, dataDir, db } = await initialised();
  for (const damage of [() => fs.writeFileSync(db, ''), () => fs.rmSync(db)]) {
    damage();
    const before = fs.existsSync(db) ? fs.statSync(db).size : null;
    // serve: a daemon that starts is the bug (it would serve a new, empty appliance), so it is stopped and fails the test
    const refusal = await startDaemon(['--data-dir', dataDir], env).then(
      async (daemon) => {
        await daemon.stop();
        return assert.unreachable('wip serve started on a lost database') as never;
      },
      (error: Error) => error.message,
    );
    const answers: [string, string][] = [['serve', refusal]];
    for (const args of [['migrate'], ['install']]) {
      const result = await runWip(args, env);
      assert.is(result.code, 1, `${args[0]}: ${result.stdout}${result.stderr}`);
      answers.push([args[0], result.stderr]);
    }
    for (const [command, stderr] of answers) {
      assert.match(stderr, new RegExp(`wip: the database ${db.replace(/[.]/g, '\\.')} (is empty|does not exist)`), command);
      assert.match(stderr, /wip restore FILE/, command);
      assert.match(stderr, /wip serve --new-database/, command);
      assert.is(fs.existsSync(db) ? fs.statSync(db).size : null, before, `${command}: the lost file is left as it is`);
      assert.not.ok(fs.existsSync(`${db}-wal`), `${command}: nothing opened it`);
    }
  }
  assert.not.ok(fs.existsSync(path.join(dataDir, 'wip.pid')), 'no daemon claimed the directory');
  fs.rmSync(root, { recursive: true, force: true });
});

lost('"wip restore" brings the appliance back; "wip serve --new-database" starts anew and keeps the lost file', async () => {
  const { root, env, dataDir, db } = await initialised();
  const backup = path.join(root, 'before.tar.gz');
  assert.is((await runWip(['backup', '--output', backup], env)).code, 0);
  fs.writeFileSync(db, '');
  assert.is((await runWip(['restore', backup], env)).code, 0);
  assert.is((await doctor(env)).report.checks.find((c) => c.name === 'database')!.status, 'OK');

  const restored = await startDaemon(['--data-dir', dataDir], env);
  assert.is(await restored.stop(), 0);

  // an operator who really wants to start anew says so; the lost file is kept, not overwritten
  const truncated = fs.readFileSync(db).subarray(0, 5000);
  fs.writeFileSync(db, truncated);
  await startDaemon(['--data-dir', dataDir], env).then(
    async (daemon) => {
      await daemon.stop();
      assert.unreachable('a truncated database must not start');
    },
    (error: Error) => assert.match(error.message, /daemon exited with 1: .*is truncated/s),
  );
  const anew = await startDaemon(['--data-dir', dataDir], env, { serveArgs: ['--new-database'] });
  assert.is(await anew.stop(), 0);
  const kept = fs.readdirSync(dataDir).filter((name) => /^wip\.db\.lost-/.test(name));
  assert.is(kept.length, 1, kept.join());
  assert.ok(fs.readFileSync(path.join(dataDir, kept[0])).equals(truncated), 'the lost file is kept byte for byte');
  const after = await doctor(env);
  assert.is(status(after.report, 'database').status, 'OK', JSON.stringify(after.report));
  assert.is(after.code, 0);
  // and on a sound database the flag changes nothing
  const again = await startDaemon(['--data-dir', dataDir], env, { serveArgs: ['--new-database'] });
  assert.is(await again.stop(), 0);
  assert.is(fs.readdirSync(dataDir).filter((name) => /^wip\.db\.lost-/.test(name)).length, 1);
  fs.rmSync(root, { recursive: true, force: true });
});

lost.run();
