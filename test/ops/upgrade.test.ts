import { sqliteHandle } from '#db/connection';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import * as tar from 'tar';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrations } from '../../migrations';
import { loadConfig } from '#config';
import { closeDeps, createDeps } from '#composition';
import type { AppDeps as Deps } from '#workers';
import { openDatabase } from '#db/connection';
import { migrateToLatest } from '#db/migrator';
import { bootstrap } from '#ops/bootstrap';
import { cliEnv, runWip } from '../helpers/spawn-wip';

const FIRST = { '0001_foundation': migrations['0001_foundation'] };

function freshDeps(): { deps: Deps; dataDir: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-upgrade-'));
  const dataDir = path.join(root, 'data');
  const config = loadConfig({
    env: { WIP_ENV: 'test', WIP_BCRYPT_COST: '4', WIP_LOG_LEVEL: 'silent', WIP_ADMIN_PASSWORD: 'upgrade-admin-pw', WIP_DATA_DIR: dataDir },
  });
  return { deps: createDeps(config), dataDir, root };
}

async function manifestOf(archive: string): Promise<{ migrations: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-manifest-'));
  await tar.extract({ file: archive, cwd: dir });
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return manifest;
}

const tables = (deps: Deps) =>
  (sqliteHandle(deps.db).prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
    (r) => r.name,
  );
const applied = (deps: Deps) =>
  (sqliteHandle(deps.db).prepare('SELECT name FROM kysely_migration ORDER BY name').all() as { name: string }[]).map((r) => r.name);

const upgrade = suite('upgrade on start (bootstrap)');

upgrade('pending migrations on a database with data: a backup of the old schema is taken first, then they are applied', async () => {
  const { deps, root } = freshDeps();
  try {
    // what the first version's install left: its one migration and an administrator (written as it wrote one —
    // today's bootstrap would also record a security event, in a table that version did not have)
    assert.equal(await migrateToLatest(deps.db, FIRST), ['0001_foundation']);
    const now = new Date().toISOString();
    sqliteHandle(deps.db)
      .prepare('INSERT INTO system_admins (username, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run('admin', 'x', now, now);
    const report = await bootstrap(deps);
    assert.equal(report.appliedMigrations, Object.keys(migrations).slice(1));
    assert.ok(report.preUpgradeBackup && fs.existsSync(report.preUpgradeBackup));
    assert.match(path.basename(report.preUpgradeBackup), /^wip-pre-upgrade-.*\.tar\.gz$/);
    assert.equal((await manifestOf(report.preUpgradeBackup)).migrations, ['0001_foundation']);
    const again = await bootstrap(deps);
    assert.is(again.preUpgradeBackup, undefined, 'nothing pending: no backup');
  } finally {
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

upgrade('a failing migration rolls the whole upgrade back and start-up is refused with a clear message', async () => {
  const { deps, root } = freshDeps();
  try {
    assert.is((await bootstrap(deps)).preUpgradeBackup, undefined, 'a fresh install takes no backup');
    const adminsBefore = sqliteHandle(deps.db).prepare('SELECT * FROM system_admins').all();
    const broken = {
      ...migrations,
      '0098_good_step': {
        async up(db: Kysely<any>) {
          await db.schema.createTable('gadgets').addColumn('id', 'integer').execute();
          await db.deleteFrom('system_admins').execute();
        },
      },
      '0099_broken_step': {
        async up() {
          throw new Error('boom');
        },
      },
    };
    let message = '';
    await bootstrap(deps, { migrations: broken }).catch((error: Error) => (message = error.message));
    assert.match(
      message,
      /^migration 0099_broken_step failed: boom; the upgrade was rolled back and the data is unchanged \(backup taken before the upgrade: .*wip-pre-upgrade-.*\.tar\.gz\); wip will not start/,
    );
    assert.not.ok(tables(deps).includes('gadgets'), 'the earlier step of the batch is rolled back too');
    assert.equal(applied(deps), Object.keys(migrations));
    assert.equal(sqliteHandle(deps.db).prepare('SELECT * FROM system_admins').all(), adminsBefore);
  } finally {
    await closeDeps(deps);
    fs.rmSync(root, { recursive: true, force: true });
  }
});

upgrade.run();

const daemon = suite('wip serve on an old or a newer schema');

daemon('a migration that fails in the real daemon: exit 1, one clear line, data and schema as before', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-upgrade-'));
  const dataDir = path.join(root, 'data');
  const db = openDatabase(dataDir);
  await migrateToLatest(db, FIRST);
  db.sqlite.prepare("INSERT INTO clients (name, created_at, updated_at) VALUES ('Keep me', 'x', 'x')").run();
  // a stray table in the way of 0002_event_log makes it fail
  db.sqlite.exec('CREATE TABLE logs (id INTEGER PRIMARY KEY, note TEXT)');
  await db.close();

  const result = await runWip(['serve', '--port', '0', '--host', '127.0.0.1'], cliEnv(dataDir));
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    /^wip: migration 0002_event_log failed: .*logs.*already exists.*; the upgrade was rolled back and the data is unchanged \(backup taken before the upgrade: .*\); wip will not start with a partly migrated database\n$/,
  );
  const after = openDatabase(dataDir);
  try {
    assert.equal(
      (after.sqlite.prepare('SELECT name FROM kysely_migration').all() as { name: string }[]).map((r) => r.name),
      ['0001_foundation'],
    );
    assert.equal(after.sqlite.prepare('SELECT name FROM clients').all(), [{ name: 'Keep me' }]);
    assert.equal(
      (after.sqlite.prepare('PRAGMA table_info(logs)').all() as { name: string }[]).map((c) => c.name),
      ['id', 'note'],
    );
  } finally {
    await after.close();
  }
  assert.not.ok(fs.existsSync(path.join(dataDir, 'wip.pid')), 'the refused daemon leaves no pid file');
  fs.rmSync(root, { recursive: true, force: true });
});

daemon('an older binary on a newer schema refuses to start and takes no backup', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wip-upgrade-'));
  const dataDir = path.join(root, 'data');
  const env = cliEnv(dataDir);
  assert.is((await runWip(['install'], env)).code, 0);
  const db = openDatabase(dataDir);
  db.sqlite.prepare('INSERT INTO kysely_migration (name, timestamp) VALUES (?, ?)').run('0999_newer_feature', new Date().toISOString());
  await db.close();
  const result = await runWip(['serve', '--port', '0', '--host', '127.0.0.1'], env);
  assert.is(result.code, 1);
  assert.match(
    result.stderr,
    /^wip: the database was migrated by a newer version \(unknown migrations: 0999_newer_feature\); use that version or restore a backup\n$/,
  );
  assert.not.ok(fs.existsSync(path.join(dataDir, 'backups')));
  const migrate = await runWip(['migrate'], env);
  assert.is(migrate.code, 1);
  assert.match(migrate.stderr, /newer version/);
  fs.rmSync(root, { recursive: true, force: true });
});

daemon.run();
